/**
 * Model of the voice recorder (machines/voiceRecorder.ts): each disguise policy, the
 * microphone granted, refused, missing or failing, pause and resume, the limit reached
 * by the chart's own clock (two seconds here), review with and without a choice,
 * attach, and discarding from review and from attached, confirmed and cancelled.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { voiceRecorderMachine, type VoiceClip } from '../../machines/voiceRecorder.ts';
import type { MachineModel } from './harness.ts';

const clip = (disguised: boolean): VoiceClip => ({ url: `blob:${disguised ? 'd' : 'o'}`, data: null, size: 1000, mimeType: 'audio/webm', disguised });

export const voiceEvents = (s: AnyMachineSnapshot): (EventObject & Record<string, unknown>)[] => {
  const policy = s.context.policy as string;
  return [
    { type: 'recording.start' },
    { type: 'xstate.done.actor.openMicrophone', output: { stream: 'mic' } },
    { type: 'xstate.error.actor.openMicrophone', error: { name: 'NotAllowedError' } },
    { type: 'xstate.error.actor.openMicrophone', error: { name: 'NotFoundError' } },
    { type: 'xstate.error.actor.openMicrophone', error: { name: 'AbortError' } },
    { type: 'xstate.after.SECOND.voiceRecorder.capturing.recording' },
    { type: 'recording.pause' },
    { type: 'recording.resume' },
    { type: 'recording.stop' },
    { type: 'capture.level', level: 0.5 },
    {
      type: 'capture.finished',
      disguised: policy === 'never' ? null : clip(true),
      original: policy === 'always' ? null : clip(false),
    },
    { type: 'capture.finished', disguised: null, original: null },
    { type: 'capture.failed' },
    { type: 'voice.choose', disguised: false },
    { type: 'voice.choose', disguised: true },
    { type: 'recording.attach' },
    { type: 'recording.discard' },
    { type: 'discard.confirm' },
    { type: 'discard.cancel' },
  ];
};

const serialize = (s: AnyMachineSnapshot) =>
  JSON.stringify({ v: s.value, e: s.context.elapsed, d: !!s.context.disguised, o: !!s.context.original, c: s.context.sendDisguised, l: s.context.reachedLimit, p: s.context.problem });

const model = (disguise: 'always' | 'choice' | 'never', supported = true): MachineModel => ({
  name: 'voiceRecorder',
  machine: voiceRecorderMachine,
  input: { maxMinutes: 2 / 60, disguise, supported },
  events: voiceEvents,
  serializeState: serialize,
});

export default model('choice');
export const variants = [model('always'), model('never'), model('choice', false)];
