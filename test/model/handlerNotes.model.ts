/** Model of a case's internal notes: every load answer, adding, editing, each save answer, the conflict and both choices. */
import type { EventObject } from 'xstate';
import { notesMachine, type OpenedNote } from '../../machines/handler/notes.ts';
import type { MachineModel } from './harness.ts';

const by = { id: 'h1', name: 'Anna' };
const note = (id: string, version: number, text: string | null): OpenedNote => ({ id, version, text, author: by, editedBy: null, created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z' });
const n1 = note('n1', 1, 'Interview notes');
const sealedAway = note('n2', 1, null);
const theirs = { ...note('n1', 2, 'Bo wrote this'), editedBy: { id: 'h2', name: 'Bo' } };

export const notesEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadNotes', output: { status: 200, notes: [n1, sealedAway] } },
  { type: 'xstate.done.actor.loadNotes', output: { status: 401 } },
  { type: 'xstate.done.actor.loadNotes', output: { status: 500 } },
  { type: 'xstate.error.actor.loadNotes', error: 'network' },
  { type: 'retry' },
  { type: 'draft.change', text: 'A new note' },
  { type: 'draft.change', text: '   ' },
  { type: 'note.add' },
  { type: 'note.edit', id: 'n1' },
  { type: 'note.edit', id: 'n2' },
  { type: 'edit.change', text: 'Edited by Anna' },
  { type: 'edit.change', text: '' },
  { type: 'edit.save' },
  { type: 'edit.cancel' },
  { type: 'conflict.keepMine' },
  { type: 'conflict.takeTheirs' },
  { type: 'xstate.done.actor.addNote', output: { status: 201, note: note('n3', 1, 'A new note') } },
  { type: 'xstate.done.actor.addNote', output: { status: 400, code: 'BAD_ENVELOPE' } },
  { type: 'xstate.done.actor.addNote', output: { status: 401 } },
  { type: 'xstate.done.actor.addNote', output: { status: 503 } },
  { type: 'xstate.error.actor.addNote', error: 'network' },
  { type: 'xstate.done.actor.saveNote', output: { status: 200, note: { ...note('n1', 2, 'Edited by Anna'), editedBy: by } } },
  { type: 'xstate.done.actor.saveNote', output: { status: 409, code: 'NOTE_CHANGED', theirs } },
  { type: 'xstate.done.actor.saveNote', output: { status: 404, code: 'NOTE_NOT_FOUND' } },
  { type: 'xstate.done.actor.saveNote', output: { status: 401 } },
  { type: 'xstate.done.actor.saveNote', output: { status: 502 } },
  { type: 'xstate.error.actor.saveNote', error: 'network' },
];

export default {
  name: 'handlerNotes',
  machine: notesMachine,
  input: { caseNumber: '1111222233334444' },
  events: notesEvents,
  serializeState: ((s: { value: unknown; context: { notes: OpenedNote[]; draft: string; editing: unknown; theirs: OpenedNote | null; refused: string | null } }) =>
    JSON.stringify([s.value, s.context.notes.map((n) => `${n.id}.${n.version}`), s.context.draft.trim() !== '', s.context.editing, s.context.theirs?.version ?? null, s.context.refused])) as never,
} satisfies MachineModel;
