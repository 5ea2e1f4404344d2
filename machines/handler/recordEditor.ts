/**
 * The record of a phone or meeting report (issue 14; docs/decisions/oral-report-record.md):
 * the handler writes or edits it; saving sends it to the reporter for review; once the
 * reporter approves, it is locked on both sides.
 *
 * Invariants:
 * - Offered only for PHONE and MEETING cases not yet approved; otherwise `locked`.
 * - `saving` only with non-blank text within 20 000 characters; a failed save keeps the draft.
 * - The draft kept on this device (machines/handler/draft.ts): typing is noted
 *   (`noteDraft`), Save seals it at once (`flushDraft`), a save or Cancel drops it
 *   (`dropDraft`); a kept draft reopens the editor by `draft.restore` (`editing.restored`).
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { SubmissionType } from '../schema.ts';

export const RECORD_MAX = 20_000;

export interface RecordInput {
  submissionType: SubmissionType;
  approvedAt: string | null;
  text: string;
}

export interface RecordContext extends RecordInput {
  draft: string;
}

export type RecordEvent =
  | { type: 'edit.open' }
  | { type: 'draft.change'; value: string }
  | { type: 'edit.save' }
  | { type: 'edit.cancel' }
  | { type: 'case.change'; submissionType: SubmissionType; approvedAt: string | null; text: string }
  /** A draft of the record kept on this device from an earlier sitting. */
  | { type: 'draft.restore'; value: string };

const status = (event: unknown) => (event as DoneActorEvent<{ status: number }>).output.status;

export const recordEditorMachine = setup({
  types: {} as { context: RecordContext; events: RecordEvent; input: RecordInput },
  actors: {
    saveRecord: fromPromise<{ status: number }, { text: string }>(async () => {
      throw new Error('saveRecord not provided');
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    noteDraft: (_, _draft: { text: string }) => {},
    flushDraft: () => {},
    dropDraft: () => {},
    assignRestored: assign({ draft: ({ event, context }) => (event.type === 'draft.restore' ? event.value : context.draft) }),
    startDraft: assign({ draft: ({ context }) => context.text }),
    assignDraft: assign({ draft: ({ event, context }) => (event.type === 'draft.change' ? event.value : context.draft) }),
    assignCase: assign(({ event, context }) => (event.type === 'case.change' ? { submissionType: event.submissionType, approvedAt: event.approvedAt, text: event.text } : context)),
    keepSaved: assign({ text: ({ context }) => context.draft.trim() }),
  },
  guards: {
    isEditable: ({ context }) => context.submissionType !== 'ONLINE_FORM' && !context.approvedAt,
    changesEditability: ({ context, event }) =>
      event.type === 'case.change' && (context.submissionType !== 'ONLINE_FORM' && !context.approvedAt) !== (event.submissionType !== 'ONLINE_FORM' && !event.approvedAt),
    hasText: ({ context }) => context.draft.trim() !== '' && context.draft.length <= RECORD_MAX,
    isOk: ({ event }) => status(event) === 200,
    isUnauthorizedAnswer: ({ event }) => status(event) === 401,
  },
}).createMachine({
  id: 'recordEditor',
  initial: 'deciding',
  context: ({ input }) => ({ ...input, draft: '' }),
  on: {
    // A reload that changes only the text keeps the state (and its "saved" note).
    'case.change': [{ guard: 'changesEditability', target: '.deciding', actions: 'assignCase' }, { actions: 'assignCase' }],
  },
  states: {
    deciding: { always: [{ guard: 'isEditable', target: 'viewing' }, { target: 'locked' }] },
    /** An online report, or a record the reporter approved. */
    locked: {},
    viewing: {
      initial: 'idle',
      on: {
        'edit.open': { target: 'editing', actions: 'startDraft' },
        'draft.restore': { target: 'editing.restored', actions: 'assignRestored' },
      },
      states: { idle: {}, saved: {} },
    },
    editing: {
      initial: 'ready',
      on: {
        'draft.change': { target: '.ready', actions: ['assignDraft', { type: 'noteDraft', params: ({ context }) => ({ text: context.draft }) }] },
        'edit.save': [{ guard: 'hasText', target: 'saving', actions: 'flushDraft' }, { target: '.empty' }],
        'edit.cancel': { target: 'viewing', actions: 'dropDraft' },
      },
      states: {
        ready: {},
        empty: {},
        failed: {},
        /** The text is a draft kept on this device from an earlier sitting. */
        restored: {},
      },
    },
    saving: {
      invoke: {
        id: 'saveRecord',
        src: 'saveRecord',
        input: ({ context }) => ({ text: context.draft.trim() }),
        onDone: [
          { guard: 'isOk', target: 'viewing.saved', actions: ['keepSaved', 'dropDraft', 'reloadCase'] },
          { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: 'reportUnauthorized' },
          { target: 'editing.failed' },
        ],
        onError: 'editing.failed',
      },
    },
  },
});
