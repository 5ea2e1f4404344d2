/**
 * One case in the handler's workspace (issue 14): load it (the server audits the
 * read), and change its status through a confirmation. Messages and the record have
 * their own charts (composer.ts, recordEditor.ts); they ask this one to reload.
 *
 * Invariants:
 * - 404 is `notFound`, whatever the reason (missing, another company, another officer).
 * - 409 CASE_SEALED is `sealed`: the server cannot read the case, so the page hands it
 *   to the sealed case's own chart (sealedCase.ts), which opens it in the browser.
 * - A status is changed only after `confirmingStatus`, only to a status other than
 *   the current one and never back to PENDING_WHISTLEBLOWER_CONTACT. Closing a case
 *   whose confirmation of receipt or feedback is missing or overdue says why in that
 *   confirmation (`closingReason`, issue 38).
 * - The audit trail's filter (`auditAction`) only narrows what is shown; it survives reloads.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { CaseStatus } from '../schema.ts';

export interface HandlerCaseView {
  caseNumber: string;
  status: CaseStatus;
  submission: { type: 'ONLINE_FORM' | 'PHONE' | 'MEETING' };
  /** How a report a handler entered came (letter, e-mail, in person); null or absent: the reporter sent it. */
  entryChannel?: 'LETTER' | 'EMAIL' | 'IN_PERSON' | null;
  approvedAt: string | null;
  report: { text: string; updatedAt: string; versions?: { version: number; sha256: string; createdAt: string; approvedAt: string | null; text: string }[] } | null;
  [k: string]: unknown;
}

export interface CaseAnswer {
  status: number;
  view?: HandlerCaseView;
  /** The product's error code of a refusal (CASE_SEALED for a sealed case). */
  code?: string;
}

export const SETTABLE_STATUSES: CaseStatus[] = ['RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED'];

export interface CaseContext {
  caseNumber: string;
  view: HandlerCaseView | null;
  nextStatus: CaseStatus | null;
  /** The audit trail shows entries of this action only; 'ALL' shows every entry. */
  auditAction: string;
}

export type ClosingReason = 'ACK_MISSING' | 'ACK_OVERDUE' | 'FEEDBACK_MISSING' | 'FEEDBACK_OVERDUE';

/**
 * Why closing needs a second thought: the case's next legal deadline (server-computed,
 * none once met) is the confirmation of receipt or the feedback still owed, overdue or not.
 */
export function closingReason(deadline: { kind: 'ACKNOWLEDGEMENT' | 'FEEDBACK'; due: string } | null | undefined, now: number): ClosingReason | null {
  if (!deadline) return null;
  const overdue = new Date(deadline.due).getTime() < now;
  if (deadline.kind === 'ACKNOWLEDGEMENT') return overdue ? 'ACK_OVERDUE' : 'ACK_MISSING';
  return overdue ? 'FEEDBACK_OVERDUE' : 'FEEDBACK_MISSING';
}

/** The audit entries the filter keeps. */
export function auditEntries<T extends { action: string }>(entries: readonly T[], action: string): T[] {
  return action === 'ALL' ? [...entries] : entries.filter((e) => e.action === action);
}

export type CaseEvent =
  | { type: 'status.choose'; status: CaseStatus }
  | { type: 'status.confirm' }
  | { type: 'status.cancel' }
  | { type: 'audit.filter'; action: string }
  | { type: 'reload' };

const answer = (event: unknown) => (event as DoneActorEvent<CaseAnswer>).output;

export const caseMachine = setup({
  types: {} as { context: CaseContext; events: CaseEvent; input: { caseNumber: string } },
  actors: {
    loadCase: fromPromise<CaseAnswer, { caseNumber: string }>(async () => {
      throw new Error('loadCase not provided');
    }),
    changeStatus: fromPromise<CaseAnswer, { caseNumber: string; status: CaseStatus }>(async () => {
      throw new Error('changeStatus not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignView: assign({ view: ({ event, context }) => answer(event).view ?? context.view }),
    assignNextStatus: assign({ nextStatus: ({ event, context }) => (event.type === 'status.choose' ? event.status : context.nextStatus) }),
    clearNextStatus: assign({ nextStatus: null }),
    assignAuditAction: assign({ auditAction: ({ event, context }) => (event.type === 'audit.filter' ? event.action : context.auditAction) }),
  },
  guards: {
    isOk: ({ event }) => answer(event).status === 200 && !!answer(event).view,
    isNotFound: ({ event }) => answer(event).status === 404,
    isSealed: ({ event }) => answer(event).status === 409 && answer(event).code === 'CASE_SEALED',
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
    isNewStatus: ({ context, event }) => event.type === 'status.choose' && SETTABLE_STATUSES.includes(event.status) && event.status !== context.view?.status,
  },
}).createMachine({
  id: 'handlerCase',
  initial: 'loading',
  context: ({ input }) => ({ caseNumber: input.caseNumber, view: null, nextStatus: null, auditAction: 'ALL' }),
  on: { 'audit.filter': { actions: 'assignAuditAction' } },
  states: {
    loading: {
      invoke: {
        id: 'loadCase',
        src: 'loadCase',
        input: ({ context }) => ({ caseNumber: context.caseNumber }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: 'assignView' },
          { guard: 'isNotFound', target: 'notFound' },
          { guard: 'isSealed', target: 'sealed' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    notFound: {},
    /** Opened in the browser by the sealed case's chart. */
    sealed: {},
    failed: { on: { reload: 'loading' } },
    ready: {
      initial: 'idle',
      on: {
        reload: 'loading',
        'status.choose': { guard: 'isNewStatus', target: 'confirmingStatus', actions: 'assignNextStatus' },
      },
      states: {
        idle: {},
        statusChanged: {},
        statusFailed: {},
      },
      // Choosing opens the confirmation; the same status is not offered.
      entry: 'clearNextStatus',
    },
    confirmingStatus: {
      on: {
        'status.confirm': 'changingStatus',
        'status.cancel': { target: 'ready', actions: 'clearNextStatus' },
      },
    },
    changingStatus: {
      invoke: {
        id: 'changeStatus',
        src: 'changeStatus',
        input: ({ context }) => ({ caseNumber: context.caseNumber, status: context.nextStatus! }),
        onDone: [
          { guard: 'isOk', target: 'ready.statusChanged', actions: 'assignView' },
          { guard: 'isUnauthorizedAnswer', target: 'ready.statusFailed', actions: 'reportUnauthorized' },
          { target: 'ready.statusFailed' },
        ],
        onError: 'ready.statusFailed',
      },
    },
  },
});
