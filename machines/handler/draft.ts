/**
 * One editor's draft kept on this device (issue 38 Build 5; docs/decisions/handler-drafts.md):
 * the message composer's or the record editor's unsent text, sealed to the handler's own
 * public key and kept in the browser's IndexedDB by the effects the view provides
 * (`openDraft`, `keepDraft`, `dropDraft`), so it survives a reload, the idle sign-out and
 * a session the server ended.
 *
 * Invariants:
 * - Nothing is opened or sealed without the handler's opened keys (`keys` in the context,
 *   forwarded from the session chart): while they are locked (after a reload) what is typed
 *   stays in memory and is sealed once they open.
 * - A stored draft is offered to the editor (`restoreDraft`) only when nothing was typed in
 *   this sitting: what the handler types now is never overwritten by an older draft.
 * - Typing is sealed after a short pause (`draftPause`, a chart delay), at once on
 *   `draft.flush` (Send or Save pressed), and never in parallel: a change while sealing is
 *   sealed right after.
 * - `draft.drop` (sent, saved, cancelled) deletes it whatever the keys; an unreadable draft
 *   (altered, or sealed to a former key) is dropped by `openDraft` and never shown.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { DraftFields, DraftKind } from '../../core/crypto/draft.ts';

export const DRAFT_PAUSE_MS = 400;

/** The handler's opened ECDH key: the private half (non-extractable) and the public SPKI. */
export interface DraftKeys {
  privateKey: CryptoKey;
  publicKey: Uint8Array;
}

export interface DraftInput {
  handlerId: string;
  kind: DraftKind;
  caseNumber: string;
}

export interface DraftContext extends DraftInput {
  keys: DraftKeys | null;
  /** What was typed in this sitting, not yet known to be sealed; null: nothing typed. */
  value: DraftFields | null;
  /** Typed again while a seal or a deletion ran. */
  dirty: boolean;
}

export type DraftEvent =
  | { type: 'keys.change'; keys: DraftKeys | null }
  | { type: 'draft.change'; value: DraftFields }
  | { type: 'draft.flush' }
  | { type: 'draft.drop' };

export interface DraftEffectInput extends DraftInput {
  keys: DraftKeys | null;
  value: DraftFields | null;
}

const opened = (event: unknown) => (event as DoneActorEvent<DraftFields | null>).output;

