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
 * - Filters and sort start from the page's address (`inboxFiltersOf`, issue 38) and the
 *   view writes them back (`inboxSearchOf`), so they survive a visit to a case; only
 *   filters and the sort go there, never anything of a case's content. "Open only" is
 *   the default; sorting orders the loaded rows and never asks the server again.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { CASE_STATUSES, INBOX_ASSIGNED, SUBMISSION_TYPES, type CaseStatus, type CreationChannel, type InboxAssigned, type SubmissionType } from '../schema.ts';

export interface InboxCase {
  caseNumber: string;
  status: CaseStatus;
  created: string;
  submission: { type: SubmissionType };
  creationChannel: CreationChannel;
  /** How a report a handler entered came (letter, e-mail, in person); null or absent: the reporter sent it. */
  entryChannel?: 'LETTER' | 'EMAIL' | 'IN_PERSON' | null;
  receivedDate: string | null;
  pendingWhistleblowerAction: boolean;
  unreadMessages: number;
  protectionOfficerId?: string;
  officerName?: string | null;
  subsidiary?: { id: string; name: string } | null;
  assignee?: { id: string; name: string } | null;
  sharedWithMe?: boolean;
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
  assigned: AssignedFilter;
  openOnly: boolean;
  cursor: string | null;
}

/** How long the search waits after the last key before it asks the server. */
export const SEARCH_PAUSE_MS = 300;

export type StatusFilter = CaseStatus | 'ALL';
export type ChannelFilter = SubmissionType | 'ALL';
export type AssignedFilter = InboxAssigned | 'ALL';

/** The columns the inbox sorts by (issue 38). */
export const SORT_COLUMNS = ['case', 'assignee', 'officer', 'subsidiary', 'channel', 'received', 'status', 'unread', 'answer', 'deadline', 'deletion'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];
export interface InboxSort {
  column: SortColumn;
  descending: boolean;
}

/** What the address keeps: the filters and the sort. */
export interface InboxFilters {
  status: StatusFilter;
  channel: ChannelFilter;
  search: string;
  assigned: AssignedFilter;
  openOnly: boolean;
  sort: InboxSort;
}

export interface InboxContext extends InboxFilters {
  cases: InboxCase[];
  nextCursor: string | null;
  moreFailed: boolean;
}

export const DEFAULT_FILTERS: InboxFilters = { status: 'ALL', channel: 'ALL', search: '', assigned: 'ALL', openOnly: true, sort: { column: 'deadline', descending: false } };

const oneOf = <T extends string>(list: readonly T[], value: string | null, fallback: T): T => (value !== null && (list as readonly string[]).includes(value) ? (value as T) : fallback);

/** The filters an address names; anything unknown falls back to the default. */
export function inboxFiltersOf(search: string): InboxFilters {
  const q = new URLSearchParams(search);
  const d = DEFAULT_FILTERS;
  return {
    status: oneOf<StatusFilter>([...CASE_STATUSES, 'ALL'], q.get('status'), d.status),
    channel: oneOf<ChannelFilter>([...SUBMISSION_TYPES, 'ALL'], q.get('channel'), d.channel),
    search: (q.get('q') ?? '').replace(/\D/g, '').slice(0, 40),
    assigned: oneOf<AssignedFilter>([...INBOX_ASSIGNED, 'ALL'], q.get('assigned'), d.assigned),
    openOnly: q.get('open') !== 'all',
    sort: { column: oneOf(SORT_COLUMNS, q.get('sort'), d.sort.column), descending: q.get('dir') === 'desc' },
  };
}

/** The address's search part for these filters: only what differs from the default. */
export function inboxSearchOf(f: InboxFilters): string {
  const q = new URLSearchParams();
  const d = DEFAULT_FILTERS;
  if (f.status !== d.status) q.set('status', f.status);
  if (f.channel !== d.channel) q.set('channel', f.channel);
  const digits = f.search.replace(/\D/g, '');
  if (digits) q.set('q', digits);
  if (f.assigned !== d.assigned) q.set('assigned', f.assigned);
  if (!f.openOnly) q.set('open', 'all');
  if (f.sort.column !== d.sort.column) q.set('sort', f.sort.column);
  if (f.sort.descending) q.set('dir', 'desc');
  return q.toString();
}

export type InboxEvent =
  | { type: 'filter.status'; value: StatusFilter }
  | { type: 'filter.channel'; value: ChannelFilter }
  | { type: 'search.change'; value: string }
  | { type: 'filter.assigned'; value: AssignedFilter }
  | { type: 'filter.open'; value: boolean }
  | { type: 'sort.by'; column: SortColumn; descending?: boolean }
  | { type: 'reload' }
  | { type: 'more.load' };

const answer = (event: unknown) => (event as DoneActorEvent<InboxAnswer>).output;

const DAY = 86_400_000;

/** Whole days until `due` (negative when overdue), counted from `now`. */
export function daysLeft(due: string, now: number): number {
  return Math.ceil((new Date(due).getTime() - now) / DAY);
}

