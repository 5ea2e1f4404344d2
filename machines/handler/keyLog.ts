/**
 * The key log as a handler's workspace shows it (docs/decisions/blind-server.md, "Key
 * authenticity"): the browser fetches the company's log, checks it itself against the
 * trust anchor (and against the anchor fingerprint and log head it remembered), and
 * shows whether the handler's own key is certified. A handler whose key is certified
 * certifies a colleague's pending key after comparing its fingerprint with the
 * colleague (a confirmation); the first handler of a company without a recovery key
 * makes it here, and its private half is shown once to print.
 *
 * Invariants:
 * - `ready` only for a log that verified in this browser; a log that does not (a
 *   broken chain, a fork from the remembered head, another anchor) ends in `refused`
 *   with its reason and offers nothing to sign.
 * - `certifying` is entered only from the confirmation, for a colleague the verified
 *   log lists as pending, and only when this handler's own key is certified.
 * - The recovery key's private half lives only in `showingRecoveryKey` (context
 *   `recoveryKey`), cleared when the handler says it is printed.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';

export interface PendingColleague {
  id: string;
  name: string;
  email: string | null;
  fingerprint: string;
}

/** A key the log still lists as active whose account is disabled, or no longer holds it (removed or reset). */
export interface ClosedKey {
  handlerId: string;
  /** Null when the account is gone. */
  name: string | null;
  fingerprint: string;
  why: 'disabled' | 'gone';
}

export interface KeyLogView {
  /** Null while the company has no recovery key. */
  anchorFingerprint: string | null;
  headSeq: number;
  mine: { fingerprint: string; certified: boolean };
  pending: PendingColleague[];
  /** Not live recipients, though still in the log until a certifier signs their remove entries. */
  closed: ClosedKey[];
}

export type KeyLogAnswer = { status: 'ok'; view: KeyLogView } | { status: 'refused'; reason: string };

export interface KeyLogContext {
  view: KeyLogView | null;
  reason: string;
  recoveryKey: string;
  chosen: PendingColleague | null;
}

export type KeyLogEvent =
  | { type: 'anchor.make' }
  | { type: 'anchor.printed' }
  | { type: 'certify'; handlerId: string }
  | { type: 'certify.confirm' }
  | { type: 'certify.cancel' }
  | { type: 'retry' };

const loaded = (event: unknown) => (event as DoneActorEvent<KeyLogAnswer>).output;
const made = (event: unknown) => (event as DoneActorEvent<{ status: number; recoveryKey?: string }>).output;
const certified = (event: unknown) => (event as DoneActorEvent<{ status: number }>).output;

export const keyLogMachine = setup({
  types: {} as { context: KeyLogContext; events: KeyLogEvent },
  actors: {
    loadKeyLog: fromPromise<KeyLogAnswer, void>(async () => {
      throw new Error('loadKeyLog not provided');
    }),
    makeAnchor: fromPromise<{ status: number; recoveryKey?: string }, void>(async () => {
      throw new Error('makeAnchor not provided');
    }),
    certifyColleague: fromPromise<{ status: number }, { handlerId: string }>(async () => {
      throw new Error('certifyColleague not provided');
    }),
  },
  actions: {
    assignView: assign({ view: ({ event }) => { const a = loaded(event); return a.status === 'ok' ? a.view : null; } }),
    assignReason: assign({ reason: ({ event }) => { const a = loaded(event); return a.status === 'refused' ? a.reason : ''; }, view: null }),
    assignRecoveryKey: assign({ recoveryKey: ({ event }) => made(event).recoveryKey ?? '' }),
    forgetRecoveryKey: assign({ recoveryKey: '' }),
    choose: assign({ chosen: ({ event, context }) => (event.type === 'certify' ? (context.view?.pending.find((p) => p.id === event.handlerId) ?? null) : null) }),
    forgetChosen: assign({ chosen: null }),
  },
  guards: {
    isRefused: ({ event }) => loaded(event).status === 'refused',
    hasNoAnchor: ({ event }) => { const a = loaded(event); return a.status === 'ok' && a.view.anchorFingerprint === null; },
    isAnchorMade: ({ event }) => made(event).status === 201 && !!made(event).recoveryKey,
    isCertified: ({ event }) => certified(event).status === 201,
    canCertify: ({ context, event }) => event.type === 'certify' && !!context.view?.mine.certified && !!context.view.pending.some((p) => p.id === event.handlerId),
  },
}).createMachine({
  id: 'keyLog',
  initial: 'loading',
  context: { view: null, reason: '', recoveryKey: '', chosen: null },
  states: {
    loading: {
      invoke: {
        id: 'loadKeyLog',
        src: 'loadKeyLog',
        onDone: [
          { guard: 'isRefused', target: 'refused', actions: 'assignReason' },
          { guard: 'hasNoAnchor', target: 'noAnchor', actions: 'assignView' },
          { target: 'ready', actions: 'assignView' },
        ],
        onError: 'unreachable',
      },
    },
    unreachable: { on: { retry: 'loading' } },
    /** The log did not verify in this browser: nothing is signed or trusted. */
    refused: { on: { retry: 'loading' } },
    /** The company has no recovery key yet: this handler may make it. */
    noAnchor: {
      initial: 'idle',
      on: { 'anchor.make': 'makingAnchor' },
      states: { idle: {}, failed: {} },
    },
    makingAnchor: {
      invoke: {
        id: 'makeAnchor',
        src: 'makeAnchor',
        onDone: [{ guard: 'isAnchorMade', target: 'showingRecoveryKey', actions: 'assignRecoveryKey' }, { target: 'noAnchor.failed' }],
        onError: 'noAnchor.failed',
      },
    },
    /** The recovery key's private half, shown once to print. */
    showingRecoveryKey: { on: { 'anchor.printed': { target: 'loading', actions: 'forgetRecoveryKey' } } },
    ready: {
      initial: 'idle',
      on: { certify: { guard: 'canCertify', target: 'confirmingCertify', actions: 'choose' }, retry: 'loading' },
      states: { idle: {}, failed: {} },
    },
    /** "Does the fingerprint match what your colleague sees?": a confirmation dialog. */
    confirmingCertify: {
      on: { 'certify.confirm': 'certifying', 'certify.cancel': { target: 'ready', actions: 'forgetChosen' } },
    },
    certifying: {
      invoke: {
        id: 'certifyColleague',
        src: 'certifyColleague',
        input: ({ context }) => ({ handlerId: context.chosen?.id ?? '' }),
        onDone: [{ guard: 'isCertified', target: 'loading', actions: 'forgetChosen' }, { target: 'ready.failed', actions: 'forgetChosen' }],
        onError: { target: 'ready.failed', actions: 'forgetChosen' },
      },
    },
  },
});