export const draftMachine = setup({
  types: {} as { context: DraftContext; events: DraftEvent; input: DraftInput },
  actors: {
    /** The stored draft opened with the keys; null when there is none (an unreadable one is deleted and null). */
    openDraft: fromPromise<DraftFields | null, DraftEffectInput>(async () => {
      throw new Error('openDraft not provided');
    }),
    keepDraft: fromPromise<void, DraftEffectInput>(async () => {
      throw new Error('keepDraft not provided');
    }),
    dropDraft: fromPromise<void, DraftEffectInput>(async () => {
      throw new Error('dropDraft not provided');
    }),
  },
  delays: { draftPause: DRAFT_PAUSE_MS },
  actions: {
    /** Hands the opened draft to the editor (the view sends it `draft.restore`). */
    restoreDraft: (_, _fields: DraftFields) => {},
    assignKeys: assign({ keys: ({ event, context }) => (event.type === 'keys.change' ? event.keys : context.keys) }),
    assignValue: assign({ value: ({ event, context }) => (event.type === 'draft.change' ? event.value : context.value) }),
    markDirty: assign({ dirty: true }),
    clearDirty: assign({ dirty: false }),
    forgetValue: assign({ value: null, dirty: false }),
  },
  guards: {
    hasKeys: ({ context }) => context.keys !== null,
    isKeysGiven: ({ event }) => event.type === 'keys.change' && event.keys !== null,
    isKeysTaken: ({ event }) => event.type === 'keys.change' && event.keys === null,
    isRestorable: ({ context, event }) => context.value === null && opened(event) !== null,
    hasValue: ({ context }) => context.value !== null,
    isDirty: ({ context }) => context.dirty,
  },
}).createMachine({
  id: 'draft',
  initial: 'choosing',
  context: ({ input }) => ({ ...input, keys: null, value: null, dirty: false }),
  states: {
    choosing: { always: [{ guard: 'hasKeys', target: 'opening' }, { target: 'locked' }] },
    /** The handler's keys are not open: typing is remembered here and sealed once they are. */
    locked: {
      on: {
        'keys.change': [{ guard: 'isKeysGiven', target: 'opening', actions: 'assignKeys' }, { actions: 'assignKeys' }],
        'draft.change': { actions: 'assignValue' },
        'draft.drop': { target: 'dropping', actions: 'forgetValue' },
      },
    },
    opening: {
      invoke: {
        id: 'openDraft',
        src: 'openDraft',
        input: ({ context }) => ({ handlerId: context.handlerId, kind: context.kind, caseNumber: context.caseNumber, keys: context.keys, value: null }),
        onDone: [
          { guard: 'isRestorable', target: 'ready.restored', actions: { type: 'restoreDraft', params: ({ event }) => opened(event)! } },
          { guard: 'hasValue', target: 'pausing' },
          { target: 'ready' },
        ],
        onError: [{ guard: 'hasValue', target: 'pausing' }, { target: 'ready.unreadable' }],
      },
      on: {
        'draft.change': { actions: 'assignValue' },
        'draft.drop': { target: 'dropping', actions: 'forgetValue' },
        'keys.change': { guard: 'isKeysTaken', target: 'locked', actions: 'assignKeys' },
      },
    },
    ready: {
      initial: 'idle',
      on: {
        'draft.change': { target: 'pausing', actions: 'assignValue' },
        'draft.drop': { target: 'dropping', actions: 'forgetValue' },
        'keys.change': { guard: 'isKeysTaken', target: 'locked', actions: 'assignKeys' },
      },
      states: {
        idle: {},
        /** A draft from an earlier sitting was handed to the editor. */
        restored: {},
        /** The latest text is sealed on this device. */
        kept: {},
        /** The stored draft did not open (altered, or sealed to a former key) and was dropped. */
        unreadable: {},
        /** The browser's store refused the write (full, or private browsing). */
        failed: {},
      },
    },
    pausing: {
      after: { draftPause: 'keeping' },
      on: {
        'draft.change': { target: 'pausing', reenter: true, actions: 'assignValue' },
        'draft.flush': 'keeping',
        'draft.drop': { target: 'dropping', actions: 'forgetValue' },
        'keys.change': { guard: 'isKeysTaken', target: 'locked', actions: 'assignKeys' },
      },
    },
    keeping: {
      entry: 'clearDirty',
      invoke: {
        id: 'keepDraft',
        src: 'keepDraft',
        input: ({ context }) => ({ handlerId: context.handlerId, kind: context.kind, caseNumber: context.caseNumber, keys: context.keys, value: context.value }),
        onDone: [{ guard: 'isDirty', target: 'pausing' }, { target: 'ready.kept' }],
        onError: 'ready.failed',
      },
      // The seal runs to its end once started, even if the keys go meanwhile (a sign-out):
      // it needs only the public key it was given.
      on: {
        'draft.change': { actions: ['assignValue', 'markDirty'] },
        'draft.drop': { target: 'dropping', actions: 'forgetValue' },
      },
    },
    dropping: {
      invoke: {
        id: 'dropDraft',
        src: 'dropDraft',
        input: ({ context }) => ({ handlerId: context.handlerId, kind: context.kind, caseNumber: context.caseNumber, keys: context.keys, value: null }),
        // Back through the choice: typed meanwhile, the new text is sealed; else nothing is left to open.
        onDone: 'choosing',
        onError: 'choosing',
      },
      on: { 'draft.change': { actions: 'assignValue' } },
    },
  },
});
