/** Model of saving a sealed case's file: saved, the picker closed, a file that does not open, and another save after each. */
import { sealedFileSaveMachine } from '../../machines/sealedFileSave.ts';
import type { EventObject } from 'xstate';
import type { MachineModel } from './harness.ts';

const file = { id: '7d1f3c1e-0000-4000-8000-000000000001', name: 'answer.pdf', plainSize: 1234 };

export default {
  name: 'sealedFileSave',
  machine: sealedFileSaveMachine,
  events: [
    { type: 'file.save', file },
    { type: 'xstate.done.actor.saveFile', output: 'saved' },
    { type: 'xstate.done.actor.saveFile', output: 'cancelled' },
    { type: 'xstate.error.actor.saveFile', error: new Error('the file "answer.pdf" could not be opened (tag)') },
  ] as (EventObject & Record<string, unknown>)[],
  serializeState: (s) => JSON.stringify({ v: s.value, f: s.context.file?.id ?? null }),
} satisfies MachineModel;
