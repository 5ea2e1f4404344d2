/**
 * Saving a sealed case's file (machines/sealedFileSave.ts): the invariants on every
 * walked path (coverage: test/model/coverage.test.ts), and runs with real actors.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { sealedFileSaveMachine, type SaveOutcome, type SaveTarget } from '../../machines/sealedFileSave.ts';
import model from './sealedFileSave.model.ts';
import { modelPaths } from './harness.ts';

const file: SaveTarget = { id: 'f1', name: 'answer.pdf', plainSize: 10 };

describe('sealed file save: model', () => {
  const paths = modelPaths(model);
  it('names the file wherever it is saving, saved or failed; never without one', () => {
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      for (const step of path.steps) {
        const s = step.state;
        if (!s.matches('idle')) expect(s.context.file?.name).toBe('answer.pdf');
        // The context holds the reference only, never bytes.
        expect(Object.keys(s.context.file ?? {}).sort()).toEqual(s.context.file ? ['id', 'name', 'plainSize'] : []);
      }
    }
  });
  it('starts no second save while one runs', () => {
    const actor = createActor(sealedFileSaveMachine.provide({ actors: { saveFile: fromPromise<SaveOutcome, SaveTarget>(() => new Promise(() => {})) } })).start();
    actor.send({ type: 'file.save', file });
    expect(actor.getSnapshot().can({ type: 'file.save', file: { ...file, id: 'f2' } })).toBe(false);
    expect(actor.getSnapshot().context.file?.id).toBe('f1');
  });
});

describe('sealed file save: with actors', () => {
  const run = (save: (f: SaveTarget) => Promise<SaveOutcome>) => createActor(sealedFileSaveMachine.provide({ actors: { saveFile: fromPromise<SaveOutcome, SaveTarget>(({ input }) => save(input)) } })).start();
  it('saved, then another file', async () => {
    const seen: string[] = [];
    const actor = run(async (f) => (seen.push(f.id), 'saved'));
    actor.send({ type: 'file.save', file });
    await waitFor(actor, (s) => s.matches('saved'));
    actor.send({ type: 'file.save', file: { ...file, id: 'f2' } });
    await waitFor(actor, (s) => s.matches('saved') && s.context.file?.id === 'f2');
    expect(seen).toEqual(['f1', 'f2']);
  });
  it('a closed picker goes back to idle; a file that does not open is failed', async () => {
    const closed = run(async () => 'cancelled');
    closed.send({ type: 'file.save', file });
    await waitFor(closed, (s) => s.matches('idle'));
    const broken = run(async () => {
      throw new Error('tag');
    });
    broken.send({ type: 'file.save', file });
    expect((await waitFor(broken, (s) => s.matches('failed'))).context.file?.name).toBe('answer.pdf');
  });
});
