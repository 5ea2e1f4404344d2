/** Model of the handler's session: check, sign-in answers, the idle clock, stay, 401 and sign-out, and the keys: opened by sign-in, unlocked after a reload, refused, missing. */
import type { EventObject } from 'xstate';
import { handlerSessionMachine } from '../../machines/handler/session.ts';
import type { MachineModel } from './harness.ts';

const handler = { id: 'h1', name: 'Hanne', email: 'hanne@example.org', companyName: 'Acme', officers: [] };
/** Stands in for opened CryptoKeys: the chart only holds and drops them. */
export const fakeKeys = { ecdh: {}, ecdsa: {}, ecdhSpki: new Uint8Array(1), ecdsaSpki: new Uint8Array(1) };

export const handlerSessionEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.checkSession', output: { status: 200, handler } },
  { type: 'xstate.done.actor.checkSession', output: { status: 401 } },
  { type: 'xstate.error.actor.checkSession', error: 'network' },
  { type: 'signin.submit', email: 'hanne@example.org', password: 'correct horse battery', code: '123456' },
  { type: 'signin.submit', email: ' ', password: 'x', code: '12' },
  // A recovery code typed in capitals with spaces, as the server accepts it (issue 38).
  { type: 'signin.submit', email: 'hanne@example.org', password: 'correct horse battery', code: 'AB12C DE34F 56789 0ABCD' },
  { type: 'xstate.done.actor.signIn', output: { status: 200, handler } },
  { type: 'xstate.done.actor.signIn', output: { status: 200, handler, keys: fakeKeys } },
  { type: 'xstate.done.actor.signIn', output: { status: 200, handler, keys: fakeKeys, recoveryCode: 'ABCD-EFGH-JKMN-PQRS-TVWX-YZ01-2345' } },
  { type: 'xstate.done.actor.signIn', output: { status: 401 } },
  { type: 'xstate.error.actor.signIn', error: 'network' },
  { type: 'session.touch' },
  { type: 'xstate.after.idleWarning.handlerSession.signedIn.idle.active' },
  { type: 'xstate.after.idleFinal.handlerSession.signedIn.idle.warning' },
  { type: 'keys.unlock', secret: 'correct horse battery' },
  { type: 'keys.unlock', secret: '  ' },
  { type: 'xstate.done.actor.unlockKeys', output: { outcome: 'opened', keys: fakeKeys } },
  { type: 'xstate.done.actor.unlockKeys', output: { outcome: 'refused' } },
  { type: 'xstate.done.actor.unlockKeys', output: { outcome: 'missing' } },
  { type: 'xstate.error.actor.unlockKeys', error: 'network' },
  { type: 'recovery.noted' },
  { type: 'session.stay' },
  // Typing counts as activity (issue 38): a refresh within the minute, and staying during the warning.
  { type: 'session.activity' },
  { type: 'xstate.after.activityRefresh.handlerSession.signedIn.idle.active.typing' },
  { type: 'xstate.done.actor.touchSession', output: { status: 200, handler } },
  { type: 'xstate.done.actor.touchSession', output: { status: 401 } },
  { type: 'xstate.error.actor.touchSession', error: 'network' },
  { type: 'xstate.done.actor.refreshSession', output: { status: 200, handler } },
  { type: 'xstate.done.actor.refreshSession', output: { status: 401 } },
  { type: 'xstate.error.actor.refreshSession', error: 'network' },
  { type: 'session.expired' },
  // Back where the handler was after the idle or server-ended sign-out (issue 38); another account signing in is not.
  { type: 'place.change', path: '/handler/cases/1234567812345678' },
  { type: 'resume.done' },
  { type: 'xstate.done.actor.signIn', output: { status: 200, handler: { ...handler, id: 'h2', name: 'Greta' } } },
  { type: 'signout' },
  { type: 'xstate.done.actor.signOut' },
  { type: 'xstate.error.actor.signOut', error: 'network' },
];

export default {
  name: 'handlerSession',
  machine: handlerSessionMachine,
  events: handlerSessionEvents,
} satisfies MachineModel;
