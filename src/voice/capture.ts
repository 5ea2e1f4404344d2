/**
 * The recorder's effects (machines/voiceRecorder.ts), supplied with `.provide()`:
 * the microphone, the Web Audio graph that disguises the voice as it is spoken, the
 * MediaRecorders that encode it, the screen wake lock, and the clips' release.
 *
 * The graph: microphone → AudioWorkletNode('voice-disguise') → MediaStreamDestination
 * → MediaRecorder (Opus in WebM where the browser has it). The disguised stream is
 * what is encoded; the undisguised signal is encoded only when the company lets the
 * reporter choose (to hear it back) or never disguises. Every encoded chunk stays in
 * this page's memory (an array of Blobs), never in any browser storage, and a clip not
 * sent is released when the reporter attaches the other or discards both.
 */
import { fromCallback, fromPromise } from 'xstate';
import type { CaptureCommand, CaptureInput, VoiceClip, VoiceRecorderEvent } from '../../machines/voiceRecorder.ts';
import { drawDisguiseParams } from '../../core/voice/disguise.ts';
import { recordingFormat } from './support.ts';
import workletUrl from './worklet.ts?worker&url';

/** Noise suppression on (it removes identifying background sound), automatic gain off (it would pump the level). */
export const MICROPHONE_CONSTRAINTS: MediaStreamConstraints = {
  audio: { noiseSuppression: true, autoGainControl: false, echoCancellation: true, channelCount: 1 },
  video: false,
};

/** Uniform numbers from the platform's CSPRNG: a recording's warp is never guessable from another's. */
function cryptoRandom(): number {
  const a = new Uint32Array(1);
  crypto.getRandomValues(a);
  return a[0]! / 2 ** 32;
}

export const openMicrophone = fromPromise<unknown>(async () => navigator.mediaDevices.getUserMedia(MICROPHONE_CONSTRAINTS));

interface Take {
  disguised: boolean;
  recorder: MediaRecorder;
  chunks: Blob[];
}

export const capture = fromCallback<CaptureCommand, CaptureInput>(({ input, receive, sendBack }) => {
  const stream = input.microphone as MediaStream;
  const send = (e: VoiceRecorderEvent) => sendBack(e);
  const format = recordingFormat();
  let context: AudioContext | null = null;
  let wakeLock: { release(): Promise<void> } | null = null;
  let stopped = false;
  let paused = false;
  const takes: Take[] = [];

  const fail = () => {
    if (stopped) return;
    stopped = true;
    send({ type: 'capture.failed' });
  };

  const start = async () => {
    if (!format) throw new Error('no recording format');
    context = new AudioContext();
    await context.audioWorklet.addModule(workletUrl);
    if (stopped) return;
    const source = context.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(context, 'voice-disguise', {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      channelCount: 1,
      channelCountMode: 'explicit',
      processorOptions: { params: drawDisguiseParams(cryptoRandom), disguise: input.disguised },
    });
    node.port.onmessage = (m: MessageEvent<number>) => send({ type: 'capture.level', level: m.data });
    source.connect(node);
    const destination = context.createMediaStreamDestination();
    node.connect(destination);
    const options = { mimeType: format.mimeType, audioBitsPerSecond: 32_000 };
    if (input.disguised) takes.push({ disguised: true, recorder: new MediaRecorder(destination.stream, options), chunks: [] });
    if (input.original) takes.push({ disguised: false, recorder: new MediaRecorder(stream, options), chunks: [] });
    for (const take of takes) {
      take.recorder.ondataavailable = (e) => {
        if (e.data.size) take.chunks.push(e.data);
      };
      take.recorder.onerror = fail;
      take.recorder.start(1000);
      if (paused) take.recorder.pause();
    }
    for (const track of stream.getAudioTracks()) track.addEventListener('ended', fail);
    wakeLock = await (navigator as Navigator & { wakeLock?: { request(t: 'screen'): Promise<{ release(): Promise<void> }> } }).wakeLock
      ?.request('screen')
      .catch(() => null) ?? null;
  };

  const finish = async () => {
    await Promise.all(
      takes.map(
        (take) =>
          new Promise<void>((resolve) => {
            if (take.recorder.state === 'inactive') return resolve();
            take.recorder.onstop = () => resolve();
            take.recorder.stop();
          }),
      ),
    );
    const clip = (disguised: boolean): VoiceClip | null => {
      const take = takes.find((t) => t.disguised === disguised);
      if (!take || !take.chunks.length || !format) return null;
      const blob = new Blob(take.chunks, { type: format.fileType });
      take.chunks.length = 0;
      return { url: URL.createObjectURL(blob), data: blob, size: blob.size, mimeType: format.fileType, disguised };
    };
    send({ type: 'capture.finished', disguised: clip(true), original: clip(false) });
  };

  start().catch(fail);

  receive((cmd) => {
    if (cmd.type === 'pause') {
      paused = true;
      for (const t of takes) if (t.recorder.state === 'recording') t.recorder.pause();
    } else if (cmd.type === 'resume') {
      paused = false;
      for (const t of takes) if (t.recorder.state === 'paused') t.recorder.resume();
    } else if (cmd.type === 'stop' && !stopped) {
      stopped = true;
      finish().catch(() => send({ type: 'capture.failed' }));
    }
  });

  return () => {
    stopped = true;
    for (const t of takes) if (t.recorder.state !== 'inactive') t.recorder.stop();
    for (const track of stream.getTracks()) track.stop();
    void context?.close().catch(() => undefined);
    void wakeLock?.release().catch(() => undefined);
  };
});

/** The file a clip is sent as: its bytes under a plain name (no date, no device). */
export function clipFile(clip: VoiceClip): File {
  const extension = clip.mimeType === 'audio/ogg' ? 'ogg' : clip.mimeType === 'audio/mp4' ? 'mp4' : 'webm';
  return new File([clip.data as Blob], `voice-message.${extension}`, { type: clip.mimeType });
}

export function releaseClip(clip: VoiceClip): void {
  URL.revokeObjectURL(clip.url);
}
