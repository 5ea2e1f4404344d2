/** Model of the identity form: every validity case of spec §5 and every call outcome. */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { identityErrors, identityFormMachine } from '../../machines/identityForm.ts';
import type { MachineModel } from './harness.ts';

export const identityEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'name.change', value: '' },
  { type: 'name.change', value: 'Ada Lovelace' },
  { type: 'email.change', value: '' },
  { type: 'email.change', value: 'ada@example.com' },
  { type: 'email.change', value: 'ada@' },
  { type: 'phone.change', phone: '', countryCode: 'dk', isValid: false },
  { type: 'phone.change', phone: '+4512345678', countryCode: 'dk', isValid: true },
  { type: 'phone.change', phone: '+45123', countryCode: 'dk', isValid: false },
  { type: 'notification.change', checked: true },
  { type: 'identity.save' },
  { type: 'xstate.done.actor.updateWhistleblower', output: { status: 200 } },
  { type: 'xstate.done.actor.updateWhistleblower', output: { status: 401 } },
  { type: 'xstate.done.actor.updateWhistleblower', output: { status: 400 } },
  { type: 'xstate.error.actor.updateWhistleblower', error: 'network' },
  { type: 'password.change' },
  { type: 'password.confirm' },
  { type: 'password.cancel' },
  { type: 'xstate.done.actor.requestPasswordUpdate', output: { status: 200 } },
  { type: 'xstate.done.actor.requestPasswordUpdate', output: { status: 403 } },
  { type: 'xstate.done.actor.requestPasswordUpdate', output: { status: 500 } },
  { type: 'xstate.error.actor.requestPasswordUpdate', error: 'network' },
];

export default {
  name: 'identityForm',
  machine: identityFormMachine,
  input: { whistleblower: null },
  events: identityEvents,
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify({
      v: s.value,
      e: identityErrors(s.context),
      l: s.context.nameLocked,
    }),
} satisfies MachineModel;
