/**
 * The reporter's session in the private area (spec §4 Session, §6, §8).
 *
 * checking → loggingIn (the provider's sign-in page) → verifying (a call to the
 * case endpoint, spec §4) → active → expired, and loggedOut (or
 * passwordChangeRequested, which stays to say what happens next).
 *
 * Invariants:
 * - Nothing private renders before `verifying` answered 200: views show private
 *   pages only under the `signedIn` tag. If the first case read then fails, the
 *   reporter goes to the error page rather than wait on "signing in" forever.
 * - In `active` the token is refreshed every 60 s (delay `refreshInterval`), asking
 *   for 70 s of minimum validity, and the case is reloaded on entry and after each
 *   refresh, so status changes reach an idle reporter. A page being shown
 *   (`case.show`) reads the case only if no read is under way, so entering the
 *   area costs one my-case call; `case.reload` (after a change) always reads again.
 * - A failed refresh never throws the reporter out: `expired` keeps the case and
 *   keeps the pages (and so the chat composer's draft) mounted, and offers to sign
 *   in again in a popup (docs/decisions/session-expiry.md). Only an explicit
 *   log-out, a 401/403 from the server or a sign-in as another case leaves.
 * - A page whose head already holds the first case read's answer (200), asked for
 *   with this tab's token, starts signed in with that case (input
 *   `caseInHand`, guard `hasCaseInHand`): its first screen is the page itself, and
 *   the case is not asked for twice. Anything less starts at `checking`.
 * - A sealed case (issue 37) opens only with the reporter key the sign-in page handed
 *   over: without it (or with one that does not unwrap the case's key) the case read
 *   answers `keyMissing`, and `keyMissing` says to log in again instead of showing a
 *   case it cannot open; nothing private renders there.
 * - With an external OpenID issuer no sign-in page of ours derived a key, so such an
 *   answer says `passwordWanted`: `askingPassword` asks for the case password once,
 *   `unlocking` derives the reporter key in the page from it and reads the case with it
 *   (the password goes from the event to the actor's input only, never into context);
 *   a password whose key does not open the case is `askingPassword.refused`, anything
 *   else that fails `askingPassword.failed`, and nothing private renders until the
 *   case opened.
 * - Effects (oidc-client-ts, fetch, navigation) are actors and actions supplied
 *   with `.provide()` by the view layer; the chart itself touches no browser API.
 */
import { assign, fromPromise, raise, setup, type DoneActorEvent } from 'xstate';
import type { CaseStatus, MessageType, SubmissionType, Violation } from './schema.ts';

export const REFRESH_INTERVAL_MS = 60_000;
export const MIN_VALIDITY_SECONDS = 70;

export interface CaseFile {
  id: string;
  name: string;
  size: number;
  mimeType: string;
  created?: string;
  /** A sealed case's file: its true size from the sealed name (null: sealed unpadded). */
  plainSize?: number | null;
  /** A sealed case's file whose name did not open here: listed as such, not offered. */
  unopened?: boolean;
  /** A sealed case's file: the key epoch it is sealed under (absent: the first). */
  epoch?: number;
}
export interface CaseMessage {
  id: string;
  message: string;
  time: string;
  type: MessageType;
  createdByUserId: string;
  files: CaseFile[];
  /** A sealed case's message that did not open (altered, truncated, another key): named, the rest still shows. */
  unopened?: boolean;
}
export interface StatusEvent {
  status: CaseStatus;
  dateTime: string;
}
export interface PrivateWhistleblower {
  name: string;
  email?: string | null;
  phone?: string | null;
  phoneCountryCode?: string | null;
  notification?: boolean;
}
/** The case as read back from `GET /api/private/case/my-case` (docs/architecture.md). */
export interface RecordVersion {
  version: number;
  sha256: string;
  createdAt: string;
  approvedAt: string | null;
  text: string;
  /** A sealed case's version, opened and checked in this page: `unopened` when it did not open (text empty), `verified` false when its hash does not match the text. */
  unopened?: boolean;
  verified?: boolean;
}

