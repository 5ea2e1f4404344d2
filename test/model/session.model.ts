/**
 * Model of the session chart: every actor outcome and every guard branch as sample
 * events. The harness walks the chart; session.test.ts replays each path on a
 * running actor with a simulated clock.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { sessionMachine } from '../../machines/session.ts';
import type { MachineModel } from './harness.ts';
import { CASE_NUMBER, sampleCase } from './session.fixtures.ts';

export const sessionEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.checkSession', output: { authenticated: true, caseNumber: CASE_NUMBER } },
  { type: 'xstate.done.actor.checkSession', output: { authenticated: false } },
  { type: 'xstate.error.actor.checkSession', error: 'callback failed' },
  { type: 'xstate.error.actor.signIn', error: 'provider unreachable' },
  { type: 'xstate.done.actor.verifyToken', output: { status: 200 } },
  { type: 'xstate.done.actor.verifyToken', output: { status: 500 } },
  { type: 'xstate.done.actor.verifyToken', output: { status: 401 } },
  { type: 'xstate.error.actor.verifyToken', error: 'network' },
  { type: 'xstate.done.actor.loadCase', output: { status: 200, data: sampleCase } },
  { type: 'xstate.done.actor.loadCase', output: { status: 401, data: null } },
  { type: 'xstate.done.actor.loadCase', output: { status: 500, data: null } },
  // A sealed case with no reporter key in this page (issue 37): log in again.
  { type: 'xstate.done.actor.loadCase', output: { status: 200, data: null, keyMissing: true } },
  // The same with an external issuer: the page asks for the case password once and derives the key itself.
  { type: 'xstate.done.actor.loadCase', output: { status: 200, data: null, keyMissing: true, passwordWanted: true } },
  { type: 'password.submit', password: 'the case password' },
  { type: 'password.submit', password: '' },
  { type: 'xstate.done.actor.unlockCase', output: { status: 200, data: sampleCase } },
  { type: 'xstate.done.actor.unlockCase', output: { status: 200, data: null, keyMissing: true } },
  { type: 'xstate.done.actor.unlockCase', output: { status: 401, data: null } },
  { type: 'xstate.done.actor.unlockCase', output: { status: 500, data: null } },
  { type: 'xstate.error.actor.unlockCase', error: 'derivation failed' },
  { type: 'xstate.error.actor.loadCase', error: 'network' },
  { type: 'xstate.after.refreshInterval.session.active.token.waiting' },
  { type: 'xstate.done.actor.refreshToken' },
  { type: 'xstate.error.actor.refreshToken', error: 'invalid_grant' },
  { type: 'xstate.done.actor.signInAgain', output: { caseNumber: CASE_NUMBER } },
  { type: 'xstate.done.actor.signInAgain', output: { caseNumber: '9999888877776666' } },
  { type: 'xstate.error.actor.signInAgain', error: 'popup closed' },
  { type: 'xstate.done.actor.signOut' },
  { type: 'xstate.error.actor.signOut', error: 'end-session failed' },
  { type: 'case.reload' },
  { type: 'case.show' },
  { type: 'session.logout' },
  { type: 'session.ended' },
  { type: 'session.unauthorized' },
  { type: 'session.resume' },
];

export default {
  name: 'session',
  machine: sessionMachine,
  events: sessionEvents,
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify({ v: s.value, n: s.context.caseNumber, c: s.context.caseData ? 'case' : null }),
} satisfies MachineModel;

/**
 * The same chart started with the head's answers in hand (core/earlyRead.ts): it
 * begins signed in with the case, and walks on from there like the other.
 */
export const sessionWithCaseInHand = {
  name: 'session (case in hand)',
  machine: sessionMachine,
  events: sessionEvents,
  input: { caseInHand: sampleCase },
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify({ v: s.value, n: s.context.caseNumber, c: s.context.caseData ? 'case' : null }),
} satisfies MachineModel;

export const variants = [sessionWithCaseInHand];
