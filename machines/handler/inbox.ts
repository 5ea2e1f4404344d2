/**
 * The handler's inbox (issues 14, 41): the cases this handler may see, with the legal
 * clock the server computed, in pages (newest first on the server, which applies the
 * status, channel and case-number filters before paging), more pages on request. The
 * order of the loaded rows (nearest deadline first) and the filter are `inboxRows`, a
 * pure function of the context, so the view and the tests agree.
 *
 * Invariants:
 * - Rows are shown only in `shown` (tagged `rows`), once a page came; a failed load
 *   keeps the filters and offers retry.
 * - A filter change loads the first page again with the new filters; while rows are
 *   shown, they stay (filtered at once by `inboxRows`) until the answer replaces them,
 *   and typing in the search waits `searchPause` after the last key before it asks.
 * - `more.load` is possible only while the last page named a next one (`hasMore`); its
 *   rows are appended, a failure keeps the rows shown and says so (`moreFailed`).
 * - A 401 reports `reportUnauthorized` (the session chart signs out) and ends `failed`.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { CaseStatus, CreationChannel, SubmissionType } from '../schema.ts';

export interface InboxCase {
  caseNumber: string;
  status: CaseStatus;
  created: string;
  submission: { type: SubmissionType };
  creationChannel: CreationChannel;
  receivedDate: string | null;
  pendingWhistleblowerAction: boolean;
  unreadMessages: number;
  deadline: { kind: 'ACKNOWLEDGEMENT' | 'FEEDBACK'; due: string } | null;
  /** When the retention rules delete the case; null while it is handled. */
  scheduledDeletion: string | null;
}

export interface InboxAnswer {
  status: number;
  cases?: InboxCase[];
  /** Where the next page starts; null (or absent) on the last page. */
  nextCursor?: string | null;
}

/** What one load asks the server for: the filters, and the cursor of the page (null: the first). */
export interface InboxRequest {
  status: StatusFilter;
  channel: ChannelFilter;
  search: string;
  cursor: string | null;
}

/** How long the search waits after the last key before it asks the server. */
export const SEARCH_PAUSE_MS = 300;

export type StatusFilter = CaseStatus | 'ALL';
export type ChannelFilter = SubmissionType | 'ALL';

export interface InboxContext {
  cases: InboxCase[];
  status: StatusFilter;
  channel: ChannelFilter;
  search: string;
  nextCursor: string | null;
  moreFailed: boolean;
}

export type InboxEvent =
  | { type: 'filter.status'; value: StatusFilter }
  | { type: 'filter.channel'; value: ChannelFilter }
  | { type: 'search.change'; value: string }
  | { type: 'reload' }
  | { type: 'more.load' };

const answer = (event: unknown) => (event as DoneActorEvent<InboxAnswer>).output;

const DAY = 86_400_000;

/** Whole days until `due` (negative when overdue), counted from `now`. */
export function daysLeft(due: string, now: number): number {
  return Math.ceil((new Date(due).getTime() - now) / DAY);
}

/** The rows to show: filtered, searched by digits of the case number, nearest deadline first (no deadline last, newest first). */
export function inboxRows(context: InboxContext): InboxCase[] {
  const digits = context.search.replace(/\D/g, '');
  return context.cases
    .filter((c) => context.status === 'ALL' || c.status === context.status)
    .filter((c) => context.channel === 'ALL' || c.submission.type === context.channel)
    .filter((c) => !digits || c.caseNumber.includes(digits))
    .sort((a, b) => {
      if (a.deadline && b.deadline) return a.deadline.due.localeCompare(b.deadline.due);
      if (a.deadline || b.deadline) return a.deadline ? -1 : 1;
      return b.created.localeCompare(a.created);
    });
}

const request = (context: InboxContext, cursor: string | null): InboxRequest => ({ status: context.status, channel: context.channel, search: context.search, cursor });

