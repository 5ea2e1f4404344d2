/** Model of one file's hidden-data check: every inspect and clean outcome, keep/remove the original, identity switched both ways. */
import type { EventObject } from 'xstate';
import { fileCheckMachine } from '../../machines/fileCheck.ts';
import type { MachineModel } from './harness.ts';

const cleanedFile = { name: 'photo.jpg', size: 900, type: 'image/jpeg' };

export const fileCheckEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.inspectFile', output: { checkable: false, findings: [] } },
  { type: 'xstate.done.actor.inspectFile', output: { checkable: true, findings: [] } },
  { type: 'xstate.done.actor.inspectFile', output: { checkable: true, findings: [{ kind: 'location', detail: '55.67594, 12.56553' }, { kind: 'device', detail: 'Canon EOS 5D' }] } },
  { type: 'xstate.error.actor.inspectFile', error: 'worker failed' },
  { type: 'xstate.done.actor.cleanFile', output: { file: cleanedFile, removed: ['location', 'device'] } },
  { type: 'xstate.error.actor.cleanFile', error: 'cannot rewrite HEIC' },
  { type: 'original.keep' },
  { type: 'original.remove' },
  { type: 'identity.change', identified: true },
  { type: 'identity.change', identified: false },
];

export default {
  name: 'fileCheck',
  machine: fileCheckMachine,
  input: { file: { name: 'photo.jpg', size: 1000, type: 'image/jpeg' }, identified: false },
  events: fileCheckEvents,
  serializeState: (s) => JSON.stringify({ v: s.value, id: s.context.identified, f: s.context.findings.length, c: !!s.context.cleaned }),
} satisfies MachineModel;
