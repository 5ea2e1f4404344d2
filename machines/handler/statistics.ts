/**
 * The statistics page in a handler's browser (issue 37 Build 3; docs/decisions/sealed-workspace.md
 * "The statistics key, published and counted"): the company's statistics keys checked
 * against the key log this browser verified, their private halves opened with the
 * handler's own key, and every case's categories box opened and counted here; the
 * server sees no category. While the company has no statistics key, a certified handler
 * publishes one; a holder gives the keys she holds to a colleague certified later; a
 * certified holder rotates the key (each step after a confirmation).
 *
 * Invariants:
 * - `counted` only with counts made in this browser from keys whose chain verified
 *   against the verified log; a log or key that does not verify ends in `refused` and
 *   counts nothing.
 * - `publishing`, `giving` and `rotating` are entered only from their confirmation, and
 *   only when the load said this handler may: publish (her key is certified and no key
 *   is published), give (the colleague is one the load offered: certified, live, lacking
 *   a key she holds), rotate (she holds a key and hers is certified).
 * - `giving` always has a recipient; none is kept outside the give confirmation and
 *   `giving`.
 * - The statistics private keys are never in the context: the actors open them, count
 *   or seal, and drop them; only numbers and names come back.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';

export interface StatisticsCounts {
  /** Cases per violation category (`none`: the report named none). */
  violation: Record<string, number>;
  /** Cases per channel (ONLINE_FORM, PHONE, MEETING). */
  channel: Record<string, number>;
  /** Boxes that did not open with their key. */
  unopened: number;
  total: number;
  /** Boxes sealed to a statistics key this handler does not hold (not in `total`). */
  notHeld: number;
}

/** A certified colleague who lacks a statistics key this handler holds. */
export interface StatisticsColleague {
  handlerId: string;
  name: string;
  recipientKeyId: string;
}

export type StatisticsAnswer =
  | { status: 'counted'; counts: StatisticsCounts; colleagues: StatisticsColleague[]; canRotate: boolean }
  /** No statistics key yet; `canPublish`: this handler's key is certified, so she may make it. */
  | { status: 'none'; canPublish: boolean }
  /**
   * Keys are published, but none is sealed to this handler's key; `holders`: the
   * colleagues who hold it and can give it; `certified`: her key is certified, so they can.
   */
  | { status: 'notHolder'; holders: string[]; certified: boolean }
  /** The key log or the keys' signatures did not verify in this browser. */
  | { status: 'refused'; reason: string };

export interface StatisticsContext {
  counts: StatisticsCounts | null;
  canPublish: boolean;
  canRotate: boolean;
  colleagues: StatisticsColleague[];
  holders: string[];
  /** On the page without the key: this handler's key is certified (a holder can give it to her only then). */
  certified: boolean;
  /** The colleague of the give confirmation and `giving`. */
  recipient: StatisticsColleague | null;
  /** Whom the last gift reached ('' for none), said once the page counted again. */
  given: string;
  /** A rotation landed; said once the page counted again. */
  rotated: boolean;
  reason: string;
}

export type StatisticsEvent =
  | { type: 'key.publish' }
  | { type: 'publish.confirm' }
  | { type: 'publish.cancel' }
  | { type: 'key.give'; recipientKeyId: string }
  | { type: 'give.confirm' }
  | { type: 'give.cancel' }
  | { type: 'key.rotate' }
  | { type: 'rotate.confirm' }
  | { type: 'rotate.cancel' }
  | { type: 'retry' };

const loaded = (event: unknown) => (event as DoneActorEvent<StatisticsAnswer>).output;
const answered = (event: unknown) => (event as DoneActorEvent<{ status: number }>).output;