/** Days from now within which the 3-month feedback deadline gets the in-app marker (globaleaks #4866). */
export const FEEDBACK_MARKER_DAYS = 14;

/** Whether the row gets the "feedback due soon" marker: its next deadline is feedback, within 14 days or overdue. */
export function isFeedbackDueSoon(c: Pick<InboxCase, 'deadline'>, now: number): boolean {
  return c.deadline?.kind === 'FEEDBACK' && daysLeft(c.deadline.due, now) <= FEEDBACK_MARKER_DAYS;
}

/** Each column's sort key; null sorts last whichever the direction. */
const SORT_KEYS: Record<SortColumn, (c: InboxCase) => string | number | null> = {
  case: (c) => c.caseNumber,
  assignee: (c) => c.assignee?.name.toLocaleLowerCase() ?? null,
  officer: (c) => c.officerName?.toLocaleLowerCase() ?? null,
  subsidiary: (c) => c.subsidiary?.name.toLocaleLowerCase() ?? null,
  channel: (c) => c.submission.type,
  received: (c) => c.receivedDate,
  status: (c) => CASE_STATUSES.indexOf(c.status),
  unread: (c) => c.unreadMessages,
  answer: (c) => (c.pendingWhistleblowerAction ? 1 : 0),
  deadline: (c) => c.deadline?.due ?? null,
  deletion: (c) => c.scheduledDeletion,
};

function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/**
 * The rows to show: filtered (status, channel, digits of the case number, assignment,
 * open only), ordered by the chosen column (by default the nearest deadline first); rows
 * without a value last, ties newest first.
 */
export function inboxRows(context: InboxContext, me?: string): InboxCase[] {
  const digits = context.search.replace(/\D/g, '');
  const key = SORT_KEYS[context.sort.column];
  const sign = context.sort.descending ? -1 : 1;
  return context.cases
    .filter((c) => context.status === 'ALL' || c.status === context.status)
    .filter((c) => context.channel === 'ALL' || c.submission.type === context.channel)
    .filter((c) => !digits || c.caseNumber.includes(digits))
    .filter((c) => !context.openOnly || c.status !== 'CLOSED')
    .filter((c) => {
      if (context.assigned === 'UNASSIGNED') return !c.assignee;
      if (context.assigned === 'SHARED') return !!c.sharedWithMe;
      if (context.assigned === 'ME') return me === undefined || c.assignee?.id === me;
      return true;
    })
    .sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      if (ka === null || kb === null) return compare(ka, kb) || b.created.localeCompare(a.created);
      return sign * compare(ka, kb) || b.created.localeCompare(a.created);
    });
}

const request = (context: InboxContext, cursor: string | null): InboxRequest => ({
  status: context.status,
  channel: context.channel,
  search: context.search,
  assigned: context.assigned,
  openOnly: context.openOnly,
  cursor,
});

export const inboxMachine = setup({
  types: {} as { context: InboxContext; events: InboxEvent; input: { filters?: InboxFilters } | undefined },
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
    assignAssigned: assign({ assigned: ({ event, context }) => (event.type === 'filter.assigned' ? event.value : context.assigned) }),
    assignOpen: assign({ openOnly: ({ event, context }) => (event.type === 'filter.open' ? event.value : context.openOnly) }),
    // The same column again turns the order round; another column starts ascending.
    assignSort: assign({
      sort: ({ event, context }) =>
        event.type !== 'sort.by'
          ? context.sort
          : { column: event.column, descending: event.descending ?? (context.sort.column === event.column ? !context.sort.descending : false) },
    }),
  },
  guards: {
    isOk: ({ event }) => answer(event).status === 200,
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
    hasMore: ({ context }) => context.nextCursor !== null,
  },
}).createMachine({
  id: 'inbox',
  initial: 'loading',
  context: ({ input }) => ({ ...(input?.filters ?? DEFAULT_FILTERS), cases: [], nextCursor: null, moreFailed: false }),
  // Sorting orders the rows already loaded: no state changes, nothing is asked.
  on: { 'sort.by': { actions: 'assignSort' } },
  states: {
    // No rows yet (the first load, or after a failure): a filter change loads again at once.
    loading: {
      on: {
        'filter.status': { target: 'loading', reenter: true, actions: 'assignStatus' },
        'filter.channel': { target: 'loading', reenter: true, actions: 'assignChannel' },
        'filter.assigned': { target: 'loading', reenter: true, actions: 'assignAssigned' },
        'filter.open': { target: 'loading', reenter: true, actions: 'assignOpen' },
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
        'filter.assigned': { target: 'loading', actions: 'assignAssigned' },
        'filter.open': { target: 'loading', actions: 'assignOpen' },
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
        'filter.assigned': { target: '.refreshing', reenter: true, actions: 'assignAssigned' },
        'filter.open': { target: '.refreshing', reenter: true, actions: 'assignOpen' },
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
