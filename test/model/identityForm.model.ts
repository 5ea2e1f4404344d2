/** Model of the identity form: every validity case of spec §5, a sealed case's notification wish, and every call outcome. */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { identityErrors, identityFormMachine, notifyErrors } from '../../machines/identityForm.ts';
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
  { type: 'notify.change', checked: true },
  { type: 'notify.change', checked: false },
  { type: 'notifyAddress.change', value: 'rosa@example.org' },
  { type: 'notifyAddress.change', value: 'rosa@' },
  { type: 'notify.save' },
  { type: 'xstate.done.actor.changeNotification', output: { status: 200 } },
  { type: 'xstate.done.actor.changeNotification', output: { status: 401 } },
  { type: 'xstate.done.actor.changeNotification', output: { status: 409 } },
  { type: 'xstate.error.actor.changeNotification', error: 'network' },
  { type: 'password.change' },
  { type: 'password.confirm' },
  { type: 'password.cancel' },
  { type: 'xstate.done.actor.requestPasswordUpdate', output: { status: 200 } },
  { type: 'xstate.done.actor.requestPasswordUpdate', output: { status: 403 } },
  { type: 'xstate.done.actor.requestPasswordUpdate', output: { status: 500 } },
  { type: 'xstate.error.actor.requestPasswordUpdate', error: 'network' },
];

const NOTIFY_EVENTS = new Set(['notify.change', 'notifyAddress.change', 'notify.save', 'xstate.done.actor.changeNotification', 'xstate.error.actor.changeNotification']);

/**
 * The regions one at a time: the notification region (a sealed case's) is walked with the
 * identity and password regions as they start, and they with it at rest, so the walk
 * does not multiply the two (every transition of each is still taken).
 */
export const identityFilter = (event: EventObject, snapshot: AnyMachineSnapshot): boolean => {
  const c = snapshot.context as { name: string; email: string; phone: string; notifyWanted: boolean; notifyAddress: string };
  if (NOTIFY_EVENTS.has(event.type)) return snapshot.matches({ form: { editing: 'clean' } }) && snapshot.matches({ password: 'idle' }) && !c.name && !c.email && !c.phone;
  return snapshot.matches({ notify: { editing: 'clean' } }) && !c.notifyWanted && !c.notifyAddress;
};

export default {
  name: 'identityForm',
  machine: identityFormMachine,
  input: { whistleblower: null },
  events: identityEvents,
  filter: identityFilter,
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify({
      v: s.value,
      e: identityErrors(s.context),
      l: s.context.nameLocked,
      n: notifyErrors(s.context),
      w: s.context.notifyWanted,
    }),
} satisfies MachineModel;
