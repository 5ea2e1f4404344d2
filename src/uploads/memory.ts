/**
 * The small part of the resumable uploads (./resumable.ts) a form or composer needs
 * from its first screen: the addresses, and the memory one failed send leaves for the
 * next. The upload client itself (tus-js-client, ≈ 15 kB) is loaded by
 * `loadResumable`, after the first screen and before any send can need it, so it is
 * not among the scripts the first paint waits for (docs/decisions/performance.md).
 */
export { CASE_UPLOAD_SESSIONS_PATH, UPLOADS_PATH, UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';

/**
 * What one failed send leaves for its next try, so sending again after the retries
 * ran out (a phone asleep for long) continues instead of starting over: the session
 * and each file's upload address. In memory only, one per form or composer.
 */
export interface UploadMemory {
  session: string | null;
  urls: Map<object, string>;
  done: Set<object>;
}

export const newUploadMemory = (): UploadMemory => ({ session: null, urls: new Map(), done: new Set() });

/** After a case was made (or its session can make none): the next send starts afresh. */
export function forgetUploads(memory: UploadMemory | undefined): void {
  if (!memory) return;
  memory.session = null;
  memory.urls.clear();
  memory.done.clear();
}

let loading: Promise<typeof import('./resumable.ts')> | undefined;
/** The upload client, loaded once; a failed chunk load may be retried. */
export function loadResumable(): Promise<typeof import('./resumable.ts')> {
  loading ??= import('./resumable.ts').catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
