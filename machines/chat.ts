/**
 * The chat composer of /private/messages (spec §4 Chat message, §5 Chat, §9).
 *
 * Invariants:
 * - The text never exceeds 200 characters (longer input is cut), and at most five
 *   allowed files are attached (extras ignored), by the shared rules of schema.ts.
 * - A message is sent only when its trimmed text is non-empty or a file is attached;
 *   the trimmed text is what is sent.
 * - While sending, upload progress is tracked; on success the draft is cleared and
 *   the case is reloaded (action `reloadCase`); the focus goes back to the text
 *   field (`focusComposer`), whatever button sent it. On failure the draft is kept and an
 *   error shown, never lost. A 401/403 is handed to the session (`reportUnauthorized`).
 * - The draft lives only in this actor's memory: never storage, never the URL.
 */
import { assign, fromCallback, setup } from 'xstate';
import { keepAllowedFiles, LIMITS } from './schema.ts';

/** The browser's File in the app; any named blob in tests. */
export interface DraftFile {
  name: string;
  size: number;
  type?: string;
}

export interface ChatContext {
  text: string;
  files: DraftFile[];
  /** Bytes uploaded and total, while sending. */
  loaded: number;
  total: number;
}

export type ChatEvent =
  | { type: 'text.change'; text: string }
  | { type: 'files.add'; files: DraftFile[] }
  | { type: 'file.remove'; index: number }
  | { type: 'message.send' }
  | { type: 'message.cancel' }
  | { type: 'upload.progress'; loaded: number; total: number }
  | { type: 'upload.done'; status: number };

export interface UploadInput {
  message: string;
  files: DraftFile[];
}

const hasDraftContent = (c: ChatContext) => c.text.trim().length > 0 || c.files.length > 0;

export const chatMachine = setup({
  types: {} as { context: ChatContext; events: ChatEvent },
  actors: {
    /** Posts the multipart message; reports `upload.progress` then one `upload.done`. */
    uploadMessage: fromCallback<ChatEvent, UploadInput>(({ sendBack }) => {
      sendBack({ type: 'upload.done', status: 0 });
    }),
  },
  actions: {
    reloadCase: () => {},
    /** The view puts the focus back in the text field: the reporter goes on writing there. */
    focusComposer: () => {},
    reportUnauthorized: () => {},
    assignText: assign({
      text: ({ event }) => (event.type === 'text.change' ? event.text.slice(0, LIMITS.chatMax) : ''),
    }),
    addFiles: assign({
      files: ({ context, event }) => (event.type === 'files.add' ? keepAllowedFiles(context.files, event.files).files : context.files),
    }),
    removeFile: assign({
      files: ({ context, event }) => (event.type === 'file.remove' ? context.files.filter((_, i) => i !== event.index) : context.files),
    }),
    assignProgress: assign({
      loaded: ({ event, context }) => (event.type === 'upload.progress' ? event.loaded : context.loaded),
      total: ({ event, context }) => (event.type === 'upload.progress' ? event.total : context.total),
    }),
    clearDraft: assign({ text: '', files: [], loaded: 0, total: 0 }),
    resetProgress: assign({ loaded: 0, total: 0 }),
  },
  guards: {
    hasContent: ({ context }) => hasDraftContent(context),
    isSent: ({ event }) => event.type === 'upload.done' && event.status >= 200 && event.status < 300,
    isUnauthorized: ({ event }) => event.type === 'upload.done' && (event.status === 401 || event.status === 403),
  },
}).createMachine({
  id: 'chat',
  initial: 'composing',
  context: { text: '', files: [], loaded: 0, total: 0 },
  states: {
    composing: {
      initial: 'editing',
      on: {
        'text.change': { target: '.editing', actions: 'assignText' },
        'files.add': { target: '.editing', actions: 'addFiles' },
        'file.remove': { target: '.editing', actions: 'removeFile' },
        'message.send': { guard: 'hasContent', target: 'sending' },
      },
      states: {
        editing: {},
        /** The last send failed; the draft is intact and the error is shown. */
        failed: {},
      },
    },
    sending: {
      invoke: {
        id: 'uploadMessage',
        src: 'uploadMessage',
        input: ({ context }) => ({ message: context.text.trim(), files: context.files }),
      },
      on: {
        'upload.progress': { actions: 'assignProgress' },
        'upload.done': [
          { guard: 'isSent', target: 'composing.editing', actions: ['clearDraft', 'focusComposer', 'reloadCase'] },
          { guard: 'isUnauthorized', target: 'composing.failed', actions: ['resetProgress', 'reportUnauthorized'] },
          { target: 'composing.failed', actions: 'resetProgress' },
        ],
        'message.cancel': { target: 'composing.editing', actions: 'resetProgress' },
      },
    },
  },
});
