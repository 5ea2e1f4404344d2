/** Model of enrolment: with and without a code, every opening and finishing answer, each refusal of the form. */
import type { EventObject } from 'xstate';
import { enrolmentMachine } from '../../machines/handler/enrolment.ts';
import type { MachineModel } from './harness.ts';

export const enrolmentEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'link.open', code: 'k7Qw2mZ3xY9pL0aB4cD5eF6gH7iJ8kL9mN0oP1qR2sT' },
  { type: 'link.open', code: '' },
  { type: 'xstate.done.actor.openEnrolment', output: { status: 200, name: 'Hanne', email: 'h@example.org', companyName: 'Acme', secret: 'JBSWY3DPEHPK3PXP', uri: 'otpauth://totp/x' } },
  { type: 'xstate.done.actor.openEnrolment', output: { status: 404 } },
  { type: 'xstate.done.actor.openEnrolment', output: { status: 429 } },
  { type: 'xstate.error.actor.openEnrolment', error: 'network' },
  { type: 'retry' },
  { type: 'password.change', value: 'short' },
  { type: 'password.change', value: 'correct horse battery' },
  // A key recovery code's shape: refused as a password.
  { type: 'password.change', value: 'ABCD EFGH JKMN PQRS TVWX YZ01 2345' },
  { type: 'repeat.change', value: 'correct horse battery' },
  { type: 'totp.change', value: '123456' },
  { type: 'enrol.submit' },
  { type: 'xstate.done.actor.finishEnrolment', output: { status: 200, recoveryCodes: ['aaaaa-bbbbb'], keyRecoveryCode: 'ABCD-EFGH-JKMN-PQRS-TVWX-YZ01-2345' } },
  // A 200 without the key recovery code (keys not made): never `done`.
  { type: 'xstate.done.actor.finishEnrolment', output: { status: 200, recoveryCodes: ['aaaaa-bbbbb'] } },
  { type: 'xstate.done.actor.finishEnrolment', output: { status: 400, code: 'TOTP_INVALID' } },
  { type: 'xstate.done.actor.finishEnrolment', output: { status: 404, code: 'ENROLMENT_INVALID' } },
  { type: 'xstate.done.actor.finishEnrolment', output: { status: 429, code: 'RATE_LIMITED' } },
  { type: 'xstate.done.actor.finishEnrolment', output: { status: 500 } },
  { type: 'xstate.error.actor.finishEnrolment', error: 'network' },
];

/** Collapses the form to what the guards read, so the state space stays small. */
function serializeState(s: { value: unknown; context: { password: string; repeat: string; totpCode: string; code: string } }) {
  const c = s.context;
  return JSON.stringify([s.value, c.password.length >= 12, /^[A-Z0-9]{4}( [A-Z0-9]{4}){6}$/.test(c.password), c.password === c.repeat, c.totpCode.length === 6, !!c.code]);
}

export default {
  name: 'handlerEnrolment',
  machine: enrolmentMachine,
  events: enrolmentEvents,
  serializeState: serializeState as never,
} satisfies MachineModel;
