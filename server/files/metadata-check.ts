/**
 * The server's second look at hidden data (docs/decisions/metadata-removal.md): the
 * reporter's device removes it before sending, but a client may not have (an old
 * browser, the API used directly, a reporter who kept the original). Images and
 * PDFs are re-checked as they stream past, with the same parsers as the SPA, and the
 * kinds still present are recorded for the handler (never the values).
 *
 * Only files up to MAX_CHECK_BYTES are held for the check, so memory stays bounded;
 * larger ones are recorded as not checked (null). The parsing itself runs in a child
 * process with time, memory and output limits (./sandbox.ts): a file that hits one is
 * stored and recorded as COULD_NOT_CHECK, and no other request waits for it.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { fileExtension } from '../../machines/schema.ts';
import { Sandbox, siblingScript, type SandboxLimits } from './sandbox.ts';

export const MAX_CHECK_BYTES = 32 * 1024 * 1024;
const CHECKED = new Set(['jpg', 'jpeg', 'png', 'pdf']);

/** The stored marker of a file the check started on and could not finish (a limit hit, a crash). */
export const COULD_NOT_CHECK = 'couldNotCheck';
/** Kinds still present ([] none); null: not checked (type, size, or every checker busy); COULD_NOT_CHECK. */
export type MetadataRemaining = string[] | null | typeof COULD_NOT_CHECK;
/** What the handler is told about a file's check. */
export type MetadataCheckState = 'checked' | 'notChecked' | 'couldNotCheck';

export const DEFAULT_METADATA_CHECK_LIMITS: SandboxLimits = {
  timeoutMs: 10_000,
  memoryBytes: 256 * 1024 * 1024,
  maxOutputBytes: 4096,
  concurrency: 2,
  queue: 8,
};

let limits = DEFAULT_METADATA_CHECK_LIMITS;
let sandbox: Sandbox | undefined;

/** The operator's settings (server/config.ts), set when the app is built. */
export function configureMetadataCheck(next: SandboxLimits): void {
  if (sandbox && JSON.stringify(next) === JSON.stringify(limits)) return;
  limits = next;
  sandbox = undefined;
}

function checker(): Sandbox {
  sandbox ??= new Sandbox(siblingScript(import.meta.url, 'metadata-child'), limits);
  return sandbox;
}

const KIND = /^[a-zA-Z]{1,32}$/;

/** The child's one line of JSON, trusted no further than its shape. */
export function readAnswer(output: string): MetadataRemaining {
  try {
    const a = JSON.parse(output.trim().split('\n').at(-1) ?? '') as { kinds?: unknown; limit?: unknown };
    if (a.limit === true) return COULD_NOT_CHECK;
    if (a.kinds === null) return null;
    if (Array.isArray(a.kinds) && a.kinds.length <= 32 && a.kinds.every((k) => typeof k === 'string' && KIND.test(k))) return a.kinds as string[];
  } catch {
    // below
  }
  return COULD_NOT_CHECK;
}

/** Inspects `bytes` in the child; the answer in the form it is stored in. */
export async function checkInChild(bytes: Uint8Array, box: Sandbox = checker()): Promise<MetadataRemaining> {
  const r = await box.run([String(MAX_CHECK_BYTES)], bytes);
  if (r.status === 'done') return readAnswer(r.output);
  // A full queue never made the file wait: it was not checked, like a file too large.
  if (r.status === 'busy') return null;
  return COULD_NOT_CHECK;
}

/** `case_file.metadata_remaining` / `file_upload.metadata_remaining`: a JSON array, the JSON string "couldNotCheck", or null. */
export const storedMetadata = (r: MetadataRemaining): string | null => (r === null ? null : JSON.stringify(r));

/** The handler API's two fields for a stored value: `metadataRemaining` keeps its old meaning, `metadataCheck` tells the three states apart. */
export function metadataView(stored: string | null): { metadataRemaining: string[] | null; metadataCheck: MetadataCheckState } {
  if (stored === null) return { metadataRemaining: null, metadataCheck: 'notChecked' };
  let v: unknown;
  try {
    v = JSON.parse(stored);
  } catch {
    v = COULD_NOT_CHECK;
  }
  return Array.isArray(v) ? { metadataRemaining: v as string[], metadataCheck: 'checked' } : { metadataRemaining: null, metadataCheck: 'couldNotCheck' };
}

export class MetadataCheck extends Transform {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private collecting: boolean;

  constructor(name: string) {
    super();
    this.collecting = CHECKED.has(fileExtension(name));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    if (this.collecting) {
      this.bytes += chunk.length;
      if (this.bytes > MAX_CHECK_BYTES) {
        this.collecting = false;
        this.chunks = [];
      } else this.chunks.push(chunk);
    }
    done(null, chunk);
  }

  /** The kinds of metadata still in the file; [] when none; null when it was not checked; COULD_NOT_CHECK. */
  async remaining(): Promise<MetadataRemaining> {
    if (!this.collecting) return null;
    const bytes = Buffer.concat(this.chunks);
    this.chunks = [];
    return checkInChild(bytes);
  }
}
