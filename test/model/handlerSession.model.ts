/** Model of the handler's session: check, sign-in answers, the idle clock, stay, 401 and sign-out. */
import type { EventObject } from 'xstate';
import { handlerSessionMachine } from '../../machines/handler/session.ts';
import type { MachineModel } from './harness.ts';

const handler = { id: 'h1', name: 'Hanne', email: 'hanne@example.org', companyName: 'Acme', officers: [] };

export const handlerSessionEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.checkSession', output: { status: 200, handler } },
  { type: 'xstate.done.actor.checkSession', output: { status: 401 } },
  { type: 'xstate.error.actor.checkSession', error: 'network' },
  { type: 'signin.submit', email: 'hanne@example.org', password: 'correct horse battery', code: '123456' },
  { type: 'signin.submit', email: ' ', password: 'x', code: '12' },
  { type: 'xstate.done.actor.signIn', output: { status: 200, handler } },
  { type: 'xstate.done.actor.signIn', output: { status: 401 } },
  { type: 'xstate.error.actor.signIn', error: 'network' },
  { type: 'session.touch' },
  { type: 'xstate.after.idleWarning.handlerSession.signedIn.active' },
  { type: 'xstate.after.idleFinal.handlerSession.signedIn.warning' },
  { type: 'session.stay' },
  { type: 'xstate.done.actor.refreshSession', output: { status: 200, handler } },
  { type: 'xstate.done.actor.refreshSession', output: { status: 401 } },
  { type: 'xstate.error.actor.refreshSession', error: 'network' },
  { type: 'session.expired' },
  { type: 'signout' },
  { type: 'xstate.done.actor.signOut' },
  { type: 'xstate.error.actor.signOut', error: 'network' },
];

export default {
  name: 'handlerSession',
  machine: handlerSessionMachine,
  events: handlerSessionEvents,
} satisfies MachineModel;
