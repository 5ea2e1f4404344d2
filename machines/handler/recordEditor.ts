/**
 * The record of a phone or meeting report (issue 14, issue 38; docs/decisions/record-versions.md):
 * the handler writes or edits it; saving sends a new version to the reporter for review.
 * After an approval the record stays editable: saving makes a new version that awaits
 * approval again (the approved one keeps its approval and its download).
 *
 * Invariants:
 * - Offered for PHONE and MEETING cases; an online report is `locked`.
 * - `saving` only with non-blank text within 20 000 characters, and always names the
 *   version the text was written on (`base`): the version seen when editing began, or
 *   the other writer's version the handler chose to build on. A failed save keeps the draft.
 * - A save refused because someone else saved since (`conflict`) loses nothing: the
 *   handler's text stays in `draft` while their version is read (`conflict.loading`) and
 *   both are shown (`conflict.choosing`); editing from theirs keeps the handler's text
 *   in `mine`, beside the editor, until a save or a cancel; saving mine puts it on top of theirs.
 * - Editing from their version is offered only when its text opened here (`hasTheirText`).
 * - The draft kept on this device (machines/handler/draft.ts): typing is noted
 *   (`noteDraft`), Save seals it at once (`flushDraft`), a save or Cancel drops it
 *   (`dropDraft`); a kept draft reopens the editor by `draft.restore` (`editing.restored`)
 *   with the version it was written on (the latest this page knows for a draft that
 *   names none). A conflict keeps it: it is the handler's text until a save lands.
 * - The same chart edits the transcript of a voice message (`transcript`, issue 40;
 *   docs/decisions/voice-messages.md "Transcript"): editable on any channel, with the
 *   record's version rules; its page keeps no draft (the actions stay the defaults).
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { SubmissionType } from '../schema.ts';

export const RECORD_MAX = 20_000;

export interface RecordInput {
  submissionType: SubmissionType;
  approvedAt: string | null;
  text: string;
  /** The latest version's number (0: none yet). */
  version: number;
  /** The subject is the transcript of a voice file: editable whatever the case's channel. */
  transcript?: boolean;
}

/** The version someone else saved, as this page read it (`text` null: it did not open here). */
export interface TheirVersion {
  version: number;
  text: string | null;
  author: string | null;
  createdAt: string;
}

export interface RecordContext extends RecordInput {
  draft: string;
  /** The version the draft was written on. */
  base: number;
  theirs: TheirVersion | null;
  /** The handler's own text, kept while she edits from theirs. */
  mine: string | null;
}

/** A save's answer; a conflict is 409 with `code` RECORD_VERSION_CONFLICT. */
export interface SaveAnswer {
  status: number;
  code?: string;
}

export interface LatestAnswer {
  status: number;
  latest?: TheirVersion;
}

export type RecordEvent =
  | { type: 'edit.open' }
  | { type: 'draft.change'; value: string }
  | { type: 'edit.save' }
  | { type: 'edit.cancel' }
  | { type: 'conflict.editTheirs' }
  | { type: 'conflict.saveMine' }
  | { type: 'case.change'; submissionType: SubmissionType; approvedAt: string | null; text: string; version: number }
  /** A draft of the record kept on this device from an earlier sitting. */
  | { type: 'draft.restore'; value: string; base?: number };

export const CONFLICT_CODE = 'RECORD_VERSION_CONFLICT';

const output = <T>(event: unknown) => (event as DoneActorEvent<T>).output;
const editable = (context: { transcript?: boolean }, submissionType: SubmissionType) => context.transcript === true || submissionType !== 'ONLINE_FORM';

