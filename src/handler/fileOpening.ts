/**
 * A sealed file as the handler's browser opens it (docs/decisions/sealed-workspace.md "Files
 * in the workspace"): the download goes through core/crypto's streaming decryption and
 * through the checks the server ran on files it could read, now run here: the content
 * must fit the name (machines/schema.ts `contentMatches`, the rule the reporter's browser
 * applied before sealing), checked on the page as the bytes pass, since it decides
 * whether a chunk may be written and costs the same per byte whatever the file; and the
 * hidden data is looked for with the same parsers and the server's limits (images and
 * PDF files up to 32 MB, as server/files/metadata-check.ts did) in a Web Worker of its
 * own (src/handler/openedFileCheck.worker.ts), ended at CHECK_TIME_LIMIT_MS, so a hostile
 * file cannot freeze the page. Then it is written straight to disk through the File
 * System Access API, or, where a browser lacks it, gathered in memory up to
 * MEMORY_SAVE_MAX and handed to the browser's download.
 *
 * Invariants: at most one chunk of the file is held (plus the copy a metadata check of a
 * file of at most 32 MB needs, which moves to the worker, never copied again); a file
 * whose content does not fit its name, or that does not open to its end, is not kept:
 * the writable is aborted (its swap file discarded) or the memory dropped, before any
 * byte of it is on disk. A check that does not answer within its limit, or whose worker
 * fails, is `couldNotCheck`: the file is saved, with that warning.
 */
import { openSealedFile, SealedFileError, concat } from '../../core/crypto/index.ts';
import { cleanFileName, contentMatches, fileExtension, isTextExtension, FILE_HEAD_BYTES, ALLOWED_FILE_TYPES } from '../../machines/schema.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { FileCheckResult, FileSaveAnswer, FileSaveInput } from '../../machines/handler/sealedCase.ts';
import { startPinnedWorker } from '../integrity/worker.ts';
import type { CheckRequest, HiddenDataVerdict } from './openedFileCheck.ts';
import checkWorkerUrl from './openedFileCheck.worker.ts?worker&url';

/** As the server's re-check (server/files/metadata-check.ts): images and PDF files, up to 32 MB, under its limits. */
export const METADATA_CHECK_MAX = 32 * 1024 * 1024;
const CHECKED = new Set(['jpg', 'jpeg', 'png', 'pdf']);
/**
 * How long the worker's check may run, as the server's child had (METADATA_CHECK_TIMEOUT_MS):
 * far more than a real photo or PDF of 32 MB takes; the caps end a known bomb in about
 * 0.2 s, so only a parse nobody foresaw is ended here.
 */
export const CHECK_TIME_LIMIT_MS = 10_000;

/** The part of a Worker the check uses (a test gives its own). */
export interface CheckWorker {
  postMessage(message: CheckRequest, transfer: Transferable[]): void;
  terminate(): void;
  onmessage: ((e: MessageEvent) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
  onmessageerror: ((e: MessageEvent) => void) | null;
}

export interface HiddenDataCheckOptions {
  start?: () => Promise<CheckWorker>;
  timeLimitMs?: number;
}

/** Started only once its bytes match the page's digest for it (src/integrity/worker.ts). */
const startCheckWorker = (): Promise<CheckWorker> => startPinnedWorker(new URL(checkWorkerUrl, location.href));

/**
 * The hidden-data verdict on `bytes` from a worker of its own: the bytes are transferred
 * (the page's copy is gone after the call), the worker ended when it answers, fails, or
 * passes the time limit; every way but a well-formed answer is `couldNotCheck`.
 */
export async function checkHiddenDataInWorker(bytes: Uint8Array, options: HiddenDataCheckOptions = {}): Promise<HiddenDataVerdict> {
  const { start = startCheckWorker, timeLimitMs = CHECK_TIME_LIMIT_MS } = options;
  let worker: CheckWorker;
  let readVerdict: (answer: unknown) => HiddenDataVerdict;
  try {
    // The parsers' module (pdf-lib, exifr) loads with the first check, not with the case page (handler-spa.md).
    ({ readVerdict } = await import('./openedFileCheck.ts'));
    worker = await start();
  } catch {
    return 'couldNotCheck';
  }
  // A view of part of a buffer is cut out first, so only the file's bytes move.
  const buffer = (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice()).buffer as ArrayBuffer;
  return new Promise<HiddenDataVerdict>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const end = (verdict: HiddenDataVerdict) => {
      clearTimeout(timer);
      worker.onmessage = worker.onerror = worker.onmessageerror = null;
      worker.terminate();
      resolve(verdict);
    };
    worker.onmessage = (e) => end(readVerdict(e.data));
    worker.onerror = () => end('couldNotCheck');
    worker.onmessageerror = () => end('couldNotCheck');
    timer = setTimeout(() => end('couldNotCheck'), timeLimitMs);
    try {
      worker.postMessage({ bytes: buffer }, [buffer]);
    } catch {
      end('couldNotCheck');
    }
  });
}

