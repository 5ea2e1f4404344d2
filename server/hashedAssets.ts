/**
 * The build's hashed files (`assets/`, `handler/assets/`) answered from memory.
 *
 * Why: a page's first load asks for five to ten of them at once. Read from disk per
 * request (open, stat, stream, for each of its encodings) one took ≈ 2 ms of the
 * event loop, so the last of a page's scripts waited ≈ 20–30 ms before its first byte
 * on an idle server, and the static files were the slowest thing the server did
 * (performance.md, tenth round). A hashed file never changes under its name, so each
 * one is read once, with its Brotli and gzip copies (scripts/precompress.ts), and
 * kept: only files that were asked for, so an idle server holds none of them.
 *
 * Invariants: only a plain file name is looked up (no separator, no leading dot, not
 * a `.br`/`.gz` copy); a name that is not on disk is not remembered, so made-up names
 * cost a failed stat and no memory; the cache has a byte budget and starts afresh past it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { etagOf, type Representation } from './spa.ts';

export interface HashedAsset extends Representation {
  type: string;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file name a build writes: letters, digits, `_`, `-`, `.`; no leading dot, no compressed copy. */
const PLAIN_NAME = /^(?!\.)[\w.-]+$/;

async function readIfThere(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch {
    return undefined;
  }
}

export class HashedAssets {
  private readonly kept = new Map<string, Promise<HashedAsset | null>>();
  private bytes = 0;

  constructor(
    private readonly distDir: string,
    /** Past this many bytes held, the cache starts afresh (a long-running server across many deploys). */
    private readonly budget = 64 * 1024 * 1024,
  ) {}

  /** `folder` is `assets` or `handler/assets`; null when there is no such file. */
  get(folder: 'assets' | 'handler/assets', name: string): Promise<HashedAsset | null> {
    if (!PLAIN_NAME.test(name) || /\.(?:br|gz)$/.test(name)) return Promise.resolve(null);
    const key = `${folder}/${name}`;
    let asset = this.kept.get(key);
    if (!asset) {
      asset = this.load(path.join(this.distDir, folder, name));
      this.kept.set(key, asset);
      void asset.then((a) => {
        if (!a) {
          this.kept.delete(key);
          return;
        }
        this.bytes += a.body.length + (a.br?.length ?? 0) + (a.gzip?.length ?? 0);
        if (this.bytes > this.budget) {
          this.kept.clear();
          this.bytes = 0;
        }
      });
    }
    return asset;
  }

  private async load(file: string): Promise<HashedAsset | null> {
    const [body, br, gzip] = await Promise.all([readIfThere(file), readIfThere(`${file}.br`), readIfThere(`${file}.gz`)]);
    if (!body) return null;
    const asset: HashedAsset = { body, etag: etagOf(body), type: TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' };
    // Both or neither: the answer is negotiated between the two (sendRepresentation).
    if (br && gzip) {
      asset.br = br;
      asset.gzip = gzip;
    }
    return asset;
  }
}
