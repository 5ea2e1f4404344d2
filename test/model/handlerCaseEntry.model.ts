/**
 * Model of entering a report: the draft from empty to sendable field by field (a bad
 * received day and a missing field refused on the way), follow on and off, every answer
 * of the entry, the slip printed, its closing asked and cancelled.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { caseEntryMachine, draftIssues } from '../../machines/handler/caseEntry.ts';
import type { MachineModel } from './harness.ts';

export const TODAY = new Date().toISOString().slice(0, 10);
const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

/** The fields a sendable draft needs, in order (the officer comes with the input). */
type Sample = EventObject & Record<string, unknown>;
export const FILL: Sample[] = [
  { type: 'field.change', field: 'relation', value: 'Supplier' },
  { type: 'field.change', field: 'description', value: 'A letter about the fuel cards.' },
  { type: 'field.change', field: 'repeated', value: 'no' },
  { type: 'field.change', field: 'unit', value: 'Fleet' },
];

const fixed: Sample[] = [
  { type: 'xstate.done.actor.loadChoices', output: { status: 200, choices: { officers: [{ id: 'officer-1', name: 'Olga' }, { id: 'officer-2', name: 'Oskar' }], subsidiaries: [] } } },
  { type: 'xstate.done.actor.loadChoices', output: { status: 200, choices: { officers: [], subsidiaries: [] } } },
  { type: 'xstate.done.actor.loadChoices', output: { status: 401 } },
  { type: 'xstate.error.actor.loadChoices', error: 'network' },
  { type: 'choices.retry' },
  { type: 'entry.submit' },
  { type: 'entry.retry' },
  { type: 'slip.print' },
  { type: 'slip.close' },
  { type: 'close.confirm' },
  { type: 'close.cancel' },
  { type: 'field.change', field: 'follow', value: false },
  { type: 'field.change', field: 'follow', value: true },
  { type: 'xstate.done.actor.enterCase', output: { status: 201, caseNumber: '1234567812345678', password: 'abcd-efgh-jkmn-pqrs-tuvw' } },
  { type: 'xstate.done.actor.enterCase', output: { status: 201, caseNumber: '1234567812345678', password: null } },
  { type: 'xstate.done.actor.enterCase', output: { status: 401, code: 'UNAUTHORIZED' } },
  { type: 'xstate.done.actor.enterCase', output: { status: 400, code: 'WRAP_MISSING' } },
  { type: 'xstate.error.actor.enterCase', error: 'network' },
];

export default {
  name: 'handlerCaseEntry',
  machine: caseEntryMachine,
  input: { receivedOn: TODAY, officerId: 'officer-1' },
  events: (s: AnyMachineSnapshot) => {
    if (!s.matches('editing')) return fixed;
    // The next missing field, then a day in the future and back, so both submit branches are taken.
    const d = s.context.draft as Record<string, unknown>;
    const next = FILL.find((e) => d[e.field as string] !== e.value);
    const day = d.receivedOn === TODAY ? { type: 'field.change', field: 'receivedOn', value: future } : { type: 'field.change', field: 'receivedOn', value: TODAY };
    return [...fixed, ...(next ? [next] : []), day];
  },
  serializeState: ((s: AnyMachineSnapshot) =>
    JSON.stringify([s.value, Object.keys(draftIssues(s.context.draft)).sort(), s.context.draft.follow, s.context.slip?.password === null, Object.keys(s.context.issues).length > 0])) as never,
} satisfies MachineModel;
