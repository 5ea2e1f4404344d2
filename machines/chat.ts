/**
 * The chat composer of /private/messages (spec §4 Chat message, §5 Chat, §9).
 *
 * Invariants:
 * - The text never exceeds 200 characters (longer input is cut), and at most five
 *   allowed files are attached, by the shared rules of schema.ts; each file not added
 *   is kept in `rejectedFiles` with why, so the view names it.
 * - A message is sent only when its trimmed text is non-empty or a file is attached;
 *   the trimmed text is what is sent.
 * - Attached files go first as resumable uploads (`uploadFiles`, tus in an upload
 *   session bound to the case: docs/decisions/resumable-uploads.md), with per-file
 *   progress, speed, time left and a "retrying" flag while the connection is lost;
 *   then the message is posted naming the uploads (`postMessage`), which takes them
 *   all or none. A message without files is posted at once.
 * - On success the draft is cleared, the effects forget the finished uploads
 *   (`forgetUploads`) and the case is reloaded (`reloadCase`); the focus goes back to
 *   the text field (`focusComposer`), whatever button sent it. On failure (or a
 *   cancel while uploading) the draft is kept and an error shown, never lost, and sending again
 *   continues the uploads where they stopped. A 401/403 of the reporter's sign-in is
 *   handed to the session (`reportUnauthorized`); one of the upload session (gone
 *   after 24 hours idle, or spent) only makes the next send start a new one.
 * - Too many messages (429, the case's or the connection's budget:
 *   docs/decisions/submission-abuse.md) is `composing.rateLimited`: the draft is kept
 *   like any failure, and the server's Retry-After says how long to wait.
 * - The draft lives only in this actor's memory: never storage, never the URL.
 */
import { assign, fromCallback, setup } from 'xstate';
import { keepAllowedFiles, LIMITS, type RejectedFile } from './schema.ts';

/** The browser's File in the app; any named blob in tests. */
export interface DraftFile {
  name: string;
  size: number;
  type?: string;
}

/** One attached file's upload while sending. */
export interface FileProgress {
  loaded: number;
  total: number;
  /** Speed of the last seconds and the time left at it; null while unknown. */
  bytesPerSecond: number | null;
  secondsLeft: number | null;
  /** The connection was lost; the upload is retrying and will continue where it stopped. */
  retrying: boolean;
}

export interface ChatContext {
  text: string;
  files: DraftFile[];
  /** Per attached file, while sending. */
  progress: FileProgress[];
  /** The upload session and the finished uploads the message will name, once all arrived. */
  uploads: { session: string; ids: string[] } | null;
  /** After a 429: the server's Retry-After, in seconds; null otherwise. */
  retryAfterSeconds: number | null;
  /** The files of the last choice that were not added, each with why (shared rules, schema.ts). */
  rejectedFiles: RejectedFile[];
}

export type ChatEvent =
  | { type: 'text.change'; text: string }
  | { type: 'files.add'; files: DraftFile[] }
  | { type: 'file.remove'; index: number }
  | { type: 'message.send' }
  | { type: 'message.cancel' }
  | { type: 'upload.progress'; index: number; loaded: number; total: number; bytesPerSecond?: number | null; secondsLeft?: number | null; retrying?: boolean }
  /** Every file arrived: the session and the upload ids, in the files' order. */
  | { type: 'upload.finished'; session: string; ids: string[] }
  /** The uploads stopped: the HTTP status (0: no answer), the error code and a 429's Retry-After, if any. */
  | { type: 'upload.failed'; status: number; code?: string; retryAfterSeconds?: number }
  /** The message call answered. */
  | { type: 'post.done'; status: number; code?: string; retryAfterSeconds?: number };

export interface UploadFilesInput {
  files: DraftFile[];
}

export interface PostMessageInput {
  message: string;
  uploads: { session: string; ids: string[] } | null;
}

/** Error codes of an upload session that is gone or spent: the next send opens a new one. */
export const LOST_UPLOAD_SESSION_CODES: readonly string[] = ['UPLOAD_SESSION_INVALID', 'UPLOAD_SESSION_USED', 'UPLOAD_SESSION_FOREIGN', 'UNKNOWN_UPLOAD', 'UPLOAD_NOT_FOUND'];

const hasDraftContent = (c: ChatContext) => c.text.trim().length > 0 || c.files.length > 0;
const outcome = (event: ChatEvent) => (event.type === 'upload.failed' || event.type === 'post.done' ? event : null);

