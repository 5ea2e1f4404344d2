/**
 * The report form's files on a sealed case (issue 37, docs/decisions/sealed-cases.md
 * "Reporter pages"): each file, after the browser's metadata removal (src/metadata) and
 * its content check here, sealed chunk by chunk under the case's data key
 * (core/crypto `SealedFileSource`) and sent as a resumable upload (tus) of a sealed
 * upload session: `fileId` and the sealed name (with the true size and type) in the
 * metadata, ciphertext in every PATCH. The sealed case then names the uploads
 * (src/forms/seal.ts).
 *
 * Invariants:
 * - No plain byte, name or type of a file leaves the page.
 * - Resumable as the plain uploads: a send that failed after some files keeps, in this
 *   page's memory only, the case id and data key they are sealed under, the session,
 *   and per file its sealed source and upload address; the next send continues at the
 *   server's offset with the very bytes it would have sent (the source is random access
 *   and deterministic), never under a new key. Nothing of it reaches the device's storage.
 * - The memory is dropped (the data key zeroed) once a case names the uploads, or when
 *   the session can make no case any more.
 */
import { Upload } from 'tus-js-client';
import type { ApiClient } from '../api/client.ts';
import { POW_HEADER, proofHeader } from '../../core/pow.ts';
import { UPLOADS_PATH, UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';
import { FILE_HEAD_BYTES, TEXT_SAMPLE_BYTES, contentMatches, fileExtension, isTextExtension } from '../../machines/schema.ts';
import type { ReportFile, SealedUploadOutcome, SubmissionProof, UploadProgressEvent } from '../../machines/report.ts';
import { createRateMeter } from '../uploads/rate.ts';
import { RETRY_DELAYS, errorCodeOf, isRetryable, noStorage, rateLimitOf, runUpload, statusOf } from '../uploads/resumable.ts';
import { solveProofOfWork } from './proof.ts';
import type { SealedFileSource } from '../../core/crypto/sealed-file.ts';

/** One PATCH carries at most this much: one range is sealed in memory at a time. */
const SEALED_CHUNK_BYTES = 8 * 1024 * 1024;

/** What the sealed case names: its id and data key (the files are sealed under them), the session and the upload ids in order. */
export interface SealedUploads {
  caseId: string;
  dataKey: Uint8Array;
  session: string;
  ids: string[];
}

/** This form's sealed uploads, kept for a send that failed after them (in memory only, one per form). */
export interface SealedUploadMemory {
  caseId: string | null;
  dataKey: Uint8Array | null;
  session: string | null;
  files: Map<object, { source: SealedFileSource; url: string | null; done: boolean }>;
}

export const newSealedUploadMemory = (): SealedUploadMemory => ({ caseId: null, dataKey: null, session: null, files: new Map() });

/** After a case named the uploads (or the session can make none): the next send seals afresh. */
export function forgetSealedUploads(memory: SealedUploadMemory | undefined): void {
  if (!memory) return;
  memory.dataKey?.fill(0);
  memory.caseId = null;
  memory.dataKey = null;
  memory.session = null;
  memory.files.clear();
}

/**
 * The content check the server cannot make on a sealed file (it sees ciphertext only):
 * the shared rule (`contentMatches`) on the first bytes of the file as it will be sealed
 * (the cleaned copy when metadata was removed), as the form applied it when the file was added.
 */
export async function contentFits(file: Blob & { name: string }): Promise<boolean> {
  const want = isTextExtension(fileExtension(file.name)) ? TEXT_SAMPLE_BYTES : FILE_HEAD_BYTES;
  const bytes = new Uint8Array(await file.slice(0, want).arrayBuffer());
  return contentMatches(file.name, bytes, file.size <= want);
}

/**
 * Seals and uploads `files` (what goes: cleaned copies or originals, in the draft's
 * order; `keys` the draft's own file objects, for the memory). Resolves with the
 * uploads for the sealed case, or why not.
 */
export async function uploadSealedFiles(
  api: ApiClient,
  companyHost: string,
  input: { files: readonly ReportFile[]; keys?: readonly object[]; proof: SubmissionProof | null; reportProgress: (e: UploadProgressEvent) => void },
  signal: AbortSignal | undefined,
  memory: SealedUploadMemory,
): Promise<SealedUploadOutcome> {
  const { files, proof, reportProgress } = input;
  const keys = input.keys ?? files;
  for (const [index, file] of files.entries()) {
    let fits: boolean;
    try {
      fits = await contentFits(file as File);
    } catch {
      return null;
    }
    if (!fits) return { refusedFile: { index, name: file.name } };
  }
  const crypto = await import('../../core/crypto/index.ts');
  if (!memory.caseId || !memory.dataKey) {
    forgetSealedUploads(memory);
    memory.caseId = globalThis.crypto.randomUUID();
    memory.dataKey = crypto.makeDataKey();
  }
  const { caseId, dataKey } = memory;
  if (!memory.session) {
    let paid;
    try {
      paid = await solveProofOfWork(api, proof, signal);
    } catch {
      return typeof navigator !== 'undefined' && navigator.onLine === false ? { networkFailure: true } : null;
    }
    try {
      const res = await fetch(api.url(UPLOAD_SESSIONS_PATH), {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-company-host': companyHost, [POW_HEADER]: proofHeader(paid) },
        body: JSON.stringify({ sealed: true }),
        signal,
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
      if (res.status === 429) return rateLimitOf(res);
      if (!res.ok) return null;
      memory.session = ((await res.json()) as { uploadSession: string }).uploadSession;
    } catch {
      return signal?.aborted ? null : { networkFailure: true };
    }
  }
  const session = memory.session!;
  const ids: string[] = [];
  for (const [index, file] of files.entries()) {
    const key = keys[index] ?? file;
    let kept = memory.files.get(key);
    if (!kept) {
      kept = { source: await crypto.SealedFileSource.create(dataKey, caseId, file as File, { name: file.name, type: file.type }), url: null, done: false };
      memory.files.set(key, kept);
    }
    const { source } = kept;
    if (kept.done) {
      reportProgress({ type: 'upload.progress', index, loaded: file.size, total: file.size });
      ids.push(source.fileId);
      continue;
    }
    // Progress in the file's own bytes: the sealed size is a padded bucket, not what the reporter picked.
    const plain = (sealed: number) => Math.min(file.size, Math.round((sealed / source.size) * file.size));
    const meter = createRateMeter(file.size);
    let last = 0;
    const outcome = await runUpload<string | Exclude<SealedUploadOutcome, { sealedUploads: unknown }>>(signal, (resolve) => {
      const upload = new Upload(file as File, {
        endpoint: api.url(UPLOADS_PATH),
        uploadUrl: kept.url,
        onUploadUrlAvailable: () => {
          if (upload.url) kept.url = upload.url;
        },
        headers: { [UPLOAD_SESSION_HEADER]: session },
        // The id the chunks and the name are bound to, and the name sealed: nothing in clear.
        metadata: { fileId: source.fileId, name: source.name },
        uploadSize: source.size,
        fileReader: {
          openFile: async () => ({
            size: source.size,
            slice: async (start: number, end: number) => {
              // Bytes as the request body (XMLHttpRequest and Node's http both send them); tus-js-client reads `size`, as of a Blob.
              const value = Object.assign(await source.slice(start, end), { size: 0 });
              value.size = value.length;
              return { value, done: start + value.length >= source.size };
            },
            close: () => {},
          }),
        },
        chunkSize: SEALED_CHUNK_BYTES,
        retryDelays: RETRY_DELAYS,
        storeFingerprintForResuming: false,
        removeFingerprintOnSuccess: true,
        urlStorage: noStorage,
        onProgress: (loaded) => {
          last = plain(loaded);
          reportProgress({ type: 'upload.progress', index, loaded: last, total: file.size, ...meter.record(last, performance.now()), retrying: false });
        },
        onShouldRetry: (err) => {
          const retry = isRetryable(err);
          if (retry) {
            meter.reset();
            reportProgress({ type: 'upload.progress', index, loaded: last, total: file.size, bytesPerSecond: null, secondsLeft: null, retrying: true });
          }
          return retry;
        },
        onSuccess: () => {
          kept.done = true;
          resolve(source.fileId);
        },
        onError: (err) => {
          const status = statusOf(err);
          const code = errorCodeOf(err);
          // The session is gone or spent: the next send starts with a new one, and a new key.
          if (status === 401 || code === 'UPLOAD_SESSION_USED' || code === 'FILE_ID_TAKEN') forgetSealedUploads(memory);
          if (status === 429) return resolve({ rateLimited: { retryAfterSeconds: 60 } });
          resolve(null);
        },
      });
      return upload;
    });
    if (typeof outcome !== 'string') return outcome;
    ids.push(outcome);
  }
  return { sealedUploads: { caseId, dataKey, session, ids } satisfies SealedUploads };
}
