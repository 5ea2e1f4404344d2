/** Model of the case export: every part choice down to none, the identity's tick, typed and selected terms, every answer of the audit route and of the making. */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { caseExportMachine, DEFAULT_PARTS } from '../../machines/handler/caseExport.ts';
import type { MachineModel } from './harness.ts';

const fixed: (EventObject & Record<string, unknown>)[] = [
  { type: 'dialog.open' },
  { type: 'dialog.open', selection: '  Depot 7 manager ' },
  { type: 'dialog.close' },
  { type: 'term.add', value: 'Jan Kowalski' },
  { type: 'term.add', value: ' JAN KOWALSKI ' },
  { type: 'term.add', value: '   ' },
  { type: 'term.remove', index: 0 },
  { type: 'term.remove', index: 9 },
  { type: 'selection.add' },
  { type: 'part.toggle', part: 'identity' },
  { type: 'part.toggle', part: 'notes' },
  { type: 'export.start' },
  { type: 'export.retry' },
  { type: 'xstate.done.actor.recordExport', output: { status: 201 } },
  { type: 'xstate.done.actor.recordExport', output: { status: 401, code: 'UNAUTHORIZED' } },
  { type: 'xstate.done.actor.recordExport', output: { status: 400, code: 'VALIDATION' } },
  { type: 'xstate.done.actor.recordExport', output: { status: 404 } },
  { type: 'xstate.error.actor.recordExport', error: 'network' },
  { type: 'xstate.done.actor.makeExport', output: { pdf: 'blob:pdf', zip: 'blob:zip' } },
  { type: 'xstate.error.actor.makeExport', error: 'font' },
];

export default {
  name: 'handlerCaseExport',
  machine: caseExportMachine,
  // Untick the parts one by one (down to none) besides the fixed events: the state space stays small.
  // Terms and the selection are tried with the parts as they open; fewer parts only export or close.
  events: (s: AnyMachineSnapshot) => {
    const parts = s.context.parts as string[];
    const untick = parts.length > 0 && parts[0] !== 'identity' ? [{ type: 'part.toggle', part: parts[0] }] : [];
    if (parts.length >= DEFAULT_PARTS.length) return [...fixed, ...untick];
    return [...fixed.filter((e) => !['term.add', 'term.remove', 'selection.add'].includes(e.type)), ...untick];
  },
  // Only the choice is worth telling apart: every other state starts from it or resets it.
  serializeState: ((s: AnyMachineSnapshot) =>
    s.matches('choosing') ? JSON.stringify([s.value, s.context.parts.length, s.context.parts.includes('identity'), s.context.parts.includes('notes'), s.context.terms.length, s.context.selection !== '']) : JSON.stringify(s.value)) as never,
} satisfies MachineModel;
