/** Walks every transition of the hidden-data check and replays each path on a running actor. */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor, type AnyMachineSnapshot } from 'xstate';
import { fileCheckMachine, fileToSend, type CheckedFile, type CleanResult, type FileCheckSnapshot, type InspectResult } from '../../machines/fileCheck.ts';
import model from './fileCheck.model.ts';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage, expectInvariantOnShortestPaths } from './expect.ts';

const paths = modelPaths(model);
const replayOptions = { promiseActors: ['inspectFile', 'cleanFile'], recordActions: [], input: model.input };

function invariants(s: FileCheckSnapshot) {
  // The original is kept only by an identified reporter.
  if (s.matches({ found: 'keptOriginal' })) expect(s.context.identified).toBe(true);
  // A file with findings is never settled on the original unless the reporter chose it or cleaning failed.
  const send = fileToSend(s);
  if (s.matches({ found: 'cleaned' })) expect(send).toBe(s.context.cleaned);
  if (s.matches('checking') || s.matches({ found: 'cleaning' })) expect(send).toBeNull();
}

describe('file check model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it('holds its invariants on every createTestModel path', async () => {
    await expectInvariantOnShortestPaths(model, (s) => invariants(s as FileCheckSnapshot));
  });

  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(fileCheckMachine, path, replayOptions, (_h, step, prev) => {
      const s = step.state as AnyMachineSnapshot as FileCheckSnapshot;
      invariants(s);
      if (step.event.type === 'original.keep' && prev.matches({ found: 'cleaned' })) {
        expect(s.matches({ found: 'keptOriginal' })).toBe(prev.context.identified);
      }
      if (step.event.type === 'xstate.done.actor.inspectFile' && (step.event as any).output.findings.length > 0) {
        // Removal is the default: no choice is asked before cleaning starts.
        expect(s.matches({ found: 'cleaning' })).toBe(true);
      }
    });
  });

  it('runs with real actors: findings → cleaned copy; identified keeps the original, anonymous gets the copy back', async () => {
    const original = { name: 'a.jpg', size: 10, type: 'image/jpeg' };
    const copy = { name: 'a.jpg', size: 6, type: 'image/jpeg' };
    const actor = createActor(
      fileCheckMachine.provide({
        actors: {
          inspectFile: fromPromise<InspectResult, { file: CheckedFile }>(async () => ({ checkable: true, findings: [{ kind: 'location' }] })),
          cleanFile: fromPromise<CleanResult, { file: CheckedFile }>(async () => ({ file: copy, removed: ['location'] })),
        },
      }),
      { input: { file: original, identified: false } },
    ).start();
    await waitFor(actor, (s) => s.hasTag('settled'));
    expect(fileToSend(actor.getSnapshot())).toBe(copy);
    actor.send({ type: 'original.keep' });
    expect(fileToSend(actor.getSnapshot())).toBe(copy);
    actor.send({ type: 'identity.change', identified: true });
    actor.send({ type: 'original.keep' });
    expect(fileToSend(actor.getSnapshot())).toBe(original);
    actor.send({ type: 'identity.change', identified: false });
    expect(fileToSend(actor.getSnapshot())).toBe(copy);
    expect(actor.getSnapshot().context.removed).toEqual(['location']);
  });
});
