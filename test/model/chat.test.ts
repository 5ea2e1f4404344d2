/** Walks every transition of the chat composer and replays each path on a running actor. */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, type AnyMachineSnapshot } from 'xstate';
import { chatMachine, type ChatEvent, type PostMessageInput, type UploadFilesInput } from '../../machines/chat.ts';
import model from './chat.model.ts';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage, expectInvariantOnShortestPaths } from './expect.ts';

const paths = modelPaths(model);
const replayOptions = {
  promiseActors: [],
  callbackActors: ['uploadFiles', 'postMessage'],
  callbackEvents: ['upload.progress', 'upload.finished', 'upload.failed', 'post.done'],
  recordActions: ['reloadCase', 'focusComposer', 'reportUnauthorized', 'forgetUploads'],
};

describe('chat composer model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it('holds its invariants on every createTestModel path', async () => {
    await expectInvariantOnShortestPaths(model, (s) => {
      expect(s.context.text.length).toBeLessThanOrEqual(200);
      expect(s.context.files.length).toBeLessThanOrEqual(5);
      if (!s.matches('sending')) expect(s.context.progress).toEqual([]);
      // Told how long to wait exactly while refused for too many messages.
      expect(s.context.retryAfterSeconds !== null).toBe(s.matches({ composing: 'rateLimited' }));
      if (s.matches({ composing: 'rateLimited' })) expect(s.context.retryAfterSeconds).toBeGreaterThan(0);
      if (s.matches('sending')) expect(s.context.progress).toHaveLength(s.context.files.length);
      // The message is posted only once every file arrived, naming their uploads.
      if (s.matches({ sending: 'posting' }) && s.context.files.length) expect(s.context.uploads?.ids).toBeTruthy();
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
        if (had && prev.context.files.length) {
          expect(s.matches({ sending: 'uploading' })).toBe(true);
          expect((h.inputs.get('uploadFiles')!.at(-1) as UploadFilesInput).files).toEqual(prev.context.files);
        } else if (had) {
          expect(s.matches({ sending: 'posting' })).toBe(true);
          expect(h.inputs.get('postMessage')!.at(-1) as PostMessageInput).toEqual({ message: prev.context.text.trim(), uploads: null });
        }
      }
      if (step.event.type === 'upload.finished' && prev.matches({ sending: 'uploading' })) {
        expect(s.matches({ sending: 'posting' })).toBe(true);
        expect(h.inputs.get('postMessage')!.at(-1) as PostMessageInput).toEqual({ message: prev.context.text.trim(), uploads: { session: 'S', ids: ['u1'] } });
      }
      const outcome = step.event.type === 'post.done' || step.event.type === 'upload.failed' ? (step.event as unknown as { type: string; status: number; code?: string; retryAfterSeconds?: number }) : null;
      if (outcome && prev.matches('sending') && (outcome.type === 'post.done' ? prev.matches({ sending: 'posting' }) : prev.matches({ sending: 'uploading' }))) {
        if (outcome.status === 201) {
          expect(s.context.text).toBe('');
          expect(s.context.files).toEqual([]);
          expect(h.actionLog.slice(-3)).toEqual(['forgetUploads', 'focusComposer', 'reloadCase']);
        } else {
          // a failed send keeps the draft
          expect(s.context.text).toBe(prev.context.text);
          expect(s.context.files).toEqual(prev.context.files);
          if (outcome.status === 429) {
            // Too many messages: kept like a failure, with the server's wait (a minute when it named none).
            expect(s.matches({ composing: 'rateLimited' })).toBe(true);
            expect(s.context.retryAfterSeconds).toBe(outcome.retryAfterSeconds ?? 60);
          } else {
            expect(s.matches({ composing: 'failed' })).toBe(true);
          }
          // Only the reporter's sign-in goes to the session; a lost upload session is forgotten.
          expect(h.actionLog.at(-1) === 'reportUnauthorized').toBe(outcome.code === 'UNAUTHORIZED');
          expect(h.actionLog.at(-1) === 'forgetUploads').toBe(outcome.code?.startsWith('UPLOAD_SESSION') ?? false);
        }
      }
    });
  });

  it('tracks per-file progress with speed, time left and retrying, and ignores files beyond five and disallowed types', async () => {
    let send: ((e: ChatEvent) => void) | undefined;
    const actor = createActor(
      chatMachine.provide({ actors: { uploadFiles: fromCallback(({ sendBack }) => void (send = sendBack)) } }),
    ).start();
    actor.send({ type: 'files.add', files: [{ name: 'virus.exe', size: 1 }, { name: 'a.pdf', size: 100 }] });
    expect(actor.getSnapshot().context.files.map((f) => f.name)).toEqual(['a.pdf']);
    actor.send({ type: 'files.add', files: ['b', 'c', 'd', 'e', 'f'].map((n) => ({ name: `${n}.png`, size: 120 })) });
    expect(actor.getSnapshot().context.files.map((f) => f.name)).toEqual(['a.pdf', 'b.png', 'c.png', 'd.png', 'e.png']);
    actor.send({ type: 'message.send' });
    send!({ type: 'upload.progress', index: 1, loaded: 30, total: 120, bytesPerSecond: 10, secondsLeft: 9 });
    expect(actor.getSnapshot().context.progress[1]).toEqual({ loaded: 30, total: 120, bytesPerSecond: 10, secondsLeft: 9, retrying: false });
    expect(actor.getSnapshot().context.progress[0]).toEqual({ loaded: 0, total: 100, bytesPerSecond: null, secondsLeft: null, retrying: false });
    send!({ type: 'upload.progress', index: 1, loaded: 30, total: 120, retrying: true });
    expect(actor.getSnapshot().context.progress[1]!.retrying).toBe(true);
    actor.stop();
  });

  it('names each chosen file it did not add, with why, until the next choice or removal (issue 42)', () => {
    const actor = createActor(chatMachine).start();
    actor.send({ type: 'files.add', files: [{ name: 'virus.exe', size: 1 }, { name: 'a.pdf', size: 100 }, { name: 'huge.mp4', size: 3 * 1024 ** 3 }] });
    expect(actor.getSnapshot().context.rejectedFiles).toEqual([
      { name: 'virus.exe', reason: 'type' },
      { name: 'huge.mp4', reason: 'tooLarge' },
    ]);
    actor.send({ type: 'files.add', files: ['b', 'c', 'd', 'e', 'f'].map((n) => ({ name: `${n}.png`, size: 120 })) });
    expect(actor.getSnapshot().context.rejectedFiles).toEqual([{ name: 'f.png', reason: 'tooMany' }]);
    actor.send({ type: 'file.remove', index: 0 });
    expect(actor.getSnapshot().context.rejectedFiles).toEqual([]);
    actor.stop();
  });
});
