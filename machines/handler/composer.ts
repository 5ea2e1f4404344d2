/**
 * The handler's message composer (issue 14): STANDARD, CONFIRMATION or FEEDBACK,
 * answer wanted or not, text up to 5000 characters and files.
 *
 * Invariants:
 * - `sending` only with text or at least one file, and text within the limit.
 * - A failed send keeps the whole draft; a sent one clears it and asks the case to reload.
 * - While sending, the upload's progress (bytes sent of total) is in the context, as in
 *   the reporter's chat (machines/chat.ts).
 * - The draft kept on this device (machines/handler/draft.ts): every change is noted
 *   (`noteDraft`), Send seals it at once (`flushDraft`), a sent message drops it
 *   (`dropDraft`); a kept draft comes back by `draft.restore` into `editing.restored`,
 *   which says so. Files are not kept.
 */
import { assign, fromCallback, setup } from 'xstate';
import type { MessageType } from '../schema.ts';

export const HANDLER_MESSAGE_MAX = 5000;
export const HANDLER_FILES_MAX = 5;

export interface ComposerContext {
  text: string;
  type: MessageType;
  answerWanted: boolean;
  files: File[];
  loaded: number;
  total: number;
}

export type ComposerEvent =
  | { type: 'text.change'; value: string }
  | { type: 'type.change'; value: MessageType }
  | { type: 'answer.toggle' }
  | { type: 'files.add'; files: File[] }
  | { type: 'file.remove'; index: number }
  | { type: 'send' }
  | { type: 'upload.progress'; loaded: number; total: number }
  | { type: 'upload.done'; status: number }
  /** A draft kept on this device from an earlier sitting (files are not kept). */
  | { type: 'draft.restore'; text: string; messageType: MessageType; answerWanted: boolean };

export type ComposerDraft = Pick<ComposerContext, 'text' | 'type' | 'answerWanted' | 'files'>;
const noted = ({ context }: { context: ComposerContext }) => ({ text: context.text, type: context.type, answerWanted: context.answerWanted });
const status = (event: ComposerEvent) => (event.type === 'upload.done' ? event.status : 0);

export const composerMachine = setup({
  types: {} as { context: ComposerContext; events: ComposerEvent },
  actors: {
    /** Posts the multipart message; reports `upload.progress`, then one `upload.done`. */
    sendMessage: fromCallback<ComposerEvent, ComposerDraft>(({ sendBack }) => {
      sendBack({ type: 'upload.done', status: 0 });
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    noteDraft: (_, _draft: { text: string; type: MessageType; answerWanted: boolean }) => {},
    flushDraft: () => {},
    dropDraft: () => {},
    assignRestored: assign(({ event, context }) => (event.type === 'draft.restore' ? { text: event.text, type: event.messageType, answerWanted: event.answerWanted } : context)),
    assignText: assign({ text: ({ event, context }) => (event.type === 'text.change' ? event.value : context.text) }),
    assignType: assign({ type: ({ event, context }) => (event.type === 'type.change' ? event.value : context.type) }),
    toggleAnswer: assign({ answerWanted: ({ context }) => !context.answerWanted }),
    addFiles: assign({ files: ({ event, context }) => (event.type === 'files.add' ? [...context.files, ...event.files].slice(0, HANDLER_FILES_MAX) : context.files) }),
    removeFile: assign({ files: ({ event, context }) => (event.type === 'file.remove' ? context.files.filter((_f, i) => i !== event.index) : context.files) }),
    clearDraft: assign({ text: '', type: 'STANDARD' as MessageType, answerWanted: false, files: [], loaded: 0, total: 0 }),
    assignProgress: assign({
      loaded: ({ event, context }) => (event.type === 'upload.progress' ? event.loaded : context.loaded),
      total: ({ event, context }) => (event.type === 'upload.progress' ? event.total : context.total),
    }),
    resetProgress: assign({ loaded: 0, total: 0 }),
  },
  guards: {
    hasContent: ({ context }) => (context.text.trim() !== '' || context.files.length > 0) && context.text.length <= HANDLER_MESSAGE_MAX,
    isOk: ({ event }) => status(event) === 201,
    isUnauthorizedAnswer: ({ event }) => status(event) === 401,
  },
}).createMachine({
  id: 'composer',
  initial: 'editing',
  context: { text: '', type: 'STANDARD', answerWanted: false, files: [], loaded: 0, total: 0 },
  states: {
    editing: {
      initial: 'ready',
      on: {
        'text.change': { target: '.ready', actions: ['assignText', { type: 'noteDraft', params: noted }] },
        'type.change': { actions: ['assignType', { type: 'noteDraft', params: noted }] },
        'answer.toggle': { actions: ['toggleAnswer', { type: 'noteDraft', params: noted }] },
        'files.add': { target: '.ready', actions: 'addFiles' },
        'file.remove': { actions: 'removeFile' },
        send: [{ guard: 'hasContent', target: 'sending', actions: 'flushDraft' }, { target: '.empty' }],
        'draft.restore': { target: '.restored', actions: 'assignRestored' },
      },
      states: {
        ready: {},
        empty: {},
        sent: {},
        failed: {},
        /** The text is a draft kept on this device from an earlier sitting. */
        restored: {},
      },
    },
    sending: {
      invoke: {
        id: 'sendMessage',
        src: 'sendMessage',
        input: ({ context }) => ({ text: context.text, type: context.type, answerWanted: context.answerWanted, files: context.files }),
      },
      on: {
        'upload.progress': { actions: 'assignProgress' },
        'upload.done': [
          { guard: 'isOk', target: 'editing.sent', actions: ['clearDraft', 'dropDraft', 'reloadCase'] },
          { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: ['resetProgress', 'reportUnauthorized'] },
          { target: 'editing.failed', actions: 'resetProgress' },
        ],
      },
    },
  },
});
