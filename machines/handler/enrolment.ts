/**
 * Enrolment of a handler account (issue 14): the one-time code from the link's
 * fragment opens it; the handler sets a password (at least 12 characters) and
 * confirms the TOTP secret with one code; the recovery codes are shown once.
 *
 * Invariants:
 * - Without a well-formed code in the fragment, or when the server does not know it, the chart
 *   ends in `invalid` and offers nothing.
 * - `finishing` is entered only with a password of 12+ characters that does not have a
 *   key recovery code's shape (it would be read as one at sign-in and never sign in),
 *   the same password typed twice and a six-digit code; the recovery codes live only
 *   in `done`.
 * - `finishing` makes the handler's key pairs in the browser and seals them under the
 *   password and under a new key recovery code (docs/decisions/blind-server.md); the
 *   server receives the verifier, never the password. The key recovery code, like the
 *   sign-in recovery codes, is in the context only from `done` on, to be shown once.
 * - Too many calls from this connection (429) is never taken for a bad link: opening
 *   waits in `rateLimited` for a retry, finishing returns to the form with all typed.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { hasRecoveryCodeShape } from '../../core/recovery-shape.ts';

export const HANDLER_PASSWORD_MIN = 12;

export interface EnrolmentOpening {
  status: number;
  name?: string;
  email?: string;
  companyName?: string;
  secret?: string;
  uri?: string;
}

export interface EnrolmentFinish {
  status: number;
  recoveryCodes?: string[];
  /** The code that opens the handler's keys when the password is lost; made in the browser, never sent. */
  keyRecoveryCode?: string;
  code?: string;
}

export interface EnrolmentContext {
  code: string;
  opening: EnrolmentOpening | null;
  password: string;
  repeat: string;
  totpCode: string;
  recoveryCodes: string[];
  keyRecoveryCode: string;
}

export type EnrolmentEvent =
  /** The page read the code from the link's fragment (empty when there is none). */
  | { type: 'link.open'; code: string }
  | { type: 'password.change'; value: string }
  | { type: 'repeat.change'; value: string }
  | { type: 'totp.change'; value: string }
  | { type: 'enrol.submit' }
  | { type: 'retry' };

const opening = (event: unknown) => (event as DoneActorEvent<EnrolmentOpening>).output;
const finish = (event: unknown) => (event as DoneActorEvent<EnrolmentFinish>).output;

/** 0–4: length and variety; shown as the strength meter. */
export function passwordStrength(pw: string): number {
  if (pw.length < HANDLER_PASSWORD_MIN) return pw.length ? 1 : 0;
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^\w\s]|\s/].filter((r) => r.test(pw)).length;
  return Math.min(4, 2 + (pw.length >= 16 ? 1 : 0) + (kinds >= 3 ? 1 : 0));
}

