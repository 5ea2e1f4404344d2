/** Model of the record editor: online and oral cases, approved or not, blank and real drafts, every save outcome, a conflict and both choices. */
import type { EventObject } from 'xstate';
import { recordEditorMachine } from '../../machines/handler/recordEditor.ts';
import type { MachineModel } from './harness.ts';

const theirs = { version: 2, text: 'Their version of the call.', author: 'Carl', createdAt: '2026-11-02T09:00:00.000Z' };

export const recordEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'case.change', submissionType: 'ONLINE_FORM', approvedAt: null, text: '', version: 0 },
  { type: 'case.change', submissionType: 'PHONE', approvedAt: '2026-11-02T09:00:00.000Z', text: 'Approved text', version: 1 },
  { type: 'case.change', submissionType: 'MEETING', approvedAt: null, text: 'Draft', version: 1 },
  { type: 'case.change', submissionType: 'PHONE', approvedAt: null, text: 'Saved text', version: 2 },
  { type: 'edit.open' },
  { type: 'draft.change', value: '   ' },
  { type: 'draft.change', value: 'The caller described the fraud.' },
  { type: 'edit.save' },
  { type: 'edit.cancel' },
  { type: 'conflict.editTheirs' },
  { type: 'conflict.saveMine' },
  { type: 'xstate.done.actor.saveRecord', output: { status: 200 } },
  { type: 'xstate.done.actor.saveRecord', output: { status: 401 } },
  { type: 'xstate.done.actor.saveRecord', output: { status: 409, code: 'RECORD_VERSION_CONFLICT' } },
  { type: 'xstate.done.actor.saveRecord', output: { status: 409, code: 'NOT_AN_ORAL_CASE' } },
  { type: 'xstate.error.actor.saveRecord', error: 'network' },
  { type: 'xstate.done.actor.loadLatest', output: { status: 200, latest: theirs } },
  { type: 'xstate.done.actor.loadLatest', output: { status: 200, latest: { ...theirs, text: null } } },
  { type: 'xstate.done.actor.loadLatest', output: { status: 401 } },
  { type: 'xstate.done.actor.loadLatest', output: { status: 0 } },
  { type: 'xstate.error.actor.loadLatest', error: 'network' },
  { type: 'draft.restore', value: 'The caller said, kept from before the reload.' },
  { type: 'draft.restore', value: 'Written on version 1, kept from before the reload.', base: 1 },
];

type Snapshot = { value: unknown; context: { submissionType: string; approvedAt: string | null; draft: string; text: string; base: number; theirs: { text: string | null } | null; mine: string | null } };

export default {
  name: 'handlerRecordEditor',
  machine: recordEditorMachine,
  input: { submissionType: 'PHONE', approvedAt: null, text: '', version: 0 },
  events: recordEvents,
  // Only what a guard reads: the channel, a blank draft or not, and whether their version opened.
  serializeState: ((s: Snapshot) => JSON.stringify([s.value, s.context.submissionType, s.context.draft.trim() !== '', s.context.theirs ? s.context.theirs.text !== null : null])) as never,
} satisfies MachineModel;
