/**
 * The handler's inbox (issue 14): every case this handler may see, with the legal
 * clock the server computed, filtered by status and channel and searched by case
 * number. The order (nearest deadline first) and the filter are `inboxRows`, a pure
 * function of the context, so the view and the tests agree.
 *
 * Invariants:
 * - Rows are shown only in `ready`; a failed load keeps the filters and offers retry.
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
}

export type StatusFilter = CaseStatus | 'ALL';
export type ChannelFilter = SubmissionType | 'ALL';

export interface InboxContext {
  cases: InboxCase[];
  status: StatusFilter;
  channel: ChannelFilter;
  search: string;
}

export type InboxEvent =
  | { type: 'filter.status'; value: StatusFilter }
  | { type: 'filter.channel'; value: ChannelFilter }
  | { type: 'search.change'; value: string }
  | { type: 'reload' };

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

export const inboxMachine = setup({
  types: {} as { context: InboxContext; events: InboxEvent },
  actors: {
    loadInbox: fromPromise<InboxAnswer, void>(async () => {
      throw new Error('loadInbox not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignCases: assign({ cases: ({ event }) => answer(event).cases ?? [] }),
    assignStatus: assign({ status: ({ event, context }) => (event.type === 'filter.status' ? event.value : context.status) }),
    assignChannel: assign({ channel: ({ event, context }) => (event.type === 'filter.channel' ? event.value : context.channel) }),
    assignSearch: assign({ search: ({ event, context }) => (event.type === 'search.change' ? event.value.slice(0, 40) : context.search) }),
  },
  guards: {
    isOk: ({ event }) => answer(event).status === 200,
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
  },
}).createMachine({
  id: 'inbox',
  initial: 'loading',
  context: { cases: [], status: 'ALL', channel: 'ALL', search: '' },
  on: {
    'filter.status': { actions: 'assignStatus' },
    'filter.channel': { actions: 'assignChannel' },
    'search.change': { actions: 'assignSearch' },
  },
  states: {
    loading: {
      invoke: {
        id: 'loadInbox',
        src: 'loadInbox',
        onDone: [
          { guard: 'isOk', target: 'ready', actions: 'assignCases' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    ready: { on: { reload: 'loading' } },
    failed: { on: { reload: 'loading' } },
  },
});
