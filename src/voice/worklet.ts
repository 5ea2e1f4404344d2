/**
 * The AudioWorklet that disguises the microphone's voice as it is recorded
 * (core/voice/disguise.ts), and meters its level. Built as a bundle of its own and
 * loaded with `audioWorklet.addModule` (src/voice/capture.ts). With `disguise: false`
 * it only meters (the company's policy "never"), and outputs silence.
 *
 * The original signal exists here only as the 128-sample blocks passing through.
 */
import { VoiceDisguiser, type DisguiseParams } from '../../core/voice/disguise.ts';

// The AudioWorkletGlobalScope's names, which the DOM library does not declare.
declare const sampleRate: number;
declare function registerProcessor(name: string, ctor: unknown): void;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}

interface Options {
  processorOptions: { params: DisguiseParams; disguise: boolean };
}

/** Level messages every this many seconds. */
const LEVEL_EVERY = 0.1;

class VoiceDisguiseProcessor extends AudioWorkletProcessor {
  private readonly disguiser: VoiceDisguiser | null;
  private sum = 0;
  private count = 0;
  private readonly every = Math.round(LEVEL_EVERY * sampleRate);

  constructor(options: Options) {
    super();
    const { params, disguise } = options.processorOptions;
    this.disguiser = disguise ? new VoiceDisguiser(sampleRate, params) : null;
  }

  process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    const output = outputs[0]?.[0];
    if (!input || !output) return true;
    for (let i = 0; i < input.length; i++) this.sum += input[i]! * input[i]!;
    this.count += input.length;
    if (this.count >= this.every) {
      // RMS in dBFS mapped to 0..1 over -60..0 dB: a meter that moves with speech.
      const db = 10 * Math.log10(this.sum / this.count + 1e-12);
      this.port.postMessage(Math.max(0, Math.min(1, (db + 60) / 60)));
      this.sum = 0;
      this.count = 0;
    }
    if (this.disguiser) this.disguiser.process(input, output);
    else output.fill(0);
    // Every output channel carries the same mono signal.
    for (let c = 1; c < (outputs[0]?.length ?? 0); c++) outputs[0]![c]!.set(output);
    return true;
  }
}

registerProcessor('voice-disguise', VoiceDisguiseProcessor);
