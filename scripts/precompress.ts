/**
 * Build step: writes a Brotli (`.br`) and a gzip (`.gz`) copy beside every text
 * asset of the build, so the server sends compressed bytes without compressing
 * per request (server/spa.ts serves them by `Accept-Encoding`). Done with
 * node:zlib at the strongest settings, which would be too slow per request.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Text types worth compressing; images other than SVG are compressed already. */
export const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest|map|ico)$/;
/** Below this a compressed copy saves less than its headers cost. */
export const MIN_BYTES = 256;

export interface PrecompressResult {
  files: number;
  bytes: number;
  br: number;
  gz: number;
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    // `.vite/` (the manifest, the catalogues' JSON) is for the server and never served.
    if (name === '.vite') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}

export function precompressDir(dir: string): PrecompressResult {
  const out: PrecompressResult = { files: 0, bytes: 0, br: 0, gz: 0 };
  for (const file of walk(dir)) {
    if (!COMPRESSIBLE.test(file)) continue;
    const raw = readFileSync(file);
    if (raw.length < MIN_BYTES) continue;
    const br = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    });
    const gz = gzipSync(raw, { level: 9 });
    // A copy that is not smaller is useless: the server then sends the original.
    if (br.length < raw.length) writeFileSync(`${file}.br`, br);
    if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
    out.files++;
    out.bytes += raw.length;
    out.br += Math.min(br.length, raw.length);
    out.gz += Math.min(gz.length, raw.length);
  }
  return out;
}

/** Vite plugin: precompresses the output folder once the bundle is written. */
export function precompress(): Plugin {
  let outDir = 'dist';
  let write = true;
  return {
    name: 'wb-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      // The server's first-paint bundle (src/ssr.tsx) is read from disk, never sent.
      write = config.build.write !== false && !config.build.ssr;
    },
    closeBundle() {
      if (!write || !existsSync(outDir)) return;
      const r = precompressDir(outDir);
      const kB = (n: number) => `${(n / 1024).toFixed(1)} kB`;
      this.info?.(`precompressed ${r.files} files: ${kB(r.bytes)} → br ${kB(r.br)}, gzip ${kB(r.gz)}`);
    },
  };
}
