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
 * - Typing counts as activity (`session.activity`, issue 38): it makes no call itself, but
 *   at most a minute later (`activityRefresh`) the chart refreshes the session, so the
 *   server's 15-minute clock moves with the handler's typing; typing during the warning
 *   is staying. The warning is a notice that takes no focus (src/handler/Layout.tsx).
 * - A sign-out by choice discards this handler's drafts kept on the device
 *   (`discardDrafts`, docs/decisions/handler-drafts.md); the idle sign-out and a 401 keep them.
 * - Any 401 from any call ends the session in the chart (`session.expired`).
 * - Back where the handler was (issue 38): the view tells the chart the workspace route
 *   it shows (`place.change`); the idle sign-out and a session the server ended keep it
 *   with the handler's id in `resume` (in memory only: never in the URL or any storage),
 *   and a sign-in of the same account returns there (`resume.done` once the view went).
 *   A sign-out by choice, or another account signing in, forgets it.
 * - Nothing here holds a password or code after the attempt: `signingIn` gets them in
 *   the event and the context keeps only the e-mail.
 * - Keys (docs/decisions/blind-server.md, "Handlers"): `signedIn.keys` runs beside the
 *   idle clock. Sign-in derives once and opens the keys in the same step
 *   (`keysUnlocked` at once); after a reload the password is gone, so the chart waits
 *   in `keysLocked` until the handler types it (or the key recovery code) again, and
 *   `unlocking` opens them. The opened keys are non-extractable CryptoKeys in the
 *   context, dropped whenever the session ends. A wrong secret returns to
 *   `keysLocked.refused`; nothing unlocks without a successful open.
 * - A legacy account is upgraded by its sign-in: the keys are made then, and the new
 *   key recovery code is shown once (`keysUnlocked.showingRecoveryCode`) until noted.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';

export const IDLE_WARNING_MS = 14 * 60_000;
export const IDLE_FINAL_MS = 60_000;
export const ACTIVITY_REFRESH_MS = 60_000;

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

/** A handler's key pairs opened in the browser (core/crypto HandlerKeys): private halves non-extractable. */
export interface OpenedKeys {
  ecdh: CryptoKeyPair;
  ecdsa: CryptoKeyPair;
  ecdhSpki: Uint8Array;
  ecdsaSpki: Uint8Array;
}

export interface SessionAnswer {
  status: number;
  handler?: HandlerProfile;
  /** Opened by the sign-in itself (it derived from the password anyway). */
  keys?: OpenedKeys;
  /** A legacy account's sign-in made its keys: the new key recovery code, shown once. */
  recoveryCode?: string;
}

export interface UnlockAnswer {
  /** `opened`; `refused` (wrong password or code); `missing` (the account has no keys yet). */
  outcome: 'opened' | 'refused' | 'missing';
  keys?: OpenedKeys;
}

export interface Credentials {
  email: string;
  password: string;
  code: string;
}

export interface HandlerSessionContext {
  handler: HandlerProfile | null;
  email: string;
  keys: OpenedKeys | null;
  recoveryCode: string;
  /** The workspace route shown while signed in (a path, e.g. a case's). */
  place: string;
  /** Where to return after the idle or server-ended sign-out, and for whom. */
  resume: { handlerId: string; path: string } | null;
}

export type HandlerSessionEvent =
  | { type: 'signin.submit'; email: string; password: string; code: string }
  | { type: 'signout' }
  | { type: 'session.touch' }
  /** The handler typed (a draft changed): counts as activity for the idle clock. */
  | { type: 'session.activity' }
  | { type: 'session.stay' }
  | { type: 'session.expired' }
  /** The password, or the key recovery code, typed to open the keys after a reload. */
  | { type: 'keys.unlock'; secret: string }
  | { type: 'recovery.noted' }
  /** The view shows this workspace route (pathname only). */
  | { type: 'place.change'; path: string }
  /** The view returned to `resume` after signing in. */
  | { type: 'resume.done' };

const answer = (event: unknown) => (event as DoneActorEvent<SessionAnswer>).output;
const unlocked = (event: unknown) => (event as DoneActorEvent<UnlockAnswer>).output;

/**
 * A six-digit TOTP code or a sign-in recovery code, read the way the server reads it
 * (server/handlers/auth.ts normalizeRecovery): spaces and dashes dropped, any case.
 */
