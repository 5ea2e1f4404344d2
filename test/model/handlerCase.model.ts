/** Model of one case: load answers, status choice, confirmation and change answers. */
import type { EventObject } from 'xstate';
import { caseMachine } from '../../machines/handler/case.ts';
import type { MachineModel } from './harness.ts';

const view = { caseNumber: '1111222233334444', status: 'RECEIVED', submission: { type: 'ONLINE_FORM' }, approvedAt: null, report: null };

export const caseEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadCase', output: { status: 200, view } },
  { type: 'xstate.done.actor.loadCase', output: { status: 404 } },
  { type: 'xstate.done.actor.loadCase', output: { status: 409, code: 'CASE_SEALED' } },
  { type: 'xstate.done.actor.loadCase', output: { status: 401 } },
  { type: 'xstate.done.actor.loadCase', output: { status: 500 } },
  { type: 'xstate.error.actor.loadCase', error: 'network' },
  { type: 'reload' },
  { type: 'status.choose', status: 'RECEIVED' },
  { type: 'status.choose', status: 'BEING_INVESTIGATED' },
  { type: 'status.confirm' },
  { type: 'status.cancel' },
  { type: 'xstate.done.actor.changeStatus', output: { status: 200, view: { ...view, status: 'BEING_INVESTIGATED' } } },
  { type: 'xstate.done.actor.changeStatus', output: { status: 401 } },
  { type: 'xstate.done.actor.changeStatus', output: { status: 409 } },
  { type: 'xstate.error.actor.changeStatus', error: 'network' },
  { type: 'audit.filter', action: 'STATUS_CHANGED' },
];

export default {
  name: 'handlerCase',
  machine: caseMachine,
  input: { caseNumber: '1111222233334444' },
  events: caseEvents,
  serializeState: ((s: { value: unknown; context: { view: { status: string } | null; nextStatus: string | null; auditAction: string } }) =>
    JSON.stringify([s.value, s.context.view?.status ?? null, s.context.nextStatus, s.context.auditAction])) as never,
} satisfies MachineModel;
