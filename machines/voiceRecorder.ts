/**
 * A voice message recorded in the browser (issue 40, docs/decisions/voice-messages.md):
 * asked for the microphone, recorded with a level meter and the time elapsed, paused
 * and resumed, stopped by the reporter or at the company's maximum length, heard back
 * (the disguised voice, and with "the reporter chooses" their own voice beside it),
 * then attached to the report or message, or discarded after a confirmation.
 *
 * Invariants:
 * - The microphone is asked for only on `recording.start`, never on opening: a company
 *   without voice messages never renders this chart, so never asks.
 * - Where recording cannot work (no getUserMedia, Web Audio or MediaRecorder: Tor
 *   Browser; no microphone; a failure midway) the chart ends in `unsupported` or
 *   `failed`, and the view points to the phone line, a meeting and the text box.
 * - The disguise policy decides what is recorded: `always` the disguised voice only,
 *   `never` the own voice only, `choice` both, the disguised one chosen unless the
 *   reporter chooses otherwise (`voice.choose` is accepted only then).
 * - Only the chosen clip leaves the chart (`deliverClip` on `recording.attach`); the
 *   other is released at once (`releaseClip`), and every clip is released on discard.
 *   Clips live in memory only: the effects never write them to any storage.
 * - Time is counted by the chart itself (`after: SECOND` while `recording`, not while
 *   `paused`); on reaching `maxSeconds` the chart stops the recording itself.
 * - Effects (`openMicrophone`, `capture`, `deliverClip`, `withdrawClip`,
 *   `releaseClips`) are supplied with `.provide()` by the view layer (src/voice/).
 */
import { assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { VoiceDisguisePolicy } from './schema.ts';

/** One recorded take, held in memory by the effects: `url` plays it, `data` is its bytes (a Blob in the browser). */
export interface VoiceClip {
  url: string;
  data: unknown;
  size: number;
  mimeType: string;
  disguised: boolean;
}

export interface VoiceRecorderInput {
  maxMinutes: number;
  disguise: VoiceDisguisePolicy;
  /** The browser has what recording needs (getUserMedia, MediaRecorder, and for a disguise Web Audio with AudioWorklet). */
  supported: boolean;
}

/** What the capture effect is asked to record. */
export interface CaptureInput {
  microphone: unknown;
  disguised: boolean;
  original: boolean;
}

/** Why there is no recording: refused is `permissionRefused`; these are the rest. */
export type VoiceProblem = 'unsupported' | 'noMicrophone' | 'failed';

export interface VoiceRecorderContext {
  maxSeconds: number;
  policy: VoiceDisguisePolicy;
  supported: boolean;
  microphone: unknown;
  elapsed: number;
  /** The input level, 0 to 1, for the meter. */
  level: number;
  disguised: VoiceClip | null;
  original: VoiceClip | null;
  /** The reporter's choice with `choice`: send the disguised voice (the default). */
  sendDisguised: boolean;
  reachedLimit: boolean;
  problem: VoiceProblem | null;
}

export type VoiceRecorderEvent =
  | { type: 'recording.start' }
  | { type: 'recording.pause' }
  | { type: 'recording.resume' }
  | { type: 'recording.stop' }
  | { type: 'recording.attach' }
  | { type: 'recording.discard' }
  | { type: 'discard.confirm' }
  | { type: 'discard.cancel' }
  | { type: 'voice.choose'; disguised: boolean }
  /** From the capture effect. */
  | { type: 'capture.level'; level: number }
  | { type: 'capture.finished'; disguised: VoiceClip | null; original: VoiceClip | null }
  | { type: 'capture.failed' };

/** Commands the chart sends to the capture effect. */
export type CaptureCommand = { type: 'pause' } | { type: 'resume' } | { type: 'stop' };

/** A refusal of the microphone (NotAllowedError / SecurityError) rather than its absence. */
export function isRefusalError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError';
}