export const statisticsMachine = setup({
  types: {} as { context: StatisticsContext; events: StatisticsEvent },
  actors: {
    loadStatistics: fromPromise<StatisticsAnswer, void>(async () => {
      throw new Error('loadStatistics not provided');
    }),
    publishKey: fromPromise<{ status: number }, void>(async () => {
      throw new Error('publishKey not provided');
    }),
    giveKey: fromPromise<{ status: number }, StatisticsColleague>(async () => {
      throw new Error('giveKey not provided');
    }),
    rotateKey: fromPromise<{ status: number }, void>(async () => {
      throw new Error('rotateKey not provided');
    }),
  },
  actions: {
    assignCounts: assign(({ event }) => {
      const a = loaded(event);
      return a.status === 'counted' ? { counts: a.counts, colleagues: a.colleagues, canRotate: a.canRotate, canPublish: false, holders: [], reason: '' } : {};
    }),
    assignNone: assign({ canPublish: ({ event }) => { const a = loaded(event); return a.status === 'none' && a.canPublish; }, counts: null, colleagues: [], canRotate: false, holders: [], reason: '' }),
    assignHolders: assign(({ event }) => {
      const a = loaded(event);
      return { holders: a.status === 'notHolder' ? a.holders : [], certified: a.status === 'notHolder' && a.certified, counts: null, colleagues: [], canRotate: false, canPublish: false, reason: '' };
    }),
    assignReason: assign({ reason: ({ event }) => { const a = loaded(event); return a.status === 'refused' ? a.reason : ''; }, counts: null, colleagues: [], canRotate: false, canPublish: false, holders: [] }),
    forgetCounts: assign({ counts: null, canPublish: false, canRotate: false, colleagues: [], holders: [] }),
    assignRecipient: assign({
      recipient: ({ context, event }) => (event.type === 'key.give' ? (context.colleagues.find((c) => c.recipientKeyId === event.recipientKeyId) ?? null) : null),
      given: '',
      rotated: false,
    }),
    forgetRecipient: assign({ recipient: null }),
    assignGiven: assign({ given: ({ context }) => context.recipient?.name ?? '', recipient: null }),
    forgetNews: assign({ given: '', rotated: false }),
    assignRotated: assign({ rotated: true }),
  },
  guards: {
    isCounted: ({ event }) => loaded(event).status === 'counted',
    hasNoKey: ({ event }) => loaded(event).status === 'none',
    isNotHolder: ({ event }) => loaded(event).status === 'notHolder',
    canPublish: ({ context }) => context.canPublish,
    canRotate: ({ context }) => context.canRotate,
    isOffered: ({ context, event }) => event.type === 'key.give' && context.colleagues.some((c) => c.recipientKeyId === event.recipientKeyId),
    isPublished: ({ event }) => answered(event).status === 201,
  },
}).createMachine({
  id: 'statistics',
  initial: 'loading',
  context: { counts: null, canPublish: false, canRotate: false, colleagues: [], holders: [], certified: false, recipient: null, given: '', rotated: false, reason: '' },
  states: {
    loading: {
      invoke: {
        id: 'loadStatistics',
        src: 'loadStatistics',
        onDone: [
          { guard: 'isCounted', target: 'counted', actions: 'assignCounts' },
          { guard: 'hasNoKey', target: 'noKey', actions: 'assignNone' },
          { guard: 'isNotHolder', target: 'notHolder', actions: 'assignHolders' },
          { target: 'refused', actions: 'assignReason' },
        ],
        onError: { target: 'unreachable', actions: 'forgetCounts' },
      },
    },
    unreachable: { on: { retry: 'loading' } },
    /** The log or a statistics key did not verify here: nothing is counted, published or given. */
    refused: { on: { retry: 'loading' } },
    /** "You have no statistics key yet": the page names who holds it and can give it. */
    notHolder: { on: { retry: 'loading' } },
    /** The company has no statistics key: a certified handler may publish one. */
    noKey: {
      initial: 'idle',
      on: { 'key.publish': { guard: 'canPublish', target: 'confirmingPublish' }, retry: 'loading' },
      states: { idle: {}, failed: {} },
    },
    /** "Make the company's statistics key now?": a confirmation dialog. */
    confirmingPublish: { on: { 'publish.confirm': 'publishing', 'publish.cancel': 'noKey' } },
    publishing: {
      invoke: {
        id: 'publishKey',
        src: 'publishKey',
        onDone: [{ guard: 'isPublished', target: 'loading' }, { target: 'noKey.failed' }],
        onError: 'noKey.failed',
      },
    },
    counted: {
      initial: 'idle',
      on: {
        retry: { target: 'loading', actions: 'forgetNews' },
        'key.give': { guard: 'isOffered', target: 'confirmingGive', actions: 'assignRecipient' },
        'key.rotate': { guard: 'canRotate', target: 'confirmingRotate', actions: 'forgetNews' },
      },
      states: { idle: {}, giveFailed: {}, rotateFailed: {} },
    },
    /** "Give the statistics key to <name>?": a confirmation dialog. */
    confirmingGive: { on: { 'give.confirm': 'giving', 'give.cancel': { target: 'counted', actions: 'forgetRecipient' } } },
    giving: {
      invoke: {
        id: 'giveKey',
        src: 'giveKey',
        input: ({ context }) => context.recipient!,
        onDone: [
          { guard: 'isPublished', target: 'loading', actions: 'assignGiven' },
          { target: 'counted.giveFailed', actions: 'forgetRecipient' },
        ],
        onError: { target: 'counted.giveFailed', actions: 'forgetRecipient' },
      },
    },
    /** "Make a new statistics key?": a confirmation dialog. */
    confirmingRotate: { on: { 'rotate.confirm': 'rotating', 'rotate.cancel': 'counted' } },
    rotating: {
      invoke: {
        id: 'rotateKey',
        src: 'rotateKey',
        onDone: [{ guard: 'isPublished', target: 'loading', actions: 'assignRotated' }, { target: 'counted.rotateFailed' }],
        onError: 'counted.rotateFailed',
      },
    },
  },
});
