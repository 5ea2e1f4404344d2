/**
 * The export's files (docs/decisions/case-export.md "Files"): each file's bytes, as the
 * page opened them (downloaded for a server-keyed case, opened in the browser for a
 * sealed one), flow once through an incremental SHA-256 and a stored (not recompressed)
 * zip entry, chunk by chunk; the zip is a Blob of the chunks, which the browser may keep
 * off the JavaScript heap. A file that does not open to its end does not stop the export:
 * it is named with its failure, and an entry it had begun stays, marked incomplete in the PDF.
 */
import { Zip, ZipPassThrough } from 'fflate';
import { createSHA256 } from 'hash-wasm';

export interface ExportFileSource {
  name: string;
  size: number;
  /** The opened bytes, as one buffer or a stream of chunks; a stream may error part way (a chunk that does not open). */
  open: () => Promise<Uint8Array | ReadableStream<Uint8Array>>;
  /** Why an error of this file's bytes happened, in the document's terms (default: `failed`). */
  failureOf?: (err: unknown) => FileFailure;
}

/** `unopened`: its bytes did not open (altered, another key); `mismatch`: the content does not fit its name; `failed`: the download broke. */
export type FileFailure = 'unopened' | 'mismatch' | 'failed';

export interface HashedFile {
  name: string;
  /** The name in the zip: redacted, unique, no folders; null when nothing of it is in the zip. */
  entry: string | null;
  size: number;
  /** Over every byte the browser opened; null when the file did not open to its end. */
  sha256: string | null;
  /** Set when the file did not open to its end: the export names it and goes on (an entry already begun stays, incomplete). */
  failure?: FileFailure;
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
    // The entry begins with the first opened chunk: a file that fails before it leaves nothing in the zip.
    let entry: ZipPassThrough | null = null;
    let size = 0;
    try {
      for await (const chunk of chunks(await file.open())) {
        if (archive && !entry) archive.add((entry = new ZipPassThrough(names[i]!)));
        hash.update(chunk);
        size += chunk.byteLength;
        entry?.push(chunk, false);
      }
      if (archive && !entry) archive.add((entry = new ZipPassThrough(names[i]!)));
      entry?.push(new Uint8Array(0), true);
      out.push({ name: file.name, entry: entry ? names[i]! : null, size, sha256: hash.digest('hex') });
    } catch (err) {
      // One file that does not open is named in the export; the others still go in.
      entry?.push(new Uint8Array(0), true);
      out.push({ name: file.name, entry: entry ? names[i]! : null, size, sha256: null, failure: file.failureOf?.(err) ?? 'failed' });
    }
  }
  if (!archive) return { files: out, zip: null };
  archive.end();
  await Promise.race([finished, failed]);
  return { files: out, zip: new Blob(parts as BlobPart[], { type: 'application/zip' }) };
}