/** The clip that would be sent: the disguised one unless the policy or the reporter's choice says the own voice. */
export function chosenClip(c: Pick<VoiceRecorderContext, 'policy' | 'sendDisguised' | 'disguised' | 'original'>): VoiceClip | null {
  if (c.policy === 'always') return c.disguised;
  if (c.policy === 'never') return c.original;
  return c.sendDisguised ? c.disguised : c.original;
}

const allClips = (c: VoiceRecorderContext): VoiceClip[] => [c.disguised, c.original].filter((x): x is VoiceClip => x !== null);
const unchosenClips = (c: VoiceRecorderContext): VoiceClip[] => allClips(c).filter((x) => x !== chosenClip(c));

export const voiceRecorderMachine = setup({
  types: {} as { context: VoiceRecorderContext; events: VoiceRecorderEvent; input: VoiceRecorderInput },
  actors: {
    openMicrophone: fromPromise<unknown>(async () => {
      throw new Error('openMicrophone not provided');
    }),
    capture: fromCallback<CaptureCommand, CaptureInput>(() => {
      throw new Error('capture not provided');
    }),
  },
  actions: {
    /** Gives the chosen clip to the report or the message (the view sends `voice.attach` there). */
    deliverClip: (_, _params: { clip: VoiceClip }) => {},
    /** Takes an attached clip back out of the report or message. */
    withdrawClip: () => {},
    /** Frees clips' memory and their playback URLs. */
    releaseClips: (_, _params: { clips: VoiceClip[] }) => {},
    assignMicrophone: assign({ microphone: (_, params: { microphone: unknown }) => params.microphone }),
    assignProblem: assign({ problem: (_, params: { problem: VoiceProblem }) => params.problem }),
    startClock: assign({ elapsed: 0, level: 0, reachedLimit: false, problem: null }),
    addSecond: assign({ elapsed: ({ context }) => context.elapsed + 1 }),
    assignLevel: assign({ level: ({ event }) => (event.type === 'capture.level' ? Math.max(0, Math.min(1, event.level)) : 0) }),
    markLimit: assign({ reachedLimit: true }),
    assignClips: assign(({ event }) =>
      event.type === 'capture.finished' ? { disguised: event.disguised, original: event.original, microphone: null, level: 0, sendDisguised: true } : {},
    ),
    assignChoice: assign({ sendDisguised: ({ context, event }) => (event.type === 'voice.choose' ? event.disguised : context.sendDisguised) }),
    /** Keeps only the chosen clip in context (the other is released by `releaseClips`). */
    keepChosen: assign(({ context }) => {
      const chosen = chosenClip(context);
      return { disguised: chosen?.disguised ? chosen : null, original: chosen && !chosen.disguised ? chosen : null };
    }),
    forgetClips: assign({ disguised: null, original: null, elapsed: 0, level: 0, reachedLimit: false, sendDisguised: true }),
    pauseCapture: sendTo('capture', { type: 'pause' } satisfies CaptureCommand),
    resumeCapture: sendTo('capture', { type: 'resume' } satisfies CaptureCommand),
    stopCapture: sendTo('capture', { type: 'stop' } satisfies CaptureCommand),
  },
  guards: {
    isSupported: ({ context }) => context.supported,
    isRefusal: ({ event }) => isRefusalError((event as { error?: unknown }).error),
    isMicrophoneMissing: ({ event }) => {
      const name = ((event as { error?: { name?: unknown } }).error ?? {}).name;
      return name === 'NotFoundError' || name === 'NotReadableError' || name === 'OverconstrainedError';
    },
    isLastSecond: ({ context }) => context.elapsed + 1 >= context.maxSeconds,
    isChoiceOffered: ({ context }) => context.policy === 'choice',
    hasClip: ({ context }) => chosenClip(context) !== null,
    hasNoClips: ({ context }) => !context.disguised && !context.original,
  },
  delays: {
    SECOND: 1000,
  },
}).createMachine({
  id: 'voiceRecorder',
  context: ({ input }) => ({
    maxSeconds: Math.max(1, Math.round(input.maxMinutes * 60)),
    policy: input.disguise,
    supported: input.supported,
    microphone: null,
    elapsed: 0,
    level: 0,
    disguised: null,
    original: null,
    sendDisguised: true,
    reachedLimit: false,
    problem: null,
  }),
  initial: 'checking',
  states: {
    checking: {
      always: [{ guard: 'isSupported', target: 'idle' }, { target: 'unsupported', actions: { type: 'assignProblem', params: { problem: 'unsupported' } } }],
    },
    idle: {
      on: { 'recording.start': 'askingPermission' },
    },
    askingPermission: {
      tags: ['busy'],
      invoke: {
        id: 'openMicrophone',
        src: 'openMicrophone',
        onDone: { target: 'capturing', actions: { type: 'assignMicrophone', params: ({ event }) => ({ microphone: event.output }) } },
        onError: [
          { guard: 'isRefusal', target: 'permissionRefused' },
          { guard: 'isMicrophoneMissing', target: 'failed', actions: { type: 'assignProblem', params: { problem: 'noMicrophone' } } },
          { target: 'failed', actions: { type: 'assignProblem', params: { problem: 'failed' } } },
        ],
      },
    },
    permissionRefused: {
      on: { 'recording.start': 'askingPermission' },
    },
    capturing: {
      entry: 'startClock',
      invoke: {
        id: 'capture',
        src: 'capture',
        input: ({ context }) => ({ microphone: context.microphone, disguised: context.policy !== 'never', original: context.policy !== 'always' }),
      },
      on: {
        'capture.level': { actions: 'assignLevel' },
        'capture.finished': { target: 'reviewing', actions: 'assignClips' },
        'capture.failed': { target: 'failed', actions: { type: 'assignProblem', params: { problem: 'failed' } } },
      },
      initial: 'recording',
      states: {
        recording: {
          tags: ['live'],
          after: {
            SECOND: [
              { guard: 'isLastSecond', target: 'limitReached', actions: 'addSecond' },
              { target: 'recording', reenter: true, actions: 'addSecond' },
            ],
          },
          on: {
            'recording.pause': { target: 'paused', actions: 'pauseCapture' },
            'recording.stop': 'stopping',
          },
        },
        paused: {
          tags: ['live'],
          on: {
            'recording.resume': { target: 'recording', actions: 'resumeCapture' },
            'recording.stop': 'stopping',
          },
        },
        stopping: {
          tags: ['busy'],
          entry: 'stopCapture',
        },
        limitReached: {
          tags: ['busy'],
          entry: ['markLimit', 'stopCapture'],
        },
      },
    },
    reviewing: {
      // The recorders gave nothing back (an encoder that failed): nothing to review.
      always: { guard: 'hasNoClips', target: 'failed', actions: { type: 'assignProblem', params: { problem: 'failed' } } },
      on: {
        'voice.choose': { guard: 'isChoiceOffered', actions: 'assignChoice' },
        'recording.attach': {
          guard: 'hasClip',
          target: 'attached',
          actions: [
            { type: 'deliverClip', params: ({ context }) => ({ clip: chosenClip(context)! }) },
            { type: 'releaseClips', params: ({ context }) => ({ clips: unchosenClips(context) }) },
            'keepChosen',
          ],
        },
        'recording.discard': 'discarding.fromReview',
      },
    },
    discarding: {
      initial: 'fromReview',
      states: {
        fromReview: {
          on: {
            'discard.confirm': { target: '#voiceRecorder.idle', actions: [{ type: 'releaseClips', params: ({ context }) => ({ clips: allClips(context) }) }, 'forgetClips'] },
            'discard.cancel': '#voiceRecorder.reviewing',
          },
        },
        fromAttached: {
          on: {
            'discard.confirm': {
              target: '#voiceRecorder.idle',
              actions: ['withdrawClip', { type: 'releaseClips', params: ({ context }) => ({ clips: allClips(context) }) }, 'forgetClips'],
            },
            'discard.cancel': '#voiceRecorder.attached',
          },
        },
      },
    },
    attached: {
      on: { 'recording.discard': 'discarding.fromAttached' },
    },
    failed: {
      on: { 'recording.start': 'askingPermission' },
    },
    unsupported: {},
  },
});
