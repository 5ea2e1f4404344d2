/** Model of one editor's draft kept on the device: locked and opened keys, a stored draft or none, typing, the pause, Send, a drop, failures. */
import type { EventObject } from 'xstate';
import { draftMachine } from '../../machines/handler/draft.ts';
import type { MachineModel } from './harness.ts';

/** Stands in for the opened ECDH key: the chart only holds it and hands it to its effects. */
export const fakeDraftKeys = { privateKey: {} as CryptoKey, publicKey: new Uint8Array(1) };

export const draftEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'keys.change', keys: fakeDraftKeys },
  { type: 'keys.change', keys: null },
  { type: 'draft.change', value: { text: 'We will call you on Monday.', type: 'STANDARD', answerWanted: false } },
  { type: 'draft.flush' },
  { type: 'draft.drop' },
  { type: 'xstate.after.draftPause.draft.pausing' },
  { type: 'xstate.done.actor.openDraft', output: { text: 'Kept from before.', type: 'FEEDBACK', answerWanted: true } },
  { type: 'xstate.done.actor.openDraft', output: null },
  { type: 'xstate.error.actor.openDraft', error: 'idb' },
  { type: 'xstate.done.actor.keepDraft' },
  { type: 'xstate.error.actor.keepDraft', error: 'quota' },
  { type: 'xstate.done.actor.dropDraft' },
  { type: 'xstate.error.actor.dropDraft', error: 'idb' },
];

export default {
  name: 'handlerDraft',
  machine: draftMachine,
  input: { handlerId: 'h1', kind: 'message', caseNumber: '1234567812345678' },
  events: draftEvents,
  serializeState: ((s: { value: unknown; context: { keys: unknown; value: unknown; dirty: boolean } }) =>
    JSON.stringify([s.value, s.context.keys !== null, s.context.value !== null, s.context.dirty])) as never,
} satisfies MachineModel;