/** The transcript of a voice file (issue 40; docs/decisions/voice-messages.md "Transcript"): a record of its own, approved by the reporter. */
export interface Transcript {
  fileId: string;
  /** The latest version's approval; null while it awaits the reporter. */
  approvedAt: string | null;
  versions: RecordVersion[];
  comments: { comment: string; created: string; unopened?: boolean }[];
}

export interface PrivateCase {
  caseNumber: string;
  status: CaseStatus;
  description?: string | null;
  violation?: Violation | null;
  repeatedViolations?: boolean | null;
  created: string;
  receivedDate?: string | null;
  submission: { type: SubmissionType };
  approvedAt: string | null;
  pendingWhistleblowerAction: boolean;
  protectionOfficer?: { id?: string; name: string; jobTitle?: string; company?: string; phone?: string } | null;
  whistleblowerRelation?: string | null;
  reportedPersons?: { name: string; jobTitle: string; phoneOrEmail: string }[];
  reportedUnit?: string | null;
  subsidiary?: { id?: string; name: string } | string | null;
  caseAccount?: { follow: boolean };
  files: CaseFile[];
  messages: CaseMessage[];
  events: StatusEvent[];
  caseStatusHistory: StatusEvent[];
  whistleblower: PrivateWhistleblower | null;
  /** The record of an oral report, its latest version and every version (docs/decisions/record-versions.md). */
  report?: { text: string; updatedAt: string; version?: number; sha256?: string; versions?: RecordVersion[] } | null;
  comments?: { comment: string; created: string; unopened?: boolean }[];
  /** The transcripts of the case's voice files, one per file that has one. */
  transcripts?: Transcript[];
  /** When the retention period ends and the case is deleted (server/retention); null while it is handled. */
  scheduledDeletion?: string | null;
  /** Present for a case sealed in the browser (issue 37), opened here: the parts that did not open. */
  /** `notify`: whether a notification address is stored (sealed to the mail key apart from the identity). */
  sealed?: { unopened: ('details' | 'whistleblower')[]; notify?: boolean };
}

export interface CheckResult {
  authenticated: boolean;
  caseNumber?: string | null;
}
export interface VerifyResult {
  status: number;
}
/** `current` is the case already held: the read may answer "unchanged" (304) for it, keeping it. */
export interface LoadCaseInput {
  current: PrivateCase | null;
}

export interface LoadCaseResult {
  status: number;
  data: PrivateCase | null;
  /** A sealed case, and no reporter key in this page that opens it: log in again. */
  keyMissing?: boolean;
  /** With `keyMissing`: this page can derive the key from the case password itself (an external issuer signed in). */
  passwordWanted?: boolean;
}
/** The case password typed in the page, for the reporter key (an external issuer's sign-in, issue 37). */
export interface UnlockCaseInput {
  caseNumber: string | null;
  password: string;
}
export interface SignInAgainResult {
  caseNumber: string | null;
}

export interface SessionContext {
  caseNumber: string | null;
  caseData: PrivateCase | null;
}

export interface SessionInput {
  /** The case the page's head read with a token check that answered 200 (core/earlyRead.ts). */
  caseInHand?: PrivateCase | null;
}

export type SessionEvent =
  | { type: 'case.reload' }
  /** A private page was shown: read the case unless a read is already under way. */
  | { type: 'case.show' }
  | { type: 'session.logout' }
  /** The server already ended every sign-in of the case (password change): only forget the tokens, and say what comes next. */
  | { type: 'session.ended' }
  | { type: 'session.unauthorized' }
  | { type: 'session.resume' }
  /** The case password, typed once after an external issuer's sign-in: the page derives the reporter key from it. */
  | { type: 'password.submit'; password: string };

const notProvided = <TOutput, TInput = void>(name: string) =>
  fromPromise<TOutput, TInput>(async () => {
    throw new Error(`session actor "${name}" not provided`);
  });

const output = <T>(event: unknown) => (event as DoneActorEvent<T>).output;