/** The content of a file does not fit its name (or its type is not one the portal takes). */
export class ContentMismatch extends Error {
  override readonly name = 'ContentMismatch';
}

/**
 * A pass-through that checks the opened bytes as they go by: the head (or, for text,
 * every byte) against the name, erroring the stream at the first misfit; and, for a
 * small image or PDF, a copy for the metadata check that `result()` hands to the
 * worker at the end (`checkHiddenData`; a test passes its own).
 */
export function openingCheck(name: string, size: number | null, checkHiddenData: (bytes: Uint8Array) => Promise<HiddenDataVerdict> = checkHiddenDataInWorker) {
  const ext = fileExtension(name);
  const text = isTextExtension(ext);
  const allowed = Object.hasOwn(ALLOWED_FILE_TYPES, ext);
  const keep = CHECKED.has(ext) && size !== null && size <= METADATA_CHECK_MAX;
  const kept: Uint8Array[] = [];
  let head = new Uint8Array(0);
  let headDone = false;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fits = (bytes: Uint8Array, complete: boolean) => contentMatches(name, bytes, complete);
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(piece, controller) {
      if (!allowed) throw new ContentMismatch(name);
      if (text) {
        if (piece.includes(0)) throw new ContentMismatch(name);
        try {
          decoder.decode(piece, { stream: true });
        } catch {
          throw new ContentMismatch(name);
        }
      } else if (!headDone) {
        head = concat(head, piece.subarray(0, FILE_HEAD_BYTES - head.length));
        if (head.length >= FILE_HEAD_BYTES) {
          if (!fits(head, false)) throw new ContentMismatch(name);
          headDone = true;
        }
      }
      if (keep) kept.push(piece.slice());
      controller.enqueue(piece);
    },
    flush() {
      if (!allowed) throw new ContentMismatch(name);
      if (text) {
        try {
          decoder.decode();
        } catch {
          throw new ContentMismatch(name);
        }
      } else if (!headDone && !fits(head, true)) throw new ContentMismatch(name);
    },
  });
  const result = async (): Promise<FileCheckResult> => {
    if (!keep) return { content: 'fits', metadata: 'notChecked' };
    const bytes = concat(...kept);
    kept.length = 0;
    // Only a format the parsers read starts a worker; the signature is a few bytes' look.
    const { detectFormat } = await import('../../core/metadata/scan.ts');
    if (!detectFormat(bytes)) return { content: 'fits', metadata: 'notChecked' };
    return { content: 'fits', metadata: await checkHiddenData(bytes) };
  };
  return { stream, result };
}

