/**
 * Model of the inbox: every load answer (a last page and one with more), reload, more
 * pages, the filters in every state, the summaries opened (an answer naming one case of
 * two, and a failure), and a word search that walks every page.
 */
import type { EventObject } from 'xstate';
import { inboxMachine, isWordSearch } from '../../machines/handler/inbox.ts';
import type { MachineModel } from './harness.ts';

export const inboxCases = [
  { caseNumber: '1111222233334444', status: 'RECEIVED', created: '2026-11-20T10:00:00.000Z', submission: { type: 'ONLINE_FORM' }, creationChannel: 'BY_ONLINE_FORM', receivedDate: '2026-11-20T10:00:00.000Z', pendingWhistleblowerAction: false, unreadMessages: 1, deadline: { kind: 'ACKNOWLEDGEMENT', due: '2026-11-27T10:00:00.000Z' }, scheduledDeletion: null },
  { caseNumber: '5555666677778888', status: 'PENDING_WHISTLEBLOWER_CONTACT', created: '2026-11-21T10:00:00.000Z', submission: { type: 'PHONE' }, creationChannel: 'BY_PHONE', receivedDate: null, pendingWhistleblowerAction: false, unreadMessages: 0, deadline: null, scheduledDeletion: '2027-02-19T10:00:00.000Z' },
];

export const inboxEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadInbox', output: { status: 200, cases: inboxCases } },
  { type: 'xstate.done.actor.loadInbox', output: { status: 200, cases: inboxCases.slice(0, 1), nextCursor: 'page-2' } },
  { type: 'xstate.done.actor.loadInbox', output: { status: 401 } },
  { type: 'xstate.done.actor.loadInbox', output: { status: 500 } },
  { type: 'xstate.error.actor.loadInbox', error: 'network' },
  { type: 'reload' },
  { type: 'filter.status', value: 'RECEIVED' },
  { type: 'filter.channel', value: 'PHONE' },
  { type: 'search.change', value: '5555' },
  { type: 'search.change', value: 'fuel' },
  { type: 'search.change', value: 'fuel depot' },
  { type: 'search.change', value: '' },
  { type: 'xstate.done.actor.openSummaries', output: { summaries: { '1111222233334444': { opened: true, category: 'THEFT', language: 'en', text: 'fuel missing from the depot' } } } },
  { type: 'xstate.error.actor.openSummaries', error: 'network' },
  { type: 'filter.assigned', value: 'ME' },
  { type: 'filter.open', value: false },
  { type: 'sort.by', column: 'received' },
  { type: 'sort.by', column: 'officer', descending: true },
  { type: 'more.load' },
  { type: 'xstate.after.searchPause.inbox.shown.searching' },
];

export default {
  name: 'handlerInbox',
  machine: inboxMachine,
  events: inboxEvents,
  // No guard reads the filters or the sort: they stay out of the state key, so the walk stays small
  // (inboxRows, inboxFiltersOf and inboxSearchOf are tested on their own in handler.test.ts).
  // The guards read whether a loaded case has no summary and whether the search holds a word: those go in the key.
  serializeState: ((s: { value: unknown; context: { nextCursor: string | null; moreFailed: boolean; search: string; cases: { caseNumber: string }[]; summaries: Record<string, unknown> } }) =>
    JSON.stringify([s.value, s.context.nextCursor, s.context.moreFailed, isWordSearch(s.context.search), s.context.cases.some((c) => !(c.caseNumber in s.context.summaries))])) as never,
} satisfies MachineModel;
