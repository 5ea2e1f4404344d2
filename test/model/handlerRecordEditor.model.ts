/** Model of the record editor: offered and locked cases, blank and real drafts, every save outcome. */
import type { EventObject } from 'xstate';
import { recordEditorMachine } from '../../machines/handler/recordEditor.ts';
import type { MachineModel } from './harness.ts';

export const recordEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'case.change', submissionType: 'ONLINE_FORM', approvedAt: null, text: '' },
  { type: 'case.change', submissionType: 'PHONE', approvedAt: '2026-11-02T09:00:00.000Z', text: 'Approved text' },
  { type: 'case.change', submissionType: 'MEETING', approvedAt: null, text: 'Draft' },
  { type: 'case.change', submissionType: 'PHONE', approvedAt: null, text: 'Saved text' },
  { type: 'edit.open' },
  { type: 'draft.change', value: '   ' },
  { type: 'draft.change', value: 'The caller described the fraud.' },
  { type: 'edit.save' },
  { type: 'edit.cancel' },
  { type: 'xstate.done.actor.saveRecord', output: { status: 200 } },
  { type: 'xstate.done.actor.saveRecord', output: { status: 401 } },
  { type: 'xstate.done.actor.saveRecord', output: { status: 409 } },
  { type: 'xstate.error.actor.saveRecord', error: 'network' },
  { type: 'draft.restore', value: 'The caller said, kept from before the reload.' },
];

export default {
  name: 'handlerRecordEditor',
  machine: recordEditorMachine,
  input: { submissionType: 'PHONE', approvedAt: null, text: '' },
  events: recordEvents,
  serializeState: ((s: { value: unknown; context: { submissionType: string; approvedAt: string | null; draft: string; text: string } }) =>
    JSON.stringify([s.value, s.context.submissionType, !!s.context.approvedAt, s.context.draft.trim() !== '', s.context.text])) as never,
} satisfies MachineModel;