export function isSignInCode(code: string): boolean {
  const bare = code.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(bare) || /^[0-9a-f]{20}$/i.test(bare);
}

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
    unlockKeys: fromPromise<UnlockAnswer, { secret: string }>(async () => {
      throw new Error('unlockKeys not provided');
    }),
  },
  delays: { idleWarning: IDLE_WARNING_MS, idleFinal: IDLE_FINAL_MS, activityRefresh: ACTIVITY_REFRESH_MS },
  actions: {
    /** Deletes this handler's drafts on this device (a sign-out by choice). */
    discardDrafts: (_, _handlerId: string) => {},
    assignHandler: assign({ handler: ({ event }) => answer(event).handler ?? null }),
    assignSignIn: assign({
      handler: ({ event }) => answer(event).handler ?? null,
      keys: ({ event }) => answer(event).keys ?? null,
      recoveryCode: ({ event }) => answer(event).recoveryCode ?? '',
    }),
    assignKeys: assign({ keys: ({ event }) => unlocked(event).keys ?? null }),
    forgetRecoveryCode: assign({ recoveryCode: '' }),
    forgetKeys: assign({ keys: null, recoveryCode: '' }),
    forgetHandler: assign({ handler: null, keys: null, recoveryCode: '' }),
    assignPlace: assign({ place: ({ event, context }) => (event.type === 'place.change' ? event.path : context.place) }),
    keepPlace: assign({ resume: ({ context }) => (context.handler && context.place ? { handlerId: context.handler.id, path: context.place } : null), place: '' }),
    // Only the same account goes back to where it was.
    checkResume: assign({ resume: ({ event, context }) => (context.resume && context.resume.handlerId === answer(event).handler?.id ? context.resume : null) }),
    forgetResume: assign({ resume: null, place: '' }),
    assignEmail: assign({ email: ({ event, context }) => (event.type === 'signin.submit' ? event.email.trim() : context.email) }),
  },
  guards: {
    isSignedInAnswer: ({ event }) => answer(event).status === 200 && !!answer(event).handler,
    hasKeys: ({ context }) => context.keys !== null,
    hasRecoveryCode: ({ context }) => context.recoveryCode !== '',
    hasUnlockSecret: ({ event }) => event.type === 'keys.unlock' && event.secret.trim() !== '',
    isOpened: ({ event }) => unlocked(event).outcome === 'opened' && !!unlocked(event).keys,
    isKeysMissing: ({ event }) => unlocked(event).outcome === 'missing',
    hasCredentials: ({ event }) => event.type === 'signin.submit' && event.email.trim() !== '' && event.password !== '' && isSignInCode(event.code),
  },
}).createMachine({
  id: 'handlerSession',
  initial: 'checking',
  context: { handler: null, email: '', keys: null, recoveryCode: '', place: '', resume: null },
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
        onDone: [{ guard: 'isSignedInAnswer', target: 'signedIn', actions: ['checkResume', 'assignSignIn'] }, { target: 'signedOut.refused' }],
        onError: 'signedOut.unreachable',
      },
    },
    signedIn: {
      type: 'parallel',
      // The keys go the moment the session does, before the sign-out call answers.
      exit: 'forgetKeys',
      on: {
        signout: { target: 'signingOut', actions: [{ type: 'discardDrafts', params: ({ context }) => context.handler?.id ?? '' }, 'forgetResume'] },
        'session.expired': { target: 'signedOut.expired', actions: 'keepPlace' },
        'place.change': { actions: 'assignPlace' },
        'resume.done': { actions: 'forgetResume' },
      },
      states: {
        idle: {
          initial: 'active',
          states: {
            active: {
              initial: 'quiet',
              on: { 'session.touch': { target: 'active', reenter: true } },
              after: { idleWarning: 'warning' },
              states: {
                quiet: { on: { 'session.activity': 'typing' } },
                /** Typed since the last call: the session is refreshed within the minute. */
                typing: { after: { activityRefresh: 'touching' } },
                touching: {
                  invoke: {
                    id: 'touchSession',
                    src: 'refreshSession',
                    onDone: [
                      { guard: 'isSignedInAnswer', target: '#handlerSession.signedIn.idle.active', reenter: true, actions: 'assignHandler' },
                      { target: '#handlerSession.signedOut.expired', actions: 'keepPlace' },
                    ],
                    onError: 'typing',
                  },
                },
              },
            },
            /** The idle end is one minute away: a notice (no focus taken) offers to stay; typing stays too. */
            warning: {
              on: { 'session.stay': 'refreshing', 'session.activity': 'refreshing' },
              after: { idleFinal: { target: '#handlerSession.timingOut', actions: 'keepPlace' } },
            },
            refreshing: {
              invoke: {
                id: 'refreshSession',
                src: 'refreshSession',
                onDone: [{ guard: 'isSignedInAnswer', target: 'active', actions: 'assignHandler' }, { target: '#handlerSession.signedOut.expired', actions: 'keepPlace' }],
                onError: 'warning',
              },
            },
          },
        },
        keys: {
          initial: 'choosing',
          states: {
            choosing: { always: [{ guard: 'hasKeys', target: 'keysUnlocked' }, { target: 'keysLocked' }] },
            keysLocked: {
              initial: 'waiting',
              on: { 'keys.unlock': [{ guard: 'hasUnlockSecret', target: 'unlocking' }, { target: '.waiting' }] },
              states: {
                waiting: {},
                /** The password or code did not open the keys. */
                refused: {},
                /** The account has no keys yet (a legacy account signed in by token or session before its upgrade). */
                missing: {},
                /** The sealed keys could not be fetched. */
                unavailable: {},
              },
            },
            unlocking: {
              invoke: {
                id: 'unlockKeys',
                src: 'unlockKeys',
                input: ({ event }) => ({ secret: event.type === 'keys.unlock' ? event.secret : '' }),
                onDone: [
                  { guard: 'isOpened', target: 'keysUnlocked', actions: 'assignKeys' },
                  { guard: 'isKeysMissing', target: 'keysLocked.missing' },
                  { target: 'keysLocked.refused' },
                ],
                onError: 'keysLocked.unavailable',
              },
            },
            keysUnlocked: {
              initial: 'checkingRecoveryCode',
              states: {
                checkingRecoveryCode: { always: [{ guard: 'hasRecoveryCode', target: 'showingRecoveryCode' }, { target: 'ready' }] },
                /** The key recovery code made by a legacy account's upgrade, shown once. */
                showingRecoveryCode: { on: { 'recovery.noted': { target: 'ready', actions: 'forgetRecoveryCode' } } },
                ready: {},
              },
            },
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