export const recordEditorMachine = setup({
  types: {} as { context: RecordContext; events: RecordEvent; input: RecordInput },
  actors: {
    saveRecord: fromPromise<SaveAnswer, { text: string; baseVersion: number }>(async () => {
      throw new Error('saveRecord not provided');
    }),
    /** Reads the record again and answers its latest version (on a sealed case opened with the case's keys). */
    loadLatest: fromPromise<LatestAnswer, void>(async () => {
      throw new Error('loadLatest not provided');
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    /** `base` kept with the text, so a draft restored later still names the version it was written on. */
    noteDraft: (_, _draft: { text: string; base: string }) => {},
    flushDraft: () => {},
    dropDraft: () => {},
    assignRestored: assign(({ event, context }) => (event.type === 'draft.restore' ? { draft: event.value, base: event.base ?? context.version, theirs: null, mine: null } : {})),
    startDraft: assign(({ context }) => ({ draft: context.text, base: context.version, theirs: null, mine: null })),
    assignDraft: assign({ draft: ({ event, context }) => (event.type === 'draft.change' ? event.value : context.draft) }),
    assignCase: assign(({ event, context }) =>
      event.type === 'case.change' ? { submissionType: event.submissionType, approvedAt: event.approvedAt, text: event.text, version: event.version } : context,
    ),
    keepSaved: assign(({ context }) => ({ text: context.draft.trim(), theirs: null, mine: null })),
    forgetMine: assign({ theirs: null, mine: null }),
    assignTheirs: assign({ theirs: ({ event }) => output<LatestAnswer>(event).latest ?? null }),
    editFromTheirs: assign(({ context }) => ({ mine: context.draft, draft: context.theirs?.text ?? context.draft, base: context.theirs?.version ?? context.base, theirs: null })),
    buildOnTheirs: assign(({ context }) => ({ base: context.theirs?.version ?? context.base })),
  },
  guards: {
    isEditable: ({ context }) => editable(context, context.submissionType),
    changesEditability: ({ context, event }) => event.type === 'case.change' && editable(context, context.submissionType) !== editable(context, event.submissionType),
    hasText: ({ context }) => context.draft.trim() !== '' && context.draft.length <= RECORD_MAX,
    hasTheirText: ({ context }) => typeof context.theirs?.text === 'string',
    isOk: ({ event }) => output<SaveAnswer>(event).status === 200,
    isConflict: ({ event }) => output<SaveAnswer>(event).status === 409 && output<SaveAnswer>(event).code === CONFLICT_CODE,
    isUnauthorizedAnswer: ({ event }) => output<SaveAnswer>(event).status === 401,
    hasLatest: ({ event }) => output<LatestAnswer>(event).status === 200 && output<LatestAnswer>(event).latest !== undefined,
  },
}).createMachine({
  id: 'recordEditor',
  initial: 'deciding',
  context: ({ input }) => ({ ...input, draft: '', base: input.version, theirs: null, mine: null }),
  on: {
    // A reload that changes only the text keeps the state (and its "saved" note, and a draft being written).
    'case.change': [{ guard: 'changesEditability', target: '.deciding', actions: 'assignCase' }, { actions: 'assignCase' }],
  },
  states: {
    deciding: { always: [{ guard: 'isEditable', target: 'viewing' }, { target: 'locked' }] },
    /** An online report: nothing to record. */
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
        'draft.change': { target: '.ready', actions: ['assignDraft', { type: 'noteDraft', params: ({ context }) => ({ text: context.draft, base: String(context.base) }) }] },
        'edit.save': [{ guard: 'hasText', target: 'saving', actions: 'flushDraft' }, { target: '.empty' }],
        'edit.cancel': { target: 'viewing', actions: ['forgetMine', 'dropDraft'] },
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
        input: ({ context }) => ({ text: context.draft.trim(), baseVersion: context.base }),
        onDone: [
          { guard: 'isOk', target: 'viewing.saved', actions: ['keepSaved', 'dropDraft', 'reloadCase'] },
          { guard: 'isConflict', target: 'conflict' },
          { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: 'reportUnauthorized' },
          { target: 'editing.failed' },
        ],
        onError: 'editing.failed',
      },
    },
    /** Someone saved since this draft was begun: their version beside the draft, and a choice. */
    conflict: {
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            id: 'loadLatest',
            src: 'loadLatest',
            onDone: [
              // No reload of the page here: a sealed case's page opens the case again on a reload and would drop this chart with the draft.
              { guard: 'hasLatest', target: 'choosing', actions: 'assignTheirs' },
              { guard: 'isUnauthorizedAnswer', target: '#recordEditor.editing.failed', actions: 'reportUnauthorized' },
              { target: '#recordEditor.editing.failed' },
            ],
            onError: '#recordEditor.editing.failed',
          },
        },
        choosing: {
          on: {
            'conflict.editTheirs': { guard: 'hasTheirText', target: '#recordEditor.editing', actions: 'editFromTheirs' },
            'conflict.saveMine': { target: '#recordEditor.saving', actions: 'buildOnTheirs' },
          },
        },
      },
    },
  },
});
