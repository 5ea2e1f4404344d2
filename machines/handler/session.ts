/**
 * The handler's workspace session (issue 14; docs/decisions/handler-sessions.md).
 * The session itself is an HttpOnly cookie the page cannot read; this chart knows
 * only what the server said about it, and owns the idle clock.
 *
 * Invariants:
 * - `signedIn` only after the server confirmed a session (check or sign-in answered 200).
 * - The idle clock restarts on every successful call (`session.touch`); after 14 quiet
 *   minutes `warning` announces the end one minute ahead; 60 s later the chart signs
 *   out by itself (`signedOut.idle`). "Stay signed in" refreshes the session.
 * - Any 401 from any call ends the session in the chart (`session.expired`).
 * - Nothing here holds a password or code after the attempt: `signingIn` gets them in
 *   the event and the context keeps only the e-mail.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';

export const IDLE_WARNING_MS = 14 * 60_000;
export const IDLE_FINAL_MS = 60_000;

export interface HandlerProfile {
  id: string;
  name: string;
  email: string | null;
  companyName: string;
  officers: string[];
  /** The company ('' for the operator) and the account's roles (docs/decisions/administration.md). */
  companyId?: string;
  roles?: { operator: boolean; admin: boolean; handler: boolean };
  /** Failed logins on this address since the last one; present only right after signing in. */
  failedSignIns?: number;
}

export interface SessionAnswer {
  status: number;
  handler?: HandlerProfile;
}

export interface Credentials {
  email: string;
  password: string;
  code: string;
}

export interface HandlerSessionContext {
  handler: HandlerProfile | null;
  email: string;
}

export type HandlerSessionEvent =
  | { type: 'signin.submit'; email: string; password: string; code: string }
  | { type: 'signout' }
  | { type: 'session.touch' }
  | { type: 'session.stay' }
  | { type: 'session.expired' };

const answer = (event: unknown) => (event as DoneActorEvent<SessionAnswer>).output;

export const handlerSessionMachine = setup({
  types: {} as { context: HandlerSessionContext; events: HandlerSessionEvent },
  actors: {
    checkSession: fromPromise<SessionAnswer, void>(async () => {
      throw new Error('checkSession not provided');
    }),
    signIn: fromPromise<SessionAnswer, Credentials>(async () => {
      throw new Error('signIn not provided');
    }),
    refreshSession: fromPromise<SessionAnswer, void>(async () => {
      throw new Error('refreshSession not provided');
    }),
    signOut: fromPromise<void, void>(async () => {
      throw new Error('signOut not provided');
    }),
  },
  delays: { idleWarning: IDLE_WARNING_MS, idleFinal: IDLE_FINAL_MS },
  actions: {
    assignHandler: assign({ handler: ({ event }) => answer(event).handler ?? null }),
    forgetHandler: assign({ handler: null }),
    assignEmail: assign({ email: ({ event, context }) => (event.type === 'signin.submit' ? event.email.trim() : context.email) }),
  },
  guards: {
    isSignedInAnswer: ({ event }) => answer(event).status === 200 && !!answer(event).handler,
    hasCredentials: ({ event }) => event.type === 'signin.submit' && event.email.trim() !== '' && event.password !== '' && /^\s*(\d{6}|[0-9a-fA-F-]{10,})\s*$/.test(event.code),
  },
}).createMachine({
  id: 'handlerSession',
  initial: 'checking',
  context: { handler: null, email: '' },
  states: {
    checking: {
      invoke: {
        id: 'checkSession',
        src: 'checkSession',
        onDone: [{ guard: 'isSignedInAnswer', target: 'signedIn', actions: 'assignHandler' }, { target: 'signedOut' }],
        onError: 'signedOut.unreachable',
      },
    },
    signedOut: {
      initial: 'idle',
      entry: 'forgetHandler',
      on: {
        'signin.submit': [{ guard: 'hasCredentials', target: 'signingIn', actions: 'assignEmail' }, { target: '.incomplete' }],
      },
      states: {
        idle: {},
        /** A field is empty or the code is not six digits (or a recovery code). */
        incomplete: {},
        /** Wrong e-mail, password or code, or locked: one answer for all. */
        refused: {},
        unreachable: {},
        /** Signed out by the idle clock. */
        timedOut: {},
        /** A call answered 401: the server ended the session. */
        expired: {},
      },
    },
    signingIn: {
      invoke: {
        id: 'signIn',
        src: 'signIn',
        input: ({ event }) => (event.type === 'signin.submit' ? { email: event.email.trim(), password: event.password, code: event.code.trim() } : { email: '', password: '', code: '' }),
        onDone: [{ guard: 'isSignedInAnswer', target: 'signedIn', actions: 'assignHandler' }, { target: 'signedOut.refused' }],
        onError: 'signedOut.unreachable',
      },
    },
    signedIn: {
      initial: 'active',
      on: {
        signout: 'signingOut',
        'session.expired': 'signedOut.expired',
      },
      states: {
        active: {
          on: { 'session.touch': { target: 'active', reenter: true } },
          after: { idleWarning: 'warning' },
        },
        /** The idle end is one minute away: an alert dialog offers to stay. */
        warning: {
          on: { 'session.stay': 'refreshing' },
          after: { idleFinal: '#handlerSession.timingOut' },
        },
        refreshing: {
          invoke: {
            id: 'refreshSession',
            src: 'refreshSession',
            onDone: [{ guard: 'isSignedInAnswer', target: 'active', actions: 'assignHandler' }, { target: '#handlerSession.signedOut.expired' }],
            onError: 'warning',
          },
        },
      },
    },
    timingOut: {
      invoke: { id: 'signOut', src: 'signOut', onDone: 'signedOut.timedOut', onError: 'signedOut.timedOut' },
    },
    signingOut: {
      invoke: { id: 'signOut', src: 'signOut', onDone: 'signedOut', onError: 'signedOut' },
    },
  },
});
