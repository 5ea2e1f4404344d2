/**
 * The internal notes chart (machines/handler/notes.ts): every model path replayed on a
 * running actor, with its invariants checked at every step.
 */
import { describe, expect, it } from 'vitest';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import notes from './handlerNotes.model.ts';

const output = (e: { type: string }) => (e as unknown as { output?: { status: number; code?: string } }).output;

describe('handlerNotes model', () => {
  const paths = modelPaths(notes);
  it('walks every state and every transition', () => expectFullCoverage(notes, paths));
  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(notes.machine, path, { promiseActors: ['loadNotes', 'addNote', 'saveNote', 'attachFiles', 'saveFile'], recordActions: ['reloadCase', 'reportUnauthorized'], input: notes.input }, (h, step, before) => {
      const s = step.state;
      const e = step.event;
      // Only with text; only a note that opened here is edited, over the version read.
      if (s.matches('adding') && !before.matches('adding')) expect(before.context.draft.trim()).not.toBe('');
      if (s.matches('editing') && before.matches('ready')) {
        const read = before.context.notes.find((n: { id: string }) => n.id === s.context.editing.id);
        expect(read.text).not.toBeNull();
        expect(s.context.editing.version).toBe(read.version);
      }
      if (s.matches('saving')) expect(s.context.editing.text.trim()).not.toBe('');
      // A colleague's newer version: both texts, the own one untouched.
      if (s.matches('conflicted')) {
        expect(s.context.theirs).not.toBeNull();
        expect(s.context.editing.text).toBe(before.context.editing.text);
      }
      if (e.type === 'conflict.keepMine') expect(s.context.editing.version).toBe(before.context.theirs.version);
      if (e.type === 'conflict.takeTheirs') {
        expect(s.context.editing).toBeNull();
        expect(s.context.notes.find((n: { id: string }) => n.id === before.context.theirs.id)).toEqual(before.context.theirs);
      }
      // Every failure of a save keeps the own text; of an add keeps the draft.
      if (before.matches('saving') && s.matches('editing')) expect(s.context.editing.text).toBe(before.context.editing.text);
      if (before.matches('adding') && s.context.refused) expect(s.context.draft).toBe(before.context.draft);
      // The trail shows a save at once; a 401 signs out.
      const out = output(e);
      if ((e.type === 'xstate.done.actor.addNote' || e.type === 'xstate.done.actor.saveNote') && out && [200, 201].includes(out.status)) expect(h.actionLog.at(-1)).toBe('reloadCase');
      if (e.type.startsWith('xstate.done.actor.') && out?.status === 401) expect(h.actionLog.at(-1)).toBe('reportUnauthorized');
      if (!s.matches('editing') && !s.matches('saving') && !s.matches('conflicted')) expect(s.context.editing).toBeNull();
      // Files go only to a note that opened here, at most five at a time.
      if (s.matches('attaching') && !before.matches('attaching')) {
        const target = before.context.notes.find((n: { id: string }) => n.id === s.context.attaching.id);
        expect(target.text).not.toBeNull();
        expect(s.context.attaching.files.length).toBeGreaterThan(0);
        expect(s.context.attaching.files.length).toBeLessThanOrEqual(5);
      }
      if (before.matches('attaching') && e.type === 'xstate.done.actor.attachFiles' && out?.status === 201) {
        // The note as the server answered it (its files added), the draft and any edit untouched.
        expect(s.context.notes.find((n: { id: string }) => n.id === before.context.attaching.id)).toEqual((out as unknown as { note: unknown }).note);
        expect(s.context.draft).toBe(before.context.draft);
        expect(h.actionLog.at(-1)).toBe('reloadCase');
      }
      if (before.matches('attaching') && s.matches('ready') && !(out && out.status === 201)) expect(s.context.refusedFiles?.id).toBe(before.context.attaching.id);
      // Only a file whose name opened is saved; its outcome is kept, never "saving" once back.
      if (s.matches('savingFile') && !before.matches('savingFile')) expect(s.context.notes.flatMap((n: { files: { id: string; name: string | null }[] }) => n.files).find((f: { id: string }) => f.id === s.context.saving).name).not.toBeNull();
      if (before.matches('savingFile') && s.matches('ready')) expect(s.context.fileOutcomes[before.context.saving].outcome).not.toBe('saving');
    });
  });
});
