/**
 * A sealed case's files in the private area (issue 37, docs/decisions/sealed-cases.md
 * "Reporter pages"): what the composer sends and what the page saves.
 *
 * Sending: each file, after the metadata check settled (src/metadata/checks.ts, as on
 * the usual path), has its content checked here against its name (the shared rule,
 * machines/schema.ts `contentMatches`: the server cannot look), is padded and sealed
 * chunk by chunk (core/crypto `sealFileForUpload`) and goes by tus into the case's
 * sealed upload session, with the browser's file id and the sealed name as metadata.
 * tus-js-client reads the sealed stream; a lost connection is retried from the part it
 * still holds. What it cannot do is resume a later send: sealing picks a fresh random
 * header, so a file's bytes cannot be made again, and each send starts its uploads anew
 * (in a new session: an abandoned upload still counts against a session's five).
 *
 * Saving: the download is opened as it arrives (`openSealedFile`, one chunk in memory)
 * and written through the File System Access API's `showSaveFilePicker` where the
 * browser has it (Chromium), so a 2 GB file never sits in the page; a stream that fails
 * aborts the writable, so the half-written file is discarded. Elsewhere the opened bytes
 * are collected into a Blob and handed over as a download: the page says so beforehand.
 */
import type { ApiClient } from '../api/client.ts';
import { FILE_HEAD_BYTES, TEXT_SAMPLE_BYTES, contentMatches, fileExtension, isTextExtension } from '../../machines/schema.ts';
import { UPLOADS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';
import { keyOfEpoch, type CaseKey } from './sealed.ts';

/** No resume store: tus-js-client would otherwise keep upload addresses in localStorage. */
const noStorage = { findAllUploads: async () => [], findUploadsByFingerprint: async () => [], removeUpload: async () => {}, addUpload: async () => '' };

/** One PATCH carries at most this; also what tus-js-client holds of a stream for a retry. */
export const SEALED_CHUNK_BYTES = 4 * 1024 * 1024;

/** Whether the file's first bytes fit its name (the server sees only ciphertext and cannot check). */
export async function contentFits(file: Blob & { name: string }): Promise<boolean> {
  const want = isTextExtension(fileExtension(file.name)) ? TEXT_SAMPLE_BYTES : FILE_HEAD_BYTES;
  const bytes = new Uint8Array(await file.slice(0, want).arrayBuffer());
  return contentMatches(file.name, bytes, file.size <= want);
}

/**
 * Gives a stream's bytes in pieces of `size` (the last one shorter): tus-js-client joins
 * small pieces by copying its whole buffer each time, so it is handed whole chunks.
 */
export function chunkedReader(stream: ReadableStream<Uint8Array>, size: number): { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(): Promise<void> } {
  const reader = stream.getReader();
  let rest: Uint8Array | null = null;
  let done = false;
  return {
    async read() {
      if (done && !rest) return { done: true, value: undefined };
      const out = new Uint8Array(size);
      let filled = 0;
      while (filled < size) {
        if (!rest) {
          const next = await reader.read();
          if (next.done) {
            done = true;
            break;
          }
          rest = next.value;
        }
        const take = Math.min(size - filled, rest.length);
        out.set(rest.subarray(0, take), filled);
        filled += take;
        rest = take < rest.length ? rest.subarray(take) : null;
      }
      if (filled === 0) return { done: true, value: undefined };
      return { done: false, value: filled === size ? out : out.subarray(0, filled) };
    },
    cancel: () => reader.cancel(),
  };
}

export interface SealedSendProgress {
  index: number;
  loaded: number;
  total: number;
  retrying: boolean;
}

/** Why the sealed files did not all go: a file whose content does not fit its name, a rate limit, the session gone, or anything else. */
export type SealedSendFailure = { refusedFile: number } | { rateLimited: true } | { sessionLost: true } | { status: number };

/**
 * Seals and uploads `files` (after their metadata check) into sealed upload session
 * `session` of the case; resolves with the file ids in order, or why not.
 */
export async function sendSealedFiles(
  api: ApiClient,
  key: CaseKey,
  session: string,
  files: readonly (Blob & { name: string })[],
  progress: (p: SealedSendProgress) => void,
  signal: AbortSignal,
): Promise<string[] | SealedSendFailure> {
  for (const [index, file] of files.entries()) {
    if (!(await contentFits(file))) return { refusedFile: index };
  }
  const [{ Upload }, { sealFileForUpload }] = await Promise.all([import('tus-js-client'), import('../../core/crypto/index.ts')]);
  const { RETRY_DELAYS } = await import('../uploads/resumable.ts');
  const ids: string[] = [];
  for (const [index, file] of files.entries()) {
    const sealed = await sealFileForUpload(key.dataKey, key.caseId, file, { name: file.name });
    let settled = () => {};
    const outcome = await new Promise<string | SealedSendFailure>((resolve) => {
      const upload = new Upload(chunkedReader(sealed.stream, SEALED_CHUNK_BYTES) as unknown as ReadableStreamDefaultReader, {
        endpoint: api.url(UPLOADS_PATH),
        uploadSize: sealed.size,
        headers: { [UPLOAD_SESSION_HEADER]: session },
        metadata: { fileId: sealed.fileId, name: sealed.name },
        chunkSize: SEALED_CHUNK_BYTES,
        retryDelays: RETRY_DELAYS,
        storeFingerprintForResuming: false,
        removeFingerprintOnSuccess: true,
        urlStorage: noStorage,
        onProgress: (loaded, total) => progress({ index, loaded, total, retrying: false }),
        onShouldRetry: (err) => {
          const status = (err as { originalResponse?: { getStatus(): number } | null }).originalResponse?.getStatus() ?? null;
          const retry = status === null || status >= 500 || status === 409 || status === 423;
          if (retry) progress({ index, loaded: 0, total: sealed.size, retrying: true });
          return retry;
        },
        onSuccess: () => resolve(sealed.fileId),
        onError: (err) => {
          const status = (err as { originalResponse?: { getStatus(): number } | null }).originalResponse?.getStatus() ?? 0;
          if (status === 429) return resolve({ rateLimited: true });
          if (status === 401 || status === 403 || status === 410) return resolve({ sessionLost: true });
          resolve({ status });
        },
      });
      // A cancel removes this file's upload; one that arrived is left for the message to take.
      const onAbort = () => {
        void upload.abort(true).catch(() => {});
        resolve({ status: 0 });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      settled = () => signal.removeEventListener('abort', onAbort);
      upload.start();
    });
    settled();
    if (typeof outcome !== 'string') return outcome;
    ids.push(outcome);
  }
  return ids;
}

/** A file of a sealed case as the page lists it (its name opened here). */
export interface SealedFileRef {
  id: string;
  name: string;
  /** The true size from the sealed name; null when sealed without padding. */
  plainSize: number | null;
  /** The key epoch it is sealed under (absent: the first). */
  epoch?: number;
}

/** What the File System Access API's picker gives (Chromium); absent elsewhere. */
type SavePicker = (options: { suggestedName?: string }) => Promise<{ createWritable(): Promise<WritableStream<Uint8Array>> }>;

/** Whether this browser can write a download to disk while it is opened (no whole file in memory). */
export function canSaveStreaming(scope: unknown = globalThis): boolean {
  return typeof (scope as { showSaveFilePicker?: unknown }).showSaveFilePicker === 'function';
}

export type SaveOutcome = 'saved' | 'cancelled';

/**
 * Downloads a sealed file and opens it as it arrives. With a save picker the plain bytes
 * go straight to the chosen file; a chunk that fails to open aborts the writable (the
 * browser discards what was written) and the promise rejects with SealedFileError. The
 * fallback `deliver` gets a Blob of the whole opened file.
 */
export async function saveSealedFile(
  api: ApiClient,
  key: CaseKey,
  file: SealedFileRef,
  deliver: (blob: Blob, name: string) => void,
  scope: unknown = globalThis,
  signal?: AbortSignal,
): Promise<SaveOutcome> {
  const picker = (scope as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;
  let target: WritableStream<Uint8Array> | null = null;
  if (typeof picker === 'function') {
    try {
      const handle = await picker.call(scope, { suggestedName: file.name });
      target = await handle.createWritable();
    } catch (err) {
      if ((err as { name?: string })?.name === 'AbortError') return 'cancelled';
      throw err;
    }
  }
  const { openSealedFile } = await import('../../core/crypto/index.ts');
  let res: Response;
  try {
    res = await api.request(`/api/private/case/files/${encodeURIComponent(file.id)}`, { headers: { accept: 'application/octet-stream' }, signal });
  } catch (err) {
    await target?.abort().catch(() => {});
    throw err;
  }
  const fileKey = keyOfEpoch(key, file.epoch);
  if (!fileKey) {
    await target?.abort().catch(() => {});
    throw new Error('This page holds no key of the file\'s epoch.');
  }
  const opened = openSealedFile(fileKey, { id: file.id, name: file.name, size: file.plainSize }, res.body!);
  if (target) {
    await opened.pipeTo(target, { signal });
    return 'saved';
  }
  deliver(await new Response(opened).blob(), file.name);
  return 'saved';
}
