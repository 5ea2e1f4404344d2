/** Model of a case's assignment: every load answer, choosing a colleague, each act and every answer to it. */
import type { EventObject } from 'xstate';
import { assignmentMachine } from '../../machines/handler/assignment.ts';
import type { MachineModel } from './harness.ts';

const anna = { id: 'h1', name: 'Anna' };
const bo = { id: 'h2', name: 'Bo' };
const loaded = { assignee: null, shares: [], colleagues: [anna, bo] };
const assigned = { assignee: anna, shares: [bo], colleagues: [anna, bo] };

export const assignmentEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadAssignment', output: { status: 200, assignment: loaded } },
  { type: 'xstate.done.actor.loadAssignment', output: { status: 200, assignment: assigned } },
  { type: 'xstate.done.actor.loadAssignment', output: { status: 401 } },
  { type: 'xstate.done.actor.loadAssignment', output: { status: 500 } },
  { type: 'xstate.error.actor.loadAssignment', error: 'network' },
  { type: 'retry' },
  { type: 'colleague.choose', handlerId: 'h1' },
  { type: 'colleague.choose', handlerId: 'h2' },
  { type: 'colleague.choose', handlerId: 'stranger' },
  { type: 'assign' },
  { type: 'share' },
  { type: 'unassign' },
  { type: 'unshare', handlerId: 'h2' },
  { type: 'unshare', handlerId: 'h1' },
  { type: 'xstate.done.actor.changeAssignment', output: { status: 200, assignment: assigned } },
  { type: 'xstate.done.actor.changeAssignment', output: { status: 201, assignment: loaded } },
  { type: 'xstate.done.actor.changeAssignment', output: { status: 400, code: 'COLLEAGUE_NOT_ENTITLED' } },
  { type: 'xstate.done.actor.changeAssignment', output: { status: 401 } },
  { type: 'xstate.done.actor.changeAssignment', output: { status: 503 } },
  { type: 'xstate.error.actor.changeAssignment', error: 'network' },
];

export default {
  name: 'handlerAssignment',
  machine: assignmentMachine,
  input: { caseNumber: '1111222233334444' },
  events: assignmentEvents,
  serializeState: ((s: { value: unknown; context: { assignment: { assignee: { id: string } | null; shares: unknown[] } | null; chosen: string | null; act: unknown; refused: string | null } }) =>
    JSON.stringify([s.value, s.context.assignment?.assignee?.id ?? null, s.context.assignment?.shares.length ?? null, s.context.chosen, s.context.act, s.context.refused])) as never,
} satisfies MachineModel;