export const sessionMachine = setup({
  types: {} as { context: SessionContext; events: SessionEvent; input: SessionInput },
  actors: {
    /** Completes a sign-in callback if the URL holds one, then reads the stored user. */
    checkSession: notProvided<CheckResult>('checkSession'),
    /** Starts the redirect to the provider; on success the page leaves. */
    signIn: notProvided<void>('signIn'),
    verifyToken: notProvided<VerifyResult>('verifyToken'),
    loadCase: notProvided<LoadCaseResult, LoadCaseInput>('loadCase'),
    /** Refreshes only if the token expires within `minValidity` seconds. */
    refreshToken: notProvided<void, { minValidity: number }>('refreshToken'),
    /** Signs in again without leaving the page (popup), so drafts survive. */
    signInAgain: notProvided<SignInAgainResult>('signInAgain'),
    signOut: notProvided<void>('signOut'),
    /** Derives the reporter key from the case password in the page, hands it over as the sign-in page would, and reads the case with it. */
    unlockCase: notProvided<LoadCaseResult, UnlockCaseInput>('unlockCase'),
  },
  actions: {
    navigateToHome: () => {},
    navigateToError: () => {},
    clearSession: () => {},
    reloadCase: raise({ type: 'case.reload' }),
    /** Nothing of a case stays in memory that this page could not open again. */
    forgetCase: assign({ caseData: null }),
    assignCaseNumber: assign({ caseNumber: ({ event }) => output<CheckResult>(event).caseNumber ?? null }),
    assignCase: assign({
      caseData: ({ event }) => output<LoadCaseResult>(event).data,
      caseNumber: ({ event, context }) => output<LoadCaseResult>(event).data?.caseNumber ?? context.caseNumber,
    }),
  },
  guards: {
    isAuthenticated: ({ event }) => output<CheckResult>(event).authenticated,
    isVerified: ({ event }) => output<VerifyResult>(event).status === 200,
    isUnauthorizedAnswer: ({ event }) => [401, 403].includes(output<{ status: number }>(event).status),
    isKeyMissing: ({ event }) => output<LoadCaseResult>(event).keyMissing === true,
    isPasswordWanted: ({ event }) => output<LoadCaseResult>(event).passwordWanted === true,
    hasPassword: ({ event }) => event.type === 'password.submit' && event.password.length > 0,
    hasCase: ({ event }) => {
      const o = output<LoadCaseResult>(event);
      return o.status === 200 && o.data !== null;
    },
    /** The token was checked and the case read before the chart started. */
    hasCaseInHand: ({ context }) => context.caseData !== null,
    /** Nothing read yet: the private area was just entered. */
    hasNoCaseYet: ({ context }) => context.caseData === null,
    isSameCase: ({ event, context }) => {
      const n = output<SignInAgainResult>(event).caseNumber;
      return n !== null && n === context.caseNumber;
    },
  },
  delays: {
    refreshInterval: REFRESH_INTERVAL_MS,
  },
}).createMachine({
  id: 'session',
  initial: 'checking',
  context: ({ input }) => ({ caseNumber: input?.caseInHand?.caseNumber ?? null, caseData: input?.caseInHand ?? null }),
  states: {
    checking: {
      always: { guard: 'hasCaseInHand', target: '#session.active.caseData.ready' },
      invoke: {
        id: 'checkSession',
        src: 'checkSession',
        onDone: [{ guard: 'isAuthenticated', target: 'verifying', actions: 'assignCaseNumber' }, { target: 'loggingIn' }],
        onError: 'signInFailed',
      },
    },
    loggingIn: {
      invoke: { id: 'signIn', src: 'signIn', onError: 'signInFailed' },
    },
    verifying: {
      invoke: {
        id: 'verifyToken',
        src: 'verifyToken',
        onDone: [
          { guard: 'isVerified', target: 'active' },
          // A 401/403 anywhere goes to / (spec §6, §8), verification included: the
          // dead token is forgotten. Any other non-200 is the error page.
          { guard: 'isUnauthorizedAnswer', target: 'unauthorized' },
          { target: 'verificationFailed' },
        ],
        onError: 'verificationFailed',
      },
    },
    active: {
      type: 'parallel',
      tags: ['signedIn'],
      on: {
        'session.unauthorized': 'unauthorized',
        'session.logout': 'loggingOut',
        'session.ended': 'passwordChangeRequested',
      },
      states: {
        caseData: {
          initial: 'loading',
          states: {
            loading: {
              on: { 'case.reload': { target: 'loading', reenter: true } },
              invoke: {
                id: 'loadCase',
                src: 'loadCase',
                input: ({ context }) => ({ current: context.caseData }),
                onDone: [
                  { guard: 'isUnauthorizedAnswer', target: '#session.unauthorized' },
                  { guard: 'isPasswordWanted', target: '#session.askingPassword' },
                  { guard: 'isKeyMissing', target: '#session.keyMissing' },
                  { guard: 'hasCase', target: 'ready', actions: 'assignCase' },
                  // Spec §4 Session: the case call on entering the private area verifies
                  // the sign-in; if it fails there is nothing to show: the error page.
                  { guard: 'hasNoCaseYet', target: '#session.verificationFailed' },
                  // Later failures are swallowed (spec §8): the last case read stays.
                  { target: 'ready' },
                ],
                onError: [{ guard: 'hasNoCaseYet', target: '#session.verificationFailed' }, { target: 'ready' }],
              },
            },
            ready: {
              on: { 'case.reload': 'loading', 'case.show': 'loading' },
            },
          },
        },
        token: {
          initial: 'waiting',
          states: {
            waiting: {
              after: { refreshInterval: 'refreshing' },
            },
            refreshing: {
              invoke: {
                id: 'refreshToken',
                src: 'refreshToken',
                input: { minValidity: MIN_VALIDITY_SECONDS },
                onDone: { target: 'waiting', actions: 'reloadCase' },
                onError: '#session.expired',
              },
            },
          },
        },
      },
    },
    expired: {
      tags: ['signedIn'],
      on: {
        'session.resume': 'resuming',
        'session.logout': 'loggingOut',
      },
    },
    resuming: {
      tags: ['signedIn'],
      invoke: {
        id: 'signInAgain',
        src: 'signInAgain',
        onDone: [{ guard: 'isSameCase', target: 'active' }, { target: 'unauthorized' }],
        // A closed or blocked popup: still expired, the offer stays.
        onError: 'expired',
      },
    },
    /** A sealed case this page holds no key for (e.g. the handed-over key is gone): log out and in again. */
    keyMissing: {
      entry: 'forgetCase',
      on: { 'session.logout': 'loggingOut' },
    },
    /** An external issuer signed in: the case password, asked for once, derives the reporter key here. */
    askingPassword: {
      entry: 'forgetCase',
      initial: 'idle',
      on: {
        'password.submit': [{ guard: 'hasPassword', target: 'unlocking' }, { target: '.empty' }],
        'session.logout': 'loggingOut',
      },
      states: {
        idle: {},
        /** Sent with nothing typed. */
        empty: {},
        /** The key this password derives does not open the case. */
        refused: {},
        /** The salt could not be read, or the derivation failed: try again. */
        failed: {},
      },
    },
    unlocking: {
      on: { 'session.logout': 'loggingOut' },
      invoke: {
        id: 'unlockCase',
        src: 'unlockCase',
        input: ({ context, event }) => ({ caseNumber: context.caseNumber, password: event.type === 'password.submit' ? event.password : '' }),
        onDone: [
          { guard: 'isUnauthorizedAnswer', target: 'unauthorized' },
          { guard: 'hasCase', target: '#session.active.caseData.ready', actions: 'assignCase' },
          { guard: 'isKeyMissing', target: 'askingPassword.refused' },
          { target: 'askingPassword.failed' },
        ],
        onError: 'askingPassword.failed',
      },
    },
    loggingOut: {
      invoke: { id: 'signOut', src: 'signOut', onDone: 'loggedOut', onError: 'loggedOut' },
    },
    loggedOut: { type: 'final', entry: ['clearSession', 'navigateToHome'] },
    /**
     * The server ended every sign-in for a password change: the tokens are
     * forgotten, but the reporter stays to read what happens next (issue 17 §2)
     * instead of landing on the front page without a word.
     */
    passwordChangeRequested: { type: 'final', entry: 'clearSession' },
    unauthorized: { type: 'final', entry: ['clearSession', 'navigateToHome'] },
    signInFailed: { type: 'final', entry: ['clearSession', 'navigateToHome'] },
    verificationFailed: { type: 'final', entry: 'navigateToError' },
  },
});
