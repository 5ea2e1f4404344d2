/**
 * The voice recorder's invariants on every walked path (the model and its variants
 * together reach 100 %: test/model/coverage.test.ts), and a run with real actors per
 * disguise policy.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor, type AnyMachineSnapshot } from 'xstate';
import { chosenClip, voiceRecorderMachine, type CaptureCommand, type CaptureInput, type VoiceClip } from '../../machines/voiceRecorder.ts';
import model, { variants } from './voiceRecorder.model.ts';
import { modelPaths } from './harness.ts';

function invariants(s: AnyMachineSnapshot) {
  const c = s.context;
  // What is recorded follows the policy.
  if (c.policy === 'always') expect(c.original).toBeNull();
  if (c.policy === 'never') expect(c.disguised).toBeNull();
  // Only "the reporter chooses" lets the reporter pick the own voice.
  if (c.policy !== 'choice') expect(c.sendDisguised).toBe(true);
  // The clock never passes the limit.
  expect(c.elapsed).toBeLessThanOrEqual(c.maxSeconds);
  // Once attached, only the sent clip is still held.
  if (s.matches('attached')) expect([c.disguised, c.original].filter(Boolean)).toHaveLength(1);
  // No recorder runs where recording cannot work.
  if (!c.supported) expect(s.matches('unsupported')).toBe(true);
}

describe.each([model, ...variants].map((m) => [`${m.input && (m.input as { disguise: string }).disguise}${(m.input as { supported: boolean }).supported ? '' : ' (unsupported)'}`, m] as const))(
  'voice recorder, policy %s',
  (_name, m) => {
    const paths = modelPaths(m);
    it('holds its invariants at every step of every path', () => {
      for (const path of paths) for (const step of path.steps) invariants(step.state);
    });
  },
);

function run(disguise: 'always' | 'choice' | 'never') {
  const delivered: VoiceClip[] = [];
  const released: VoiceClip[] = [];
  let asked = 0;
  let captureInput: CaptureInput | null = null;
  const clip = (disguised: boolean): VoiceClip => ({ url: `blob:${disguised}`, data: null, size: 10, mimeType: 'audio/webm', disguised });
  const actor = createActor(
    voiceRecorderMachine.provide({
      actors: {
        openMicrophone: fromPromise<unknown>(async () => {
          asked++;
          return 'stream';
        }),
        capture: fromCallback<CaptureCommand, CaptureInput>(({ input, receive, sendBack }) => {
          captureInput = input;
          receive((cmd) => {
            if (cmd.type === 'stop') sendBack({ type: 'capture.finished', disguised: input.disguised ? clip(true) : null, original: input.original ? clip(false) : null });
          });
        }),
      },
      actions: {
        deliverClip: (_, p) => void delivered.push(p.clip),
        releaseClips: (_, p) => void released.push(...p.clips),
      },
    }),
    { input: { maxMinutes: 10, disguise, supported: true } },
  ).start();
  return { actor, delivered, released, asked: () => asked, captureInput: () => captureInput };
}

describe('with real actors', () => {
  it('asks for the microphone only on start', async () => {
    const r = run('choice');
    expect(r.asked()).toBe(0);
    r.actor.send({ type: 'recording.start' });
    await waitFor(r.actor, (s) => s.matches('capturing'));
    expect(r.asked()).toBe(1);
  });

  it('"always": only the disguised voice is recorded, no choice, the disguised clip is sent', async () => {
    const r = run('always');
    r.actor.send({ type: 'recording.start' });
    await waitFor(r.actor, (s) => s.matches('capturing'));
    expect(r.captureInput()).toMatchObject({ disguised: true, original: false });
    r.actor.send({ type: 'recording.stop' });
    await waitFor(r.actor, (s) => s.matches('reviewing'));
    expect(r.actor.getSnapshot().can({ type: 'voice.choose', disguised: false })).toBe(false);
    r.actor.send({ type: 'recording.attach' });
    expect(r.delivered.map((c) => c.disguised)).toEqual([true]);
  });

  it('"choice": both are recorded; choosing the own voice sends it and releases the disguised one at once', async () => {
    const r = run('choice');
    r.actor.send({ type: 'recording.start' });
    await waitFor(r.actor, (s) => s.matches('capturing'));
    expect(r.captureInput()).toMatchObject({ disguised: true, original: true });
    r.actor.send({ type: 'recording.pause' });
    r.actor.send({ type: 'recording.resume' });
    r.actor.send({ type: 'recording.stop' });
    await waitFor(r.actor, (s) => s.matches('reviewing'));
    expect(chosenClip(r.actor.getSnapshot().context)?.disguised).toBe(true);
    r.actor.send({ type: 'voice.choose', disguised: false });
    r.actor.send({ type: 'recording.attach' });
    expect(r.delivered.map((c) => c.disguised)).toEqual([false]);
    expect(r.released.map((c) => c.disguised)).toEqual([true]);
  });

  it('"never": only the own voice is recorded and sent', async () => {
    const r = run('never');
    r.actor.send({ type: 'recording.start' });
    await waitFor(r.actor, (s) => s.matches('capturing'));
    expect(r.captureInput()).toMatchObject({ disguised: false, original: true });
    r.actor.send({ type: 'recording.stop' });
    await waitFor(r.actor, (s) => s.matches('reviewing'));
    r.actor.send({ type: 'recording.attach' });
    expect(r.delivered.map((c) => c.disguised)).toEqual([false]);
  });

  it('discarding asks first and then releases every clip', async () => {
    const r = run('choice');
    r.actor.send({ type: 'recording.start' });
    await waitFor(r.actor, (s) => s.matches('capturing'));
    r.actor.send({ type: 'recording.stop' });
    await waitFor(r.actor, (s) => s.matches('reviewing'));
    r.actor.send({ type: 'recording.discard' });
    expect(r.actor.getSnapshot().matches('discarding')).toBe(true);
    expect(r.released).toHaveLength(0);
    r.actor.send({ type: 'discard.confirm' });
    expect(r.actor.getSnapshot().matches('idle')).toBe(true);
    expect(r.released).toHaveLength(2);
  });
});
