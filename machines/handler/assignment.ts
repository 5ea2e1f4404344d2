/**
 * Who works on a case (issue 38 Build 2; docs/decisions/handler-everyday-work.md): its
 * assignee and the colleagues it is shared with, chosen among the colleagues the server
 * names as entitled to it (officer scoping, server/handlers/cases.ts `visibleCases`).
 * Assigning, handing over, sharing and stopping a share each go to the server, which
 * refuses a colleague who is not entitled (400 COLLEAGUE_NOT_ENTITLED) and writes the act
 * to the audit trail.
 *
 * Invariants:
 * - Acts only from `ready` with a loaded assignment; assigning and sharing need a chosen
 *   colleague among `colleagues` (`hasChosen`), and a change (not the assignee already,
 *   not shared already); unassigning needs an assignee.
 * - A refusal keeps the assignment shown and names the server's code (`refused`); a 401
 *   reports `reportUnauthorized` (the session chart signs out).
 * - After an act the case reloads (`reloadCase`), so the audit trail shows it.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';

export interface Colleague {
  id: string;
  name: string;
}

export interface AssignmentView {
  assignee: Colleague | null;
  shares: Colleague[];
  colleagues: Colleague[];
}

export interface AssignmentAnswer {
  status: number;
  assignment?: AssignmentView;
  code?: string;
}

export type AssignmentAct = { kind: 'assign' | 'share' | 'unshare'; handlerId: string } | { kind: 'unassign' };

export interface AssignmentContext {
  caseNumber: string;
  assignment: AssignmentView | null;
  chosen: string | null;
  act: AssignmentAct | null;
  refused: string | null;
}

export type AssignmentEvent =
  | { type: 'colleague.choose'; handlerId: string }
  | { type: 'assign' }
  | { type: 'unassign' }
  | { type: 'share' }
  | { type: 'unshare'; handlerId: string }
  | { type: 'retry' };

const answer = (event: unknown) => (event as DoneActorEvent<AssignmentAnswer>).output;

export const assignmentMachine = setup({
  types: {} as { context: AssignmentContext; events: AssignmentEvent; input: { caseNumber: string } },
  actors: {
    loadAssignment: fromPromise<AssignmentAnswer, { caseNumber: string }>(async () => {
      throw new Error('loadAssignment not provided');
    }),
    changeAssignment: fromPromise<AssignmentAnswer, { caseNumber: string; act: AssignmentAct }>(async () => {
      throw new Error('changeAssignment not provided');
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    assignAssignment: assign({ assignment: ({ event }) => answer(event).assignment ?? null, refused: null, act: null }),
    assignRefused: assign({ refused: ({ event }) => answer(event).code ?? 'ERROR', act: null }),
    assignFailed: assign({ refused: 'ERROR', act: null }),
    assignChosen: assign({ chosen: ({ event, context }) => (event.type === 'colleague.choose' ? event.handlerId : context.chosen), refused: null }),
    setAssignAct: assign({ act: ({ context }) => ({ kind: 'assign' as const, handlerId: context.chosen! }) }),
    setShareAct: assign({ act: ({ context }) => ({ kind: 'share' as const, handlerId: context.chosen! }) }),
    setUnassignAct: assign({ act: { kind: 'unassign' as const } }),
    setUnshareAct: assign({ act: ({ event }) => ({ kind: 'unshare' as const, handlerId: event.type === 'unshare' ? event.handlerId : '' }) }),
  },
  guards: {
    isOk: ({ event }) => answer(event).status === 200 || answer(event).status === 201,
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
    isRefusal: ({ event }) => answer(event).status >= 400 && answer(event).status < 500,
    hasChosen: ({ context }) => !!context.chosen && !!context.assignment?.colleagues.some((c) => c.id === context.chosen),
    canAssignChosen: ({ context }) => !!context.chosen && !!context.assignment?.colleagues.some((c) => c.id === context.chosen) && context.assignment.assignee?.id !== context.chosen,
    canShareChosen: ({ context }) =>
      !!context.chosen &&
      !!context.assignment?.colleagues.some((c) => c.id === context.chosen) &&
      context.assignment.assignee?.id !== context.chosen &&
      !context.assignment.shares.some((s) => s.id === context.chosen),
    hasAssignee: ({ context }) => !!context.assignment?.assignee,
    isShared: ({ context, event }) => event.type === 'unshare' && !!context.assignment?.shares.some((s) => s.id === event.handlerId),
  },
}).createMachine({
  id: 'assignment',
  initial: 'loading',
  context: ({ input }) => ({ caseNumber: input.caseNumber, assignment: null, chosen: null, act: null, refused: null }),
  states: {
    loading: {
      invoke: {
        id: 'loadAssignment',
        src: 'loadAssignment',
        input: ({ context }) => ({ caseNumber: context.caseNumber }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: 'assignAssignment' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    failed: { on: { retry: 'loading' } },
    ready: {
      on: {
        'colleague.choose': { actions: 'assignChosen' },
        assign: { guard: 'canAssignChosen', target: 'changing', actions: 'setAssignAct' },
        share: { guard: 'canShareChosen', target: 'changing', actions: 'setShareAct' },
        unassign: { guard: 'hasAssignee', target: 'changing', actions: 'setUnassignAct' },
        unshare: { guard: 'isShared', target: 'changing', actions: 'setUnshareAct' },
      },
    },
    changing: {
      invoke: {
        id: 'changeAssignment',
        src: 'changeAssignment',
        input: ({ context }) => ({ caseNumber: context.caseNumber, act: context.act! }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: ['assignAssignment', 'reloadCase'] },
          { guard: 'isUnauthorizedAnswer', target: 'ready', actions: ['assignFailed', 'reportUnauthorized'] },
          { guard: 'isRefusal', target: 'ready', actions: 'assignRefused' },
          { target: 'ready', actions: 'assignFailed' },
        ],
        onError: { target: 'ready', actions: 'assignFailed' },
      },
    },
  },
});
