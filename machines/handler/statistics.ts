/**
 * The statistics page in a handler's browser (issue 37 Build 3; docs/decisions/sealed-cases.md
 * "The statistics key"): the company's statistics key checked against the key log this
 * browser verified, its private half opened with the handler's own key, and every
 * case's categories box opened and counted here; the server sees no category. While the
 * company has no statistics key, a certified handler publishes one (after a
 * confirmation: it is set once).
 *
 * Invariants:
 * - `counted` only with counts made in this browser from a key whose signature verified
 *   against the verified log; a log or key that does not verify ends in `refused` and
 *   counts nothing.
 * - `publishing` is entered only from the confirmation, and only when the load said
 *   this handler may publish (her key is certified and no key is published).
 * - The statistics private key is never in the context: the load actor opens it,
 *   counts, and drops it; only numbers come back.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';

export interface StatisticsCounts {
  /** Cases per violation category (`none`: the report named none). */
  violation: Record<string, number>;
  /** Cases per channel (ONLINE_FORM, PHONE, MEETING). */
  channel: Record<string, number>;
  /** Boxes that did not open with the key. */
  unopened: number;
  total: number;
}

export type StatisticsAnswer =
  | { status: 'counted'; counts: StatisticsCounts }
  /** No statistics key yet; `canPublish`: this handler's key is certified, so she may make it. */
  | { status: 'none'; canPublish: boolean }
  /** A key is published, but its private half is not sealed to this handler's key. */
  | { status: 'notHolder' }
  /** The key log or the key's signature did not verify in this browser. */
  | { status: 'refused'; reason: string };

export interface StatisticsContext {
  counts: StatisticsCounts | null;
  canPublish: boolean;
  reason: string;
}

export type StatisticsEvent = { type: 'key.publish' } | { type: 'publish.confirm' } | { type: 'publish.cancel' } | { type: 'retry' };

const loaded = (event: unknown) => (event as DoneActorEvent<StatisticsAnswer>).output;
const published = (event: unknown) => (event as DoneActorEvent<{ status: number }>).output;

export const statisticsMachine = setup({
  types: {} as { context: StatisticsContext; events: StatisticsEvent },
  actors: {
    loadStatistics: fromPromise<StatisticsAnswer, void>(async () => {
      throw new Error('loadStatistics not provided');
    }),
    publishKey: fromPromise<{ status: number }, void>(async () => {
      throw new Error('publishKey not provided');
    }),
  },
  actions: {
    assignCounts: assign({ counts: ({ event }) => { const a = loaded(event); return a.status === 'counted' ? a.counts : null; }, reason: '' }),
    assignNone: assign({ canPublish: ({ event }) => { const a = loaded(event); return a.status === 'none' && a.canPublish; }, counts: null, reason: '' }),
    assignReason: assign({ reason: ({ event }) => { const a = loaded(event); return a.status === 'refused' ? a.reason : ''; }, counts: null }),
    forgetCounts: assign({ counts: null, canPublish: false }),
  },
  guards: {
    isCounted: ({ event }) => loaded(event).status === 'counted',
    hasNoKey: ({ event }) => loaded(event).status === 'none',
    isNotHolder: ({ event }) => loaded(event).status === 'notHolder',
    canPublish: ({ context }) => context.canPublish,
    isPublished: ({ event }) => published(event).status === 201,
  },
}).createMachine({
  id: 'statistics',
  initial: 'loading',
  context: { counts: null, canPublish: false, reason: '' },
  states: {
    loading: {
      invoke: {
        id: 'loadStatistics',
        src: 'loadStatistics',
        onDone: [
          { guard: 'isCounted', target: 'counted', actions: 'assignCounts' },
          { guard: 'hasNoKey', target: 'noKey', actions: 'assignNone' },
          { guard: 'isNotHolder', target: 'notHolder', actions: 'forgetCounts' },
          { target: 'refused', actions: 'assignReason' },
        ],
        onError: { target: 'unreachable', actions: 'forgetCounts' },
      },
    },
    unreachable: { on: { retry: 'loading' } },
    /** The log or the statistics key did not verify here: nothing is counted or published. */
    refused: { on: { retry: 'loading' } },
    notHolder: { on: { retry: 'loading' } },
    /** The company has no statistics key: a certified handler may publish one. */
    noKey: {
      initial: 'idle',
      on: { 'key.publish': { guard: 'canPublish', target: 'confirmingPublish' }, retry: 'loading' },
      states: { idle: {}, failed: {} },
    },
    /** "Make the company's statistics key now? It is set once.": a confirmation dialog. */
    confirmingPublish: { on: { 'publish.confirm': 'publishing', 'publish.cancel': 'noKey' } },
    publishing: {
      invoke: {
        id: 'publishKey',
        src: 'publishKey',
        onDone: [{ guard: 'isPublished', target: 'loading' }, { target: 'noKey.failed' }],
        onError: 'noKey.failed',
      },
    },
    counted: { on: { retry: 'loading' } },
  },
});
