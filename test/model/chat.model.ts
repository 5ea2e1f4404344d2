/** Model of the chat composer: blank, real and over-long text; one and six files; every upload outcome. */
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
  { type: 'upload.progress', loaded: 500, total: 1000 },
  { type: 'upload.done', status: 201 },
  { type: 'upload.done', status: 401 },
  { type: 'upload.done', status: 500 },
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
      p: s.context.loaded > 0,
    }),
} satisfies MachineModel;
