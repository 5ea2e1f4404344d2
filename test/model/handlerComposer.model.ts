/** Model of the message composer: empty and real drafts, files, type, answer wanted, upload progress, every send outcome. */
import type { EventObject } from 'xstate';
import { composerMachine } from '../../machines/handler/composer.ts';
import type { MachineModel } from './harness.ts';

const file = new File(['x'], 'note.txt', { type: 'text/plain' });

export const composerEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'text.change', value: '  ' },
  { type: 'text.change', value: 'We have received your report.' },
  { type: 'type.change', value: 'CONFIRMATION' },
  { type: 'answer.toggle' },
  { type: 'files.add', files: [file] },
  { type: 'file.remove', index: 0 },
  { type: 'send' },
  { type: 'upload.progress', loaded: 500, total: 1000 },
  { type: 'upload.done', status: 201 },
  { type: 'upload.done', status: 401 },
  { type: 'upload.done', status: 400 },
  { type: 'upload.done', status: 0 },
  { type: 'draft.restore', text: 'Kept from before the sign-out.', messageType: 'FEEDBACK', answerWanted: true },
];

export default {
  name: 'handlerComposer',
  machine: composerMachine,
  events: composerEvents,
  serializeState: ((s: { value: unknown; context: { text: string; type: string; answerWanted: boolean; files: unknown[] } }) =>
    JSON.stringify([s.value, s.context.text.trim() !== '', s.context.type, s.context.answerWanted, s.context.files.length])) as never,
} satisfies MachineModel;
