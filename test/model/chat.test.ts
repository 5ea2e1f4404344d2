/** Walks every transition of the chat composer and replays each path on a running actor. */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type AnyMachineSnapshot } from 'xstate';
import { chatMachine, type ChatEvent, type UploadInput } from '../../machines/chat.ts';
import model from './chat.model.ts';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage, expectInvariantOnShortestPaths } from './expect.ts';

const paths = modelPaths(model);
const replayOptions = {
  promiseActors: [],
  callbackActors: ['uploadMessage'],
  callbackEvents: ['upload.progress', 'upload.done'],
  recordActions: ['reloadCase', 'focusComposer', 'reportUnauthorized'],
};

describe('chat composer model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it('holds its invariants on every createTestModel path', async () => {
    await expectInvariantOnShortestPaths(model, (s) => {
      expect(s.context.text.length).toBeLessThanOrEqual(200);
      expect(s.context.files.length).toBeLessThanOrEqual(5);
      if (!s.matches('sending')) expect(s.context.loaded).toBe(0);
    });
  });

  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(chatMachine, path, replayOptions, (h, step, prev) => {
      const s = step.state as AnyMachineSnapshot;
      expect(s.context.text.length).toBeLessThanOrEqual(200);
      expect(s.context.files.length).toBeLessThanOrEqual(5);
      if (step.event.type === 'message.send') {
        const had = prev.context.text.trim() !== '' || prev.context.files.length > 0;
        expect(s.matches('sending')).toBe(had);
        if (had) {
          const input = h.inputs.get('uploadMessage')!.at(-1) as UploadInput;
          expect(input.message).toBe(prev.context.text.trim());
          expect(input.files).toEqual(prev.context.files);
        }
      }
      if (step.event.type === 'upload.done') {
        const status = (step.event as unknown as { status: number }).status;
        if (status === 201) {
          expect(s.context.text).toBe('');
          expect(s.context.files).toEqual([]);
          expect(h.actionLog.slice(-2)).toEqual(['focusComposer', 'reloadCase']);
        } else {
          // a failed send keeps the draft
          expect(s.context.text).toBe(prev.context.text);
          expect(s.context.files).toEqual(prev.context.files);
          expect(s.matches({ composing: 'failed' })).toBe(true);
          expect(h.actionLog.includes('reportUnauthorized')).toBe(status === 401);
        }
      }
    });
  });

  it('tracks upload progress and ignores files beyond five and disallowed types', async () => {
    let send: ((e: ChatEvent) => void) | undefined;
    const actor = createActor(
      chatMachine.provide({ actors: { uploadMessage: fromCallback(({ sendBack }) => void (send = sendBack)) } }),
    ).start();
    actor.send({ type: 'files.add', files: [{ name: 'virus.exe', size: 1 }, { name: 'a.pdf', size: 1 }] });
    expect(actor.getSnapshot().context.files.map((f) => f.name)).toEqual(['a.pdf']);
    actor.send({ type: 'files.add', files: ['b', 'c', 'd', 'e', 'f'].map((n) => ({ name: `${n}.png`, size: 1 })) });
    expect(actor.getSnapshot().context.files.map((f) => f.name)).toEqual(['a.pdf', 'b.png', 'c.png', 'd.png', 'e.png']);
    actor.send({ type: 'message.send' });
    send!({ type: 'upload.progress', loaded: 30, total: 120 });
    expect(actor.getSnapshot().context).toMatchObject({ loaded: 30, total: 120 });
    actor.stop();
  });
});