export const inboxMachine = setup({
  types: {} as { context: InboxContext; events: InboxEvent },
  delays: { searchPause: SEARCH_PAUSE_MS },
  actors: {
    loadInbox: fromPromise<InboxAnswer, InboxRequest>(async () => {
      throw new Error('loadInbox not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignCases: assign({ cases: ({ event }) => answer(event).cases ?? [], nextCursor: ({ event }) => answer(event).nextCursor ?? null, moreFailed: false }),
    appendCases: assign({ cases: ({ event, context }) => [...context.cases, ...(answer(event).cases ?? [])], nextCursor: ({ event }) => answer(event).nextCursor ?? null, moreFailed: false }),
    assignMoreFailed: assign({ moreFailed: true }),
    assignStatus: assign({ status: ({ event, context }) => (event.type === 'filter.status' ? event.value : context.status) }),
    assignChannel: assign({ channel: ({ event, context }) => (event.type === 'filter.channel' ? event.value : context.channel) }),
    assignSearch: assign({ search: ({ event, context }) => (event.type === 'search.change' ? event.value.slice(0, 40) : context.search) }),
  },
  guards: {
    isOk: ({ event }) => answer(event).status === 200,
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
    hasMore: ({ context }) => context.nextCursor !== null,
  },
}).createMachine({
  id: 'inbox',
  initial: 'loading',
  context: { cases: [], status: 'ALL', channel: 'ALL', search: '', nextCursor: null, moreFailed: false },
  states: {
    // No rows yet (the first load, or after a failure): a filter change loads again at once.
    loading: {
      on: {
        'filter.status': { target: 'loading', reenter: true, actions: 'assignStatus' },
        'filter.channel': { target: 'loading', reenter: true, actions: 'assignChannel' },
        'search.change': { target: 'loading', reenter: true, actions: 'assignSearch' },
      },
      invoke: {
        id: 'loadInbox',
        src: 'loadInbox',
        input: ({ context }) => request(context, null),
        onDone: [
          { guard: 'isOk', target: 'shown', actions: 'assignCases' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    failed: {
      on: {
        reload: 'loading',
        'filter.status': { target: 'loading', actions: 'assignStatus' },
        'filter.channel': { target: 'loading', actions: 'assignChannel' },
        'search.change': { target: 'loading', actions: 'assignSearch' },
      },
    },
    // Rows shown: the loaded ones, filtered at once by `inboxRows` while the server is asked again.
    shown: {
      tags: ['rows'],
      initial: 'ready',
      on: {
        'filter.status': { target: '.refreshing', reenter: true, actions: 'assignStatus' },
        'filter.channel': { target: '.refreshing', reenter: true, actions: 'assignChannel' },
        'search.change': { target: '.searching', reenter: true, actions: 'assignSearch' },
      },
      states: {
        ready: {
          on: {
            reload: 'refreshing',
            'more.load': { guard: 'hasMore', target: 'loadingMore' },
          },
        },
        searching: { after: { searchPause: 'refreshing' } },
        refreshing: {
          invoke: {
            id: 'loadInbox',
            src: 'loadInbox',
            input: ({ context }) => request(context, null),
            onDone: [
              { guard: 'isOk', target: 'ready', actions: 'assignCases' },
              { guard: 'isUnauthorizedAnswer', target: '#inbox.failed', actions: 'reportUnauthorized' },
              { target: '#inbox.failed' },
            ],
            onError: '#inbox.failed',
          },
        },
        loadingMore: {
          invoke: {
            id: 'loadInbox',
            src: 'loadInbox',
            input: ({ context }) => request(context, context.nextCursor),
            onDone: [
              { guard: 'isOk', target: 'ready', actions: 'appendCases' },
              { guard: 'isUnauthorizedAnswer', target: '#inbox.failed', actions: 'reportUnauthorized' },
              { target: 'ready', actions: 'assignMoreFailed' },
            ],
            onError: { target: 'ready', actions: 'assignMoreFailed' },
          },
        },
      },
    },
  },
});