/** A wait the reporter can be told; a minute when the server named none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;

export const chatMachine = setup({
  types: {} as { context: ChatContext; events: ChatEvent },
  actors: {
    /** Sends each file as a resumable upload; reports `upload.progress`, then `upload.finished` or `upload.failed`. */
    uploadFiles: fromCallback<ChatEvent, UploadFilesInput>(({ sendBack }) => {
      sendBack({ type: 'upload.failed', status: 0 });
    }),
    /** Posts the message naming the finished uploads; reports one `post.done`. */
    postMessage: fromCallback<ChatEvent, PostMessageInput>(({ sendBack }) => {
      sendBack({ type: 'post.done', status: 0 });
    }),
  },
  actions: {
    reloadCase: () => {},
    /** The view puts the focus back in the text field: the reporter goes on writing there. */
    focusComposer: () => {},
    reportUnauthorized: () => {},
    /** The effects drop the upload session and addresses they keep for a next try. */
    forgetUploads: () => {},
    assignText: assign({
      text: ({ event }) => (event.type === 'text.change' ? event.text.slice(0, LIMITS.chatMax) : ''),
    }),
    addFiles: assign(({ context, event }) => {
      if (event.type !== 'files.add') return {};
      const kept = keepAllowedFiles(context.files, event.files);
      return { files: kept.files, rejectedFiles: kept.rejected };
    }),
    removeFile: assign({
      files: ({ context, event }) => (event.type === 'file.remove' ? context.files.filter((_, i) => i !== event.index) : context.files),
      rejectedFiles: [],
    }),
    startProgress: assign({
      progress: ({ context }) => context.files.map((f) => ({ loaded: 0, total: f.size, bytesPerSecond: null, secondsLeft: null, retrying: false })),
      uploads: null,
    }),
    assignProgress: assign({
      progress: ({ context, event }) =>
        event.type === 'upload.progress'
          ? context.progress.map((p, i) =>
              i === event.index
                ? { loaded: event.loaded, total: event.total, bytesPerSecond: event.bytesPerSecond ?? null, secondsLeft: event.secondsLeft ?? null, retrying: event.retrying ?? false }
                : p,
            )
          : context.progress,
    }),
    assignUploads: assign({
      uploads: ({ context, event }) => (event.type === 'upload.finished' ? { session: event.session, ids: event.ids } : context.uploads),
    }),
    clearDraft: assign({ text: '', files: [], progress: [], uploads: null, retryAfterSeconds: null, rejectedFiles: [] }),
    resetProgress: assign({ progress: [], uploads: null }),
    assignRetryAfter: assign({
      retryAfterSeconds: ({ event }) => {
        const seconds = outcome(event)?.retryAfterSeconds;
        return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : DEFAULT_RETRY_AFTER_SECONDS;
      },
    }),
    clearRetryAfter: assign({ retryAfterSeconds: null }),
  },
  guards: {
    hasContent: ({ context }) => hasDraftContent(context),
    hasFiles: ({ context }) => context.files.length > 0,
    isSent: ({ event }) => event.type === 'post.done' && event.status >= 200 && event.status < 300,
    /** The upload session is gone or spent (not the reporter's sign-in). */
    hasLostUploadSession: ({ event }) => LOST_UPLOAD_SESSION_CODES.includes(outcome(event)?.code ?? ''),
    isUnauthorized: ({ event }) => {
      const e = outcome(event);
      return !!e && (e.status === 401 || e.status === 403);
    },
    isRateLimited: ({ event }) => outcome(event)?.status === 429,
  },
}).createMachine({
  id: 'chat',
  initial: 'composing',
  context: { text: '', files: [], progress: [], uploads: null, retryAfterSeconds: null, rejectedFiles: [] },
  states: {
    composing: {
      initial: 'editing',
      on: {
        'text.change': { target: '.editing', actions: 'assignText' },
        'files.add': { target: '.editing', actions: 'addFiles' },
        'file.remove': { target: '.editing', actions: 'removeFile' },
        'message.send': { guard: 'hasContent', target: 'sending', actions: 'startProgress' },
      },
      states: {
        editing: {},
        /** The last send failed; the draft is intact and the error is shown. */
        failed: {},
        /** Too many messages (429): the draft is intact, and the reporter is told how long to wait. */
        rateLimited: { exit: 'clearRetryAfter' },
      },
    },
    sending: {
      initial: 'choosing',
      states: {
        choosing: {
          always: [{ guard: 'hasFiles', target: 'uploading' }, { target: 'posting' }],
        },
        /** Each attached file goes as a resumable upload; a lost connection is retried by the effect. */
        uploading: {
          invoke: {
            id: 'uploadFiles',
            src: 'uploadFiles',
            input: ({ context }) => ({ files: context.files }),
          },
          on: {
            // Stops the uploads; what arrived is continued by the next send. The message
            // call itself is not cancelled: once sent, the server may already have it.
            'message.cancel': { target: '#chat.composing.editing', actions: 'resetProgress' },
            'upload.progress': { actions: 'assignProgress' },
            'upload.finished': { target: 'posting', actions: 'assignUploads' },
            'upload.failed': [
              { guard: 'hasLostUploadSession', target: '#chat.composing.failed', actions: ['resetProgress', 'forgetUploads'] },
              { guard: 'isUnauthorized', target: '#chat.composing.failed', actions: ['resetProgress', 'reportUnauthorized'] },
              { guard: 'isRateLimited', target: '#chat.composing.rateLimited', actions: ['resetProgress', 'assignRetryAfter'] },
              { target: '#chat.composing.failed', actions: 'resetProgress' },
            ],
          },
        },
        /** The message, naming the finished uploads: the server takes them in its transaction. */
        posting: {
          invoke: {
            id: 'postMessage',
            src: 'postMessage',
            input: ({ context }) => ({ message: context.text.trim(), uploads: context.uploads }),
          },
          on: {
            'post.done': [
              { guard: 'isSent', target: '#chat.composing.editing', actions: ['clearDraft', 'forgetUploads', 'focusComposer', 'reloadCase'] },
              { guard: 'hasLostUploadSession', target: '#chat.composing.failed', actions: ['resetProgress', 'forgetUploads'] },
              { guard: 'isUnauthorized', target: '#chat.composing.failed', actions: ['resetProgress', 'reportUnauthorized'] },
              { guard: 'isRateLimited', target: '#chat.composing.rateLimited', actions: ['resetProgress', 'assignRetryAfter'] },
              { target: '#chat.composing.failed', actions: 'resetProgress' },
            ],
          },
        },
      },
    },
  },
});
