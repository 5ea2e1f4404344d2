/** Model of a case's internal notes: every load answer, adding, editing, each save answer, the conflict and both choices, attaching files and saving one. */
import type { EventObject } from 'xstate';
import { notesMachine, type OpenedNote, type OpenedNoteFile } from '../../machines/handler/notes.ts';
import type { MachineModel } from './harness.ts';

const by = { id: 'h1', name: 'Anna' };
const note = (id: string, version: number, text: string | null, files: OpenedNoteFile[] = []): OpenedNote => ({ id, version, text, files, author: by, editedBy: null, created: '2026-01-01T00:00:00.000Z', updated: '2026-01-01T00:00:00.000Z' });
const file = (id: string, name: string | null): OpenedNoteFile => ({ id, name, size: name ? 1200 : null, storedSize: 65_568, created: '2026-01-02T00:00:00.000Z' });
const n1 = note('n1', 1, 'Interview notes', [file('f1', 'minutes.pdf'), file('f2', null)]);
const sealedAway = note('n2', 1, null);
const picked = [{ name: 'photo.jpg', size: 2000 }];
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
  { type: 'files.attach', id: 'n1', files: picked },
  { type: 'files.attach', id: 'n2', files: picked },
  { type: 'files.attach', id: 'n1', files: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, size: 1 })) },
  { type: 'xstate.done.actor.attachFiles', output: { status: 201, note: note('n1', 1, 'Interview notes', [file('f1', 'minutes.pdf'), file('f2', null), file('f3', 'photo.jpg')]) } },
  { type: 'xstate.done.actor.attachFiles', output: { status: 415, code: 'FILE_CONTENT_MISMATCH' } },
  { type: 'xstate.done.actor.attachFiles', output: { status: 401 } },
  { type: 'xstate.error.actor.attachFiles', error: 'network' },
  { type: 'file.save', fileId: 'f1' },
  { type: 'file.save', fileId: 'f2' },
  { type: 'xstate.done.actor.saveFile', output: { outcome: 'saved', check: { content: 'fits', metadata: [] } } },
  { type: 'xstate.done.actor.saveFile', output: { outcome: 'unauthorized' } },
  { type: 'xstate.error.actor.saveFile', error: 'network' },
];

export default {
  name: 'handlerNotes',
  machine: notesMachine,
  input: { caseNumber: '1111222233334444' },
  events: notesEvents,
  // The files' outcomes and a refused attach are left out of the state: they change nothing the chart can do next.
  serializeState: ((s: { value: unknown; context: { notes: OpenedNote[]; draft: string; editing: unknown; theirs: OpenedNote | null; refused: string | null } }) =>
    JSON.stringify([
      s.value,
      s.context.notes.map((n) => `${n.id}.${n.version}`),
      s.context.draft.trim() !== '',
      s.context.editing,
      s.context.theirs?.version ?? null,
      s.context.refused,
    ])) as never,
} satisfies MachineModel;
