/** Model of the chat composer: blank, real and over-long text; one and six files; every upload and post outcome, 429 included. */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { chatMachine } from '../../machines/chat.ts';
import type { MachineModel } from './harness.ts';

const file = (name: string, type = 'application/pdf') => ({ name, size: 1000, type });

export const chatEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'text.change', text: '   ' },
  { type: 'text.change', text: '  Hello, I have more evidence.  ' },
  { type: 'text.change', text: 'x'.repeat(250) },
  { type: 'files.add', files: [file('a.pdf')] },
  { type: 'files.add', files: ['1.pdf', '2.pdf', '3.png', '4.mp4', '5.txt', '6.csv', 'evil.exe'].map((n) => file(n, '')) },
  { type: 'file.remove', index: 0 },
  { type: 'message.send' },
  { type: 'message.cancel' },
  { type: 'upload.progress', index: 0, loaded: 500, total: 1000, bytesPerSecond: 250, secondsLeft: 2, retrying: false },
  { type: 'upload.progress', index: 0, loaded: 500, total: 1000, bytesPerSecond: null, secondsLeft: null, retrying: true },
  { type: 'upload.finished', session: 'S', ids: ['u1'] },
  { type: 'upload.failed', status: 401, code: 'UNAUTHORIZED' },
  { type: 'upload.failed', status: 401, code: 'UPLOAD_SESSION_INVALID' },
  { type: 'upload.failed', status: 0 },
  // The case's or the connection's budget (an upload session refused), with and without a Retry-After.
  { type: 'upload.failed', status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 125 },
  { type: 'upload.failed', status: 429 },
  { type: 'post.done', status: 201 },
  { type: 'post.done', status: 401, code: 'UNAUTHORIZED' },
  { type: 'post.done', status: 409, code: 'UPLOAD_SESSION_USED' },
  { type: 'post.done', status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 300 },
  { type: 'post.done', status: 500 },
];

export default {
  name: 'chat',
  machine: chatMachine,
  events: chatEvents,
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify({
      v: s.value,
      t: s.context.text.trim() ? (s.context.text.length >= 200 ? 'long' : 'text') : s.context.text ? 'blank' : '',
      f: s.context.files.length,
      p: s.context.progress.some((p: { retrying: boolean }) => p.retrying) ? 'retrying' : s.context.progress.some((p: { loaded: number }) => p.loaded > 0),
      u: !!s.context.uploads,
      r: s.context.retryAfterSeconds,
    }),
} satisfies MachineModel;