/** A save dialog and a writable, as Chromium's File System Access API gives them. */
type SaveFilePicker = (options: { suggestedName?: string }) => Promise<{ createWritable(): Promise<WritableStream<Uint8Array>> }>;
const picker = (): SaveFilePicker | undefined => (globalThis as { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker;

/** Whether this browser writes a download to disk as it opens (Chromium's File System Access API). */
export function canSaveToDisk(): boolean {
  return typeof picker() === 'function';
}

const numberPath = (n: string) => encodeURIComponent(n.replace(/\D/g, ''));

/** Hands a gathered file to the browser's own download (the in-memory way). */
export function offerDownload(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has taken the object by the next task; the URL must not outlive it.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Opens and saves one file: the place first (the dialog needs the click that asked for
 * it), then the download opened, checked and written chunk by chunk.
 */
export async function saveSealedFile(api: ApiClient, input: FileSaveInput, workerOptions: HiddenDataCheckOptions = {}): Promise<FileSaveAnswer> {
  const { file } = input;
  const name = cleanFileName(file.name) || `${file.id}.bin`;
  let writable: WritableStream<Uint8Array> | null = null;
  if (input.toDisk) {
    try {
      writable = await (await picker()!({ suggestedName: name })).createWritable();
    } catch (err) {
      return { outcome: (err as Error)?.name === 'AbortError' ? 'cancelled' : 'failed' };
    }
  }
  let body: ReadableStream<Uint8Array>;
  try {
    const res = await api.request(`/api/handler/cases/${numberPath(input.caseNumber)}/files/${encodeURIComponent(file.id)}`, { headers: { accept: 'application/octet-stream' } });
    if (!res.body) throw new Error('no body');
    body = res.body;
  } catch (err) {
    await writable?.abort().catch(() => {});
    return { outcome: err instanceof ApiError && err.status === 401 ? 'unauthorized' : 'failed' };
  }
  const check = openingCheck(name, file.size, (bytes) => checkHiddenDataInWorker(bytes, workerOptions));
  const opened = openSealedFile(input.dataKey, { id: file.id, name, size: file.size }, body).pipeThrough(check.stream);
  try {
    if (writable) {
      // pipeTo closes the writable at the end and aborts it (nothing kept) when the stream errors.
      await opened.pipeTo(writable);
    } else {
      const parts: Uint8Array[] = [];
      for await (const piece of opened as unknown as AsyncIterable<Uint8Array>) parts.push(piece);
      offerDownload(new Blob(parts as BlobPart[]), name);
    }
  } catch (err) {
    if (err instanceof ContentMismatch) return { outcome: 'mismatch' };
    if (err instanceof SealedFileError) return { outcome: 'unopened' };
    return { outcome: 'failed' };
  }
  return { outcome: 'saved', check: await check.result() };
}

/**
 * One sealed file opened for the export (docs/decisions/case-export.md "Files"): the
 * download streamed through the same decryption and content check as a save, chunk by
 * chunk, into the export's hash and zip; nothing is held whole. The stream errors with
 * SealedFileError (a chunk that does not open) or ContentMismatch, which
 * `exportFailureOf` names for the PDF.
 */
export async function openSealedFileForExport(api: ApiClient, input: { caseNumber: string; dataKey: Uint8Array; file: { id: string; name: string; size: number | null } }): Promise<ReadableStream<Uint8Array>> {
  const { file } = input;
  const name = cleanFileName(file.name) || `${file.id}.bin`;
  const res = await api.request(`/api/handler/cases/${numberPath(input.caseNumber)}/files/${encodeURIComponent(file.id)}`, { headers: { accept: 'application/octet-stream' } });
  if (!res.body) throw new Error('no body');
  return openSealedFile(input.dataKey, { id: file.id, name, size: file.size }, res.body).pipeThrough(openingCheck(name, file.size).stream);
}

/** How the export names a sealed file that did not open to its end. */
export function exportFailureOf(err: unknown): 'unopened' | 'mismatch' | 'failed' {
  return err instanceof SealedFileError ? 'unopened' : err instanceof ContentMismatch ? 'mismatch' : 'failed';
}
