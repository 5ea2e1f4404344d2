/**
 * The export's files (docs/decisions/case-export.md "Files"): each file's bytes, as the
 * page opened them (downloaded for a server-keyed case, opened in the browser for a
 * sealed one), flow once through an incremental SHA-256 and a stored (not recompressed)
 * zip entry, chunk by chunk; the zip is a Blob of the chunks, which the browser may keep
 * off the JavaScript heap.
 */
import { Zip, ZipPassThrough } from 'fflate';
import { createSHA256 } from 'hash-wasm';

export interface ExportFileSource {
  name: string;
  size: number;
  /** The opened bytes, as one buffer or a stream of chunks. */
  open: () => Promise<Uint8Array | ReadableStream<Uint8Array>>;
}

export interface HashedFile {
  name: string;
  /** The name in the zip: redacted, unique, no folders. */
  entry: string;
  size: number;
  sha256: string;
}

/** A unique, flat zip entry name for each file, after redaction. */
export function entryNames(names: readonly string[], redact: (s: string) => string): string[] {
  const seen = new Set<string>();
  return names.map((raw) => {
    const base = redact(raw).replace(/[\\/]+/g, '_').replace(/^\.+/, '_') || 'file';
    let name = base;
    for (let n = 2; seen.has(name.toLowerCase()); n++) {
      const dot = base.lastIndexOf('.');
      name = dot > 0 ? `${base.slice(0, dot)} (${n})${base.slice(dot)}` : `${base} (${n})`;
    }
    seen.add(name.toLowerCase());
    return name;
  });
}

async function* chunks(source: Uint8Array | ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  const reader = source.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/**
 * Hashes every file and, when `zip` is true, writes them into one zip; files are read
 * one after the other, so at most one chunk of each is in hand at a time.
 */
export async function hashAndZip(files: readonly ExportFileSource[], redact: (s: string) => string, zip: boolean): Promise<{ files: HashedFile[]; zip: Blob | null }> {
  const names = entryNames(files.map((f) => f.name), redact);
  const parts: Uint8Array[] = [];
  let fail: (err: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {});
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const archive = zip
    ? new Zip((err, data, final) => {
        if (err) return fail(err);
        parts.push(data);
        if (final) finish();
      })
    : null;
  const out: HashedFile[] = [];
  for (const [i, file] of files.entries()) {
    const hash = await createSHA256();
    hash.init();
    const entry = archive ? new ZipPassThrough(names[i]!) : null;
    if (entry) archive!.add(entry);
    let size = 0;
    for await (const chunk of chunks(await file.open())) {
      hash.update(chunk);
      size += chunk.byteLength;
      entry?.push(chunk, false);
    }
    entry?.push(new Uint8Array(0), true);
    out.push({ name: file.name, entry: names[i]!, size, sha256: hash.digest('hex') });
  }
  if (!archive) return { files: out, zip: null };
  archive.end();
  await Promise.race([finished, failed]);
  return { files: out, zip: new Blob(parts as BlobPart[], { type: 'application/zip' }) };
}
