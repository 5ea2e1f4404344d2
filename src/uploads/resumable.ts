/**
 * Files go as resumable uploads (tus, docs/decisions/resumable-uploads.md): a dropped
 * connection, a phone that slept or a server restart costs a few retries, not the
 * upload. tus-js-client asks the server where the upload stands (HEAD) and continues
 * from there. Shared by the online form (an anonymous session, src/forms/submit.ts)
 * and the private messages' composer (a session bound to the case, src/private/services.ts).
 *
 * Nothing about the uploads is stored in the browser: tus-js-client's resume store
 * (localStorage) is replaced by none, so no trace of a report is left on the device;
 * the session secret and upload addresses live in memory only, for this page.
 */
import { Upload, type DetailedError } from 'tus-js-client';
import type { ApiClient } from '../api/client.ts';
import { POW_HEADER, proofHeader, type PowProof } from '../../core/pow.ts';
import type { ReportFile, SubmitOutcome, UploadProgressEvent } from '../../machines/report.ts';
import { createRateMeter } from './rate.ts';
import { UPLOADS_PATH, UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';
import { forgetUploads, newUploadMemory, type UploadMemory } from './memory.ts';

/**
 * Waits between retries (ms): quick at first, then up to a minute, for about 15
 * minutes in all; a retry that made progress starts the list again (tus-js-client).
 */
export const RETRY_DELAYS = [0, 500, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000, 15_000, 20_000, 30_000, 30_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000];
/** One PATCH carries at most this much; a request's loss is bounded even by a proxy that buffers. */
const CHUNK_BYTES = 64 * 1024 * 1024;

/** No resume store: tus-js-client would otherwise keep upload addresses in localStorage. */
export const noStorage = {
  findAllUploads: async () => [],
  findUploadsByFingerprint: async () => [],
  removeUpload: async () => {},
  addUpload: async () => '',
};

export interface UploadedFiles {
  session: string;
  ids: string[];
}

/** A file to upload: the browser's File in the app. */
export type UploadableFile = ReportFile;

/** One file's progress: its place, bytes sent of all, speed and time left (null while unknown), and whether it is retrying. */
export interface FileUploadProgress {
  index: number;
  loaded: number;
  total: number;
  bytesPerSecond: number | null;
  secondsLeft: number | null;
  retrying: boolean;
}

/** Why the files did not all arrive: a file the server refused (by its place), a rate limit, or any other failure (null). */
export type UploadRefusal = { refusedFile: { index: number; name: string } } | { rateLimited: { retryAfterSeconds: number } } | null;

/** The HTTP status of a tus error's answer (null: no answer). */
export function statusOf(err: unknown): number | null {
  const res = (err as DetailedError | null)?.originalResponse;
  return res ? res.getStatus() : null;
}

/** The product's error code in a tus error's answer, if any. */
export function errorCodeOf(err: unknown): string | null {
  try {
    const body = (err as DetailedError | null)?.originalResponse?.getBody();
    return body ? ((JSON.parse(body) as { error?: { code?: string } }).error?.code ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * tus-js-client's retry rule, without its "only while online" condition: a phone that
 * lost its network keeps trying (the waits grow) instead of giving up at once. A busy
 * (409, 423) or failing (5xx) server is tried again; any other refusal is final.
 */
export function isRetryable(err: unknown): boolean {
  const status = statusOf(err);
  return status === null || status < 400 || status >= 500 || status === 409 || status === 423;
}

/** A 429 answer to an upload-session request: how long it says to wait (60 s when it names no usable time). */
export function rateLimitOf(res: Response): { rateLimited: { retryAfterSeconds: number } } {
  const seconds = Number(res.headers.get('retry-after'));
  return { rateLimited: { retryAfterSeconds: Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60 } };
}

/**
 * Runs the upload `make` builds (its callbacks settle it through `resolve`) until it
 * settles. Aborting `signal` (a cancel) removes the upload and settles with null; one
 * that settled is left alone.
 */
export async function runUpload<T>(signal: AbortSignal | undefined, make: (resolve: (outcome: T | null) => void) => Upload): Promise<T | null> {
  let settled = () => {};
  const outcome = await new Promise<T | null>((resolve) => {
    const upload = make(resolve);
    const onAbort = () => {
      void upload.abort(true).catch(() => {});
      resolve(null);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    settled = () => signal?.removeEventListener('abort', onAbort);
    upload.start();
  });
  settled();
  return outcome;
}

/**
 * Sends every file as a resumable upload in one upload session: the one `memory` kept
 * from an earlier try, or a new one paid with `proof`. Resolves with the session and
 * the upload ids, or with the outcome that ends the submission: a refused file by its
 * place, a rate limit, or null (failure).
 */
export async function uploadFiles(
  api: ApiClient,
  companyHost: string,
  files: readonly ReportFile[],
  proof: PowProof | null,
  reportProgress: (e: UploadProgressEvent) => void,
  signal?: AbortSignal,
  memory: UploadMemory = newUploadMemory(),
): Promise<UploadedFiles | Exclude<SubmitOutcome, { caseDto: unknown }>> {
  let session: string;
  if (memory.session) {
    session = memory.session;
  } else {
    if (!proof) return null;
    try {
      const res = await fetch(api.url(UPLOAD_SESSIONS_PATH), {
        method: 'POST',
        headers: { accept: 'application/json', 'x-company-host': companyHost, [POW_HEADER]: proofHeader(proof) },
        signal,
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
      if (res.status === 429) return rateLimitOf(res);
      if (!res.ok) return null;
      session = ((await res.json()) as { uploadSession: string }).uploadSession;
      forgetUploads(memory);
      memory.session = session;
    } catch {
      // No answer: the connection is gone (not a refusal); a cancel is not a failure to name.
      return signal?.aborted ? null : { networkFailure: true };
    }
  }
  const ids = await sendFiles(api, session, files, (p) => reportProgress({ type: 'upload.progress', ...p }), signal, memory);
  return Array.isArray(ids) ? { session, ids } : ids;
}

/**
 * Sends `files` as resumable uploads in upload session `session`, one after the other,
 * continuing what `memory` holds of an earlier try (by `keys[i]`, the file as the draft
 * holds it: a cleaned copy may be a new object each time). Resolves with the upload
 * ids in order, or why not.
 */
export async function sendFiles(
  api: ApiClient,
  session: string,
  files: readonly UploadableFile[],
  reportProgress: (p: FileUploadProgress) => void,
  signal: AbortSignal | undefined,
  memory: UploadMemory,
  keys: readonly object[] = files,
): Promise<string[] | UploadRefusal> {
  const ids: string[] = [];
  for (const [index, file] of files.entries()) {
    const key = keys[index] ?? file;
    const sent = memory.urls.get(key);
    if (sent && memory.done.has(key)) {
      reportProgress({ index, loaded: file.size, total: file.size, bytesPerSecond: null, secondsLeft: null, retrying: false });
      ids.push(sent.split('/').pop()!);
      continue;
    }
    const meter = createRateMeter(file.size);
    let last = 0;
    const outcome = await runUpload<string | UploadRefusal>(signal, (resolve) => {
      const upload = new Upload(file as File, {
        endpoint: api.url(UPLOADS_PATH),
        // Where an earlier try stopped: asked with HEAD and continued (a new upload if it is gone).
        uploadUrl: sent ?? null,
        onUploadUrlAvailable: () => {
          if (upload.url) memory.urls.set(key, upload.url);
        },
        headers: { [UPLOAD_SESSION_HEADER]: session },
        metadata: { filename: file.name },
        chunkSize: CHUNK_BYTES,
        retryDelays: RETRY_DELAYS,
        storeFingerprintForResuming: false,
        removeFingerprintOnSuccess: true,
        urlStorage: noStorage,
        onProgress: (loaded, total) => {
          last = loaded;
          const rate = meter.record(loaded, performance.now());
          reportProgress({ index, loaded, total, ...rate, retrying: false });
        },
        onShouldRetry: (err) => {
          const retry = isRetryable(err);
          if (retry) {
            meter.reset();
            reportProgress({ index, loaded: last, total: file.size, bytesPerSecond: null, secondsLeft: null, retrying: true });
          }
          return retry;
        },
        onSuccess: () => {
          const id = upload.url?.split('/').pop();
          if (id) memory.done.add(key);
          resolve(id ?? null);
        },
        onError: (err) => {
          const status = statusOf(err);
          const code = errorCodeOf(err);
          // The session is gone or spent: the next send starts with a new one.
          if (status === 401 || code === 'UPLOAD_SESSION_USED') forgetUploads(memory);
          if (status === 429) return resolve({ rateLimited: { retryAfterSeconds: 60 } });
          if (code === 'FILE_CONTENT_MISMATCH' || code === 'FORBIDDEN_FILE_TYPE') return resolve({ refusedFile: { index, name: file.name } });
          resolve(null);
        },
      });
      return upload;
    });
    if (typeof outcome !== 'string') return outcome;
    ids.push(outcome);
  }
  return ids;
}