export const enrolmentMachine = setup({
  types: {} as { context: EnrolmentContext; events: EnrolmentEvent },
  actors: {
    openEnrolment: fromPromise<EnrolmentOpening, { code: string }>(async () => {
      throw new Error('openEnrolment not provided');
    }),
    finishEnrolment: fromPromise<EnrolmentFinish, { code: string; password: string; totpCode: string }>(async () => {
      throw new Error('finishEnrolment not provided');
    }),
  },
  actions: {
    assignCode: assign({ code: ({ event, context }) => (event.type === 'link.open' ? event.code.trim() : context.code) }),
    assignOpening: assign({ opening: ({ event }) => opening(event) }),
    assignPassword: assign({ password: ({ event, context }) => (event.type === 'password.change' ? event.value : context.password) }),
    assignRepeat: assign({ repeat: ({ event, context }) => (event.type === 'repeat.change' ? event.value : context.repeat) }),
    assignTotp: assign({ totpCode: ({ event, context }) => (event.type === 'totp.change' ? event.value.replace(/\D/g, '').slice(0, 6) : context.totpCode) }),
    assignRecoveryCodes: assign({ recoveryCodes: ({ event }) => finish(event).recoveryCodes ?? [], keyRecoveryCode: ({ event }) => finish(event).keyRecoveryCode ?? '', password: '', repeat: '', totpCode: '' }),
    clearTotp: assign({ totpCode: '' }),
  },
  guards: {
    hasCode: ({ event }) => event.type === 'link.open' && /^[\w-]{20,100}$/.test(event.code.trim()),
    isOpened: ({ event }) => opening(event).status === 200 && !!opening(event).secret,
    isOpeningRateLimited: ({ event }) => opening(event).status === 429,
    isLongEnough: ({ context }) => [...context.password].length >= HANDLER_PASSWORD_MIN,
    isLikeRecoveryCode: ({ context }) => hasRecoveryCodeShape(context.password),
    isRepeated: ({ context }) => context.password === context.repeat,
    hasTotpCode: ({ context }) => /^\d{6}$/.test(context.totpCode),
    isDone: ({ event }) => finish(event).status === 200 && !!finish(event).keyRecoveryCode,
    isTotpRefused: ({ event }) => finish(event).code === 'TOTP_INVALID',
    isLinkRefused: ({ event }) => finish(event).status === 404,
    isFinishRateLimited: ({ event }) => finish(event).status === 429,
  },
}).createMachine({
  id: 'enrolment',
  initial: 'waiting',
  context: { code: '', opening: null, password: '', repeat: '', totpCode: '', recoveryCodes: [], keyRecoveryCode: '' },
  states: {
    waiting: { on: { 'link.open': [{ guard: 'hasCode', target: 'opening', actions: 'assignCode' }, { target: 'invalid' }] } },
    opening: {
      invoke: {
        id: 'openEnrolment',
        src: 'openEnrolment',
        input: ({ context }) => ({ code: context.code }),
        onDone: [
          { guard: 'isOpened', target: 'editing', actions: 'assignOpening' },
          { guard: 'isOpeningRateLimited', target: 'rateLimited' },
          { target: 'invalid' },
        ],
        onError: 'unreachable',
      },
    },
    unreachable: { on: { retry: 'opening' } },
    /** Too many calls from this connection: the link may be fine; try again later. */
    rateLimited: { on: { retry: 'opening' } },
    /** Unknown, used or expired link. */
    invalid: {},
    editing: {
      initial: 'ready',
      on: {
        'password.change': { target: '.ready', actions: 'assignPassword' },
        'repeat.change': { target: '.ready', actions: 'assignRepeat' },
        'totp.change': { target: '.ready', actions: 'assignTotp' },
        'enrol.submit': [
          { guard: 'isLikeRecoveryCode', target: '.likeRecoveryCode' },
          { guard: 'isLongEnough', target: 'checkingRepeat' },
          { target: '.tooShort' },
        ],
      },
      states: { ready: {}, tooShort: {}, likeRecoveryCode: {}, notRepeated: {}, codeMissing: {}, codeRefused: {}, rateLimited: {}, failed: {} },
    },
    checkingRepeat: {
      always: [{ guard: 'isRepeated', target: 'checkingCode' }, { target: 'editing.notRepeated' }],
    },
    checkingCode: {
      always: [{ guard: 'hasTotpCode', target: 'finishing' }, { target: 'editing.codeMissing' }],
    },
    finishing: {
      invoke: {
        id: 'finishEnrolment',
        src: 'finishEnrolment',
        input: ({ context }) => ({ code: context.code, password: context.password, totpCode: context.totpCode }),
        onDone: [
          { guard: 'isDone', target: 'done', actions: 'assignRecoveryCodes' },
          { guard: 'isTotpRefused', target: 'editing.codeRefused', actions: 'clearTotp' },
          { guard: 'isLinkRefused', target: 'invalid' },
          { guard: 'isFinishRateLimited', target: 'editing.rateLimited' },
          { target: 'editing.failed' },
        ],
        onError: 'editing.failed',
      },
    },
    /** The recovery codes are shown here, once. */
    done: { type: 'final' },
  },
});
