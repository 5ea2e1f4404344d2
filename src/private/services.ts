/**
 * The private area's effects, given to the machines with `.provide()`: the OpenID
 * client (oidc-client-ts), the private API calls and navigation. Created once per
 * mounted private layout, never as a module singleton.
 *
 * Tokens live in sessionStorage (this tab only, gone when it closes) and in memory;
 * nothing goes to localStorage. The provider's state and PKCE verifier too.
 *
 * Showing a page needs only the stored session, which is read here directly from
 * oidc-client-ts's own entry (`storedSession`); the library itself (≈ 15 kB Brotli)
 * is loaded when something needs it — a sign-in, its callback, a refresh, a log-out
 * — and fetched once the first page is on screen (performance.md, seventh round).
 */
import { forgetReporterKey, readReporterKey } from './reporterKey.ts';
import { REPORTER_WRAP_HEADER, keyOfEpoch, offerReporterWrap, postSealedComment, postSealedTranscriptComment, transcriptPath, postSealedMessage, putSealedIdentity, putSealedNotify, readSealedCase, sealedIdentityOf, type CaseKey } from './sealed.ts';
import type { User, UserManager } from 'oidc-client-ts';
import { fromCallback, fromPromise } from 'xstate';
import type { ApiClient } from '../api/client.ts';
import { ApiError, createApiClient } from '../api/client.ts';
import type { RuntimeConfig } from '../api/config.ts';
import { MY_CASE_PATH, storedUserKey, takeCaseInHand, takeEarlyRead } from '../../core/earlyRead.ts';
import { toBcp47, type Language } from '../i18n/index.ts';
import type {
  CheckResult,
  LoadCaseResult,
  LoadCaseInput,
  PrivateCase,
  SignInAgainResult,
  UnlockCaseInput,
  VerifyResult,
} from '../../machines/session.ts';
import type { ChatEvent, DraftFile, PostMessageInput, UploadFilesInput } from '../../machines/chat.ts';
import { CASE_UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER, forgetUploads, loadResumable, newUploadMemory } from '../uploads/memory.ts';
import type { FileChecks } from '../metadata/checks.ts';
import type { CallResult as IdentityCallResult, NotifyWish, WhistleblowerDto } from '../../machines/identityForm.ts';

export const CALLBACK_PATH = '/private/callback';
export const LANDING_PATH = '/private/status';

/** The parts of oidc-client-ts's stored user this area reads (its `User` as stored). */
export interface StoredSession {
  access_token: string;
  refresh_token?: string;
  expires_at?: number;
}

/** Seconds left, as oidc-client-ts's `User.expires_in` (undefined: no expiry given). */
export function secondsLeft(session: Pick<StoredSession, 'expires_at'>, now = Date.now()): number | undefined {
  return session.expires_at === undefined ? undefined : session.expires_at - Math.floor(now / 1000);
}

/** As oidc-client-ts's `User.expired`. */
export function isExpired(session: Pick<StoredSession, 'expires_at'>, now = Date.now()): boolean {
  const left = secondsLeft(session, now);
  return left !== undefined && left <= 0;
}

export interface PrivateServices {
  /** oidc-client-ts's client, loaded on first use; one per services object. */
  userManager(): Promise<UserManager>;
  /** The session stored in this tab, read without the library; null when none or unreadable. */
  storedSession(): StoredSession | null;
  /** Forgets the stored session at once (log-out, a 401, a failed refresh). */
  forgetSession(): void;
  /** Refreshes with the refresh token; concurrent callers share one request. */
  refresh(): Promise<User | null>;
  api: ApiClient;
  /** Bearer token for calls made outside the API client (uploads with progress, downloads). */
  accessToken(): Promise<string | null>;
  /** The reporter key handed over by the sign-in page, in memory (src/private/reporterKey.ts); null when none came. */
  reporterKey(): Promise<CryptoKey | null>;
  /** A sealed case's data key, opened in this page (src/private/sealed.ts); null for a case the server keys. */
  caseKey(): CaseKey | null;
  holdCaseKey(key: CaseKey | null): void;
  /** Another OpenID provider signs in (config.json names it): no sign-in page of ours hands a reporter key over. */
  externalIssuer: boolean;
  /** Derives the reporter key from the case password typed here (src/private/unlock.ts) and holds it as a handed-over one. */
  unlockWith(caseNumber: string, password: string, signal?: AbortSignal): Promise<CryptoKey | null>;
  /** Forgets a reporter key that opened nothing (the tab's handover too), so a reload asks again. */
  dropReporterKey(): void;
}

export function statusOf(err: unknown): number {
  return err instanceof ApiError && typeof err.status === 'number' ? err.status : 0;
}

export function createPrivateServices(config: RuntimeConfig, publicApi: ApiClient, origin: string): PrivateServices {
  const id = config.idSettings ?? {
    authority: `${origin}/idp/realms/whistleblower`,
    realm: 'whistleblower',
    clientId: 'whistleblower-app',
  };
  const storage = window.sessionStorage;
  const userKey = storedUserKey(id.authority, id.clientId);
  let manager: Promise<UserManager> | undefined;
  const userManager = () =>
    (manager ??= import('oidc-client-ts').then(({ UserManager, WebStorageStateStore }) => {
      const store = new WebStorageStateStore({ store: storage });
      return new UserManager({
        authority: id.authority,
        client_id: id.clientId,
        redirect_uri: `${origin}${CALLBACK_PATH}`,
        popup_redirect_uri: `${origin}${CALLBACK_PATH}`,
        post_logout_redirect_uri: `${origin}/`,
        response_type: 'code',
        scope: 'openid offline_access',
        userStore: store,
        stateStore: store,
        // The session chart owns every timer: no library timers, no iframes polling.
        automaticSilentRenew: false,
        monitorSession: false,
        loadUserInfo: false,
        includeIdTokenInSilentRenew: false,
      });
    }).catch((err: unknown) => {
      manager = undefined; // a failed download is tried again next time
      throw err;
    }));
  const storedSession = (): StoredSession | null => {
    try {
      const stored = JSON.parse(storage.getItem(userKey) ?? 'null') as Partial<StoredSession> | null;
      if (!stored || typeof stored.access_token !== 'string' || !stored.access_token) return null;
      return {
        access_token: stored.access_token,
        refresh_token: typeof stored.refresh_token === 'string' ? stored.refresh_token : undefined,
        expires_at: typeof stored.expires_at === 'number' ? stored.expires_at : undefined,
      };
    } catch {
      return null;
    }
  };
  // Read into memory once per page, when the private area opens (issue 37): after a
  // sign-in the provider's redirect always loads the page anew.
  let reporterKey: Promise<CryptoKey | null> = readReporterKey(storage);
  let caseKey: CaseKey | null = null;
  // Each read opens the key afresh; the copy it replaces may still be sealing a message, so only the session's end zeroes it.
  const holdCaseKey = (key: CaseKey | null) => {
    if (!key) caseKey?.dataKey.fill(0);
    caseKey = key;
  };
  const forgetSession = () => {
    try {
      storage.removeItem(userKey);
    } catch {
      // storage unavailable: nothing was kept there either
    }
    forgetReporterKey(storage);
    reporterKey = Promise.resolve(null);
    holdCaseKey(null);
  };
  // One refresh at a time: refresh tokens rotate, and a second use of the same one
  // would make the provider revoke the whole grant.
  let inflight: Promise<User | null> | null = null;
  const refresh = () =>
    (inflight ??= userManager()
      .then((m) => m.signinSilent())
      .finally(() => {
        inflight = null;
      }));
  // The chart refreshes every 60 s; a call never leaves with a token that has
  // (nearly) run out anyway, e.g. after the computer slept through a tick.
  const accessToken = async () => {
    let user: StoredSession | null = storedSession();
    if (user?.refresh_token && (isExpired(user) || (secondsLeft(user) ?? 0) < 10)) {
      const before = user;
      user = await refresh().then((fresh) => (fresh ? storedSession() : before), () => before);
    }
    return user && !isExpired(user) ? user.access_token : null;
  };
  const api = createApiClient({
    baseUrl: publicApi.baseUrl,
    companyHost: window.location.hostname,
    getAccessToken: accessToken,
    // 401/403 are answered by the calling machine, which tells the session.
  });
  const externalIssuer = id.authority.replace(/\/$/, '') !== `${origin}/idp/realms/whistleblower`;
  const dropReporterKey = () => {
    forgetReporterKey(storage);
    reporterKey = Promise.resolve(null);
  };
  const unlockWith = async (caseNumber: string, password: string, signal?: AbortSignal) => {
    const { handOverFromPassword } = await import('./unlock.ts');
    try {
      await handOverFromPassword({ origin, caseNumber, password }, storage, signal);
    } catch (err) {
      dropReporterKey();
      throw err;
    }
    reporterKey = readReporterKey(storage);
    return reporterKey;
  };
  return { userManager, storedSession, forgetSession, refresh, api, accessToken, reporterKey: () => reporterKey, caseKey: () => caseKey, holdCaseKey, externalIssuer, unlockWith, dropReporterKey };
}

/** The `case_number` claim of the access token (the provider puts it there). */
export function caseNumberOf(user: { access_token?: string } | null | undefined): string | null {
  const token = user?.access_token;
  if (!token) return null;
  try {
    const payload = token.split('.')[1]!;
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { case_number?: string };
    return json.case_number ?? null;
  } catch {
    return null;
  }
}

const never = () => new Promise<never>(() => {});

/**
 * Once the first page has been on screen a moment and the main thread is idle: what
 * loads then (the OpenID client, the expired-session dialog) takes nothing from the
 * first page's download and render on a slow phone, and is there long before the
 * first refresh (60 s) could need it.
 */
export function afterFirstPage(run: () => void): void {
  setTimeout(() => {
    if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(run, { timeout: 3000 });
    else run();
  }, 1500);
}

/** Actors and actions for the session chart. */
export function sessionImplementations(
  s: PrivateServices,
  nav: { replace(path: string): void; home(): void; error(): void; path(): string },
  language: () => Language,
) {
  let callback: Promise<User | undefined> | undefined;
  let known: { etag: string; data: PrivateCase } | undefined;
  let sealedCase = false;
  // The case read that verified the token (spec §4 Session: "the case endpoint is
  // called to verify the token"), so that entering the private area costs one read,
  // not a check and a read. The chart still renders nothing private before it
  // answered 200, and its first loadCase takes this answer (once, and only a 200;
  // anything else is read again).
  let early: Promise<LoadCaseResult> | undefined | null; // null: taken
  // The answer the page's head script asked for before the scripts ran
  // (core/earlyRead.ts) is looked at once, by the first check.
  let headLookedAt = false;
  // A server-keyed case being migrated gets its reporter wrap from this page, once per
  // page load, when the case read says one is wanted (sealed-migration.md "Migration";
  // the header comes only with SEALED_CASES=browser), and only with a reporter key in hand.
  let wrapOffered = false;
  const offerWrapOnce = (res: Response) => {
    if (wrapOffered || res.headers.get(REPORTER_WRAP_HEADER) !== 'wanted') return;
    wrapOffered = true;
    void s.reporterKey().then((key) => offerReporterWrap(s.api, key)).catch(() => false);
  };
  const answerOf = async (res: Response): Promise<LoadCaseResult> => {
    const data = (await res.json()) as PrivateCase;
    const etag = res.headers.get('etag');
    known = etag ? { etag, data } : undefined;
    return { status: 200, data };
  };
  const readCase = async (current: PrivateCase | null, signal?: AbortSignal, prefetched?: Promise<Response>): Promise<LoadCaseResult> => {
    if (prefetched) {
      // Only a 200 is taken as it is; anything else is asked again below, so that the
      // failure reaches the chart with the API client's status and error code.
      try {
        const res = await prefetched;
        if (res.status === 200) {
          const answer = await answerOf(res);
          offerWrapOnce(res);
          return answer;
        }
      } catch {
        // read again below
      }
    }
    // A case sealed in the browser (issue 37): the usual read answers 409 CASE_SEALED;
    // once it has, the page reads the sealed view straight away.
    const readSealed = async (): Promise<LoadCaseResult> => {
      try {
        const result = await readSealedCase(s.api, await s.reporterKey(), s.holdCaseKey, signal);
        // An external issuer handed no key over: the page asks for the case password and derives it (issue 37).
        if (result.keyMissing && s.externalIssuer) {
          s.dropReporterKey();
          return { ...result, passwordWanted: true };
        }
        return result;
      } catch (err) {
        return { status: statusOf(err), data: null };
      }
    };
    if (sealedCase) return readSealed();
    // Held in memory only: the ETag of the case the chart holds, so the 60-second
    // reload of an unchanged case is a 304 without a body (the chart keeps its copy).
    const headers: Record<string, string> = known && known.data === current ? { 'if-none-match': known.etag } : {};
    try {
      const res = await s.api.request(MY_CASE_PATH, { signal, headers });
      const answer = await answerOf(res);
      offerWrapOnce(res);
      return answer;
    } catch (err) {
      if (statusOf(err) === 409 && err instanceof ApiError && err.code === 'CASE_SEALED') {
        sealedCase = true;
        return readSealed();
      }
      return { status: statusOf(err), data: null };
    }
  };
  /**
   * The session chart's input: the case, if the head's case read has answered 200,
   * asked for with the token this tab holds. Taken once; the answer is then spent, and the chart's later reads ask the server (with this case's ETag).
   */
  const caseInHand = (): PrivateCase | null => {
    if (headLookedAt) return null;
    const user = s.storedSession();
    const answer = user && !isExpired(user) ? takeCaseInHand(user.access_token) : null;
    if (!answer) return null;
    headLookedAt = true;
    early = null;
    const data = answer.data as PrivateCase;
    known = answer.etag ? { etag: answer.etag, data } : undefined;
    return data;
  };
  return {
    caseInHand,
    actors: {
      checkSession: fromPromise<CheckResult, void>(async () => {
        const url = new URL(window.location.href);
        if (url.pathname === CALLBACK_PATH && (url.searchParams.has('state') || url.searchParams.has('error'))) {
          // The sign-in-again popup: its state lives with the opener, which completes
          // the sign-in; this window only hands the answer over and closes.
          if (window.opener && window.opener !== window) {
            await (await s.userManager()).signinPopupCallback(url.href);
            return never();
          }
          // Once per URL, even if React mounts the layout twice.
          callback ??= s.userManager().then((m) => m.signinCallback(url.href));
          const user = await callback;
          if (!user) return never(); // a popup's callback window: the opener takes it over
          const returnTo = (user.state as { returnTo?: string } | undefined)?.returnTo;
          nav.replace(returnTo && returnTo.startsWith('/private/') && returnTo !== CALLBACK_PATH ? returnTo : LANDING_PATH);
          return { authenticated: true, caseNumber: caseNumberOf(user) };
        }
        const user = s.storedSession();
        if (user && !isExpired(user)) return { authenticated: true, caseNumber: caseNumberOf(user) };
        if (user?.refresh_token) {
          try {
            const fresh = await s.refresh();
            if (fresh) return { authenticated: true, caseNumber: caseNumberOf(fresh) };
          } catch {
            s.forgetSession();
          }
        }
        return { authenticated: false };
      }),
      signIn: fromPromise<void, void>(async () => {
        const path = nav.path();
        await (await s.userManager()).signinRedirect({
          state: { returnTo: path === CALLBACK_PATH ? LANDING_PATH : path },
          ui_locales: toBcp47(language()),
        });
        return never();
      }),
      verifyToken: fromPromise<VerifyResult, void>(async () => {
        const firstCheck = !headLookedAt;
        headLookedAt = true;
        const pre = firstCheck ? takeEarlyRead(await s.accessToken().catch(() => null)) : null;
        if (pre) {
          // Asked with this token: a refusal stands as answered (a 401 is a 401). No
          // answer at all is asked again below.
          const status = await pre.myCase.then((res) => res.status).catch(() => undefined);
          // A sealed case answers the usual read 409 CASE_SEALED: its own read follows below.
          if (status !== undefined && status !== 200 && status !== 409) return { status };
        }
        // The case endpoint verifies the token (spec §4 Session); a 200 is also the
        // first case, which the chart's loadCase then takes instead of asking again.
        const read = readCase(null, undefined, pre?.myCase);
        early = read;
        return { status: (await read).status };
      }),
      loadCase: fromPromise<LoadCaseResult, LoadCaseInput>(async ({ input, signal }) => {
        const first = early;
        early = null; // taken once; a later check does not start another
        if (first) {
          const result = await first;
          if (result.status === 200 && !signal.aborted) return result;
        }
        return readCase(input.current, signal);
      }),
      refreshToken: fromPromise<void, { minValidity: number }>(async ({ input }) => {
        const user = s.storedSession();
        if (!user) throw new Error('no session');
        if (!isExpired(user) && (secondsLeft(user) ?? 0) > input.minValidity) return;
        const fresh = await s.refresh();
        if (!fresh) throw new Error('refresh failed');
      }),
      signInAgain: fromPromise<SignInAgainResult, void>(async () => {
        const user = await (await s.userManager()).signinPopup({ ui_locales: toBcp47(language()) });
        return { caseNumber: caseNumberOf(user) };
      }),
      unlockCase: fromPromise<LoadCaseResult, UnlockCaseInput>(async ({ input, signal }) => {
        if (!input.caseNumber) throw new Error('no case number in the token');
        const key = await s.unlockWith(input.caseNumber, input.password, signal);
        sealedCase = true;
        try {
          const result = await readSealedCase(s.api, key, s.holdCaseKey, signal);
          if (result.keyMissing) s.dropReporterKey();
          return result;
        } catch (err) {
          return { status: statusOf(err), data: null };
        }
      }),
      signOut: fromPromise<void, void>(async () => {
        await (await s.userManager()).signoutRedirect({ post_logout_redirect_uri: `${window.location.origin}/` });
        return never();
      }),
    },
    actions: {
      navigateToHome: () => nav.home(),
      navigateToError: () => nav.error(),
      clearSession: () => s.forgetSession(),
    },
  };
}

/**
 * The chat composer's effects (machines/chat.ts): each attached file as a resumable
 * upload in an upload session bound to the case (src/uploads/resumable.ts, shared with
 * the online form), then the message naming the uploads. `checks`: each file goes as
 * its hidden-data check settled (docs/decisions/metadata-removal.md).
 *
 * The session and the upload addresses are kept in memory for the composer's next
 * send (never in storage), so sending again after a failure or a cancel continues
 * what had arrived; `forgetUploads` drops them once a message took them.
 */
export function chatEffects(s: PrivateServices, checks?: FileChecks) {
  const memory = newUploadMemory();
  // The upload client comes after the messages page's first screen, long before a send.
  void loadResumable().catch(() => undefined);
  const failure = (err: unknown): ChatEvent => ({
    type: 'upload.failed',
    status: statusOf(err),
    code: err instanceof ApiError ? err.code : undefined,
    retryAfterSeconds: err instanceof ApiError ? err.retryAfterSeconds : undefined,
  });
  return {
    actors: {
      uploadFiles: fromCallback<ChatEvent, UploadFilesInput>(({ input, sendBack }) => {
        const abort = new AbortController();
        let finished = false;
        const key = s.caseKey();
        if (key) {
          // A sealed case (issue 37): checked, sealed here and sent as ciphertext (src/private/sealedFiles.ts).
          void sealedUploads(s, key, checks, input.files, (e) => sendBack(e), abort.signal).then((last) => {
            // Finished before the chart hears it: its leaving `uploading` must not abort (delete) what arrived.
            finished = true;
            if (last && !abort.signal.aborted) sendBack(last);
          });
          return () => {
            if (!finished) abort.abort();
          };
        }
        void (async () => {
          const files = checks ? await checks.resolve(input.files) : input.files;
          // A file removed since the last try: its upload would still count against the session's five.
          if ([...memory.urls.keys()].some((f) => !input.files.includes(f as DraftFile))) forgetUploads(memory);
          if (!memory.session) {
            try {
              const res = await s.api.request(CASE_UPLOAD_SESSIONS_PATH, { method: 'POST', signal: abort.signal });
              memory.session = ((await res.json()) as { uploadSession: string }).uploadSession;
            } catch (err) {
              if (!abort.signal.aborted) sendBack(failure(err));
              return;
            }
          }
          const session = memory.session;
          let sendFiles;
          try {
            ({ sendFiles } = await loadResumable());
          } catch (err) {
            if (!abort.signal.aborted) sendBack(failure(err));
            return;
          }
          const result = await sendFiles(s.api, session, files as File[], (p) => sendBack({ type: 'upload.progress', ...p }), abort.signal, memory, input.files);
          if (abort.signal.aborted) return;
          finished = true;
          if (Array.isArray(result)) return sendBack({ type: 'upload.finished', session, ids: result });
          // The session went (24 hours idle) or was spent: sendFiles forgot it.
          if (!memory.session) return sendBack({ type: 'upload.failed', status: 401, code: 'UPLOAD_SESSION_INVALID' });
          if (result && 'rateLimited' in result) return sendBack({ type: 'upload.failed', status: 429, retryAfterSeconds: result.rateLimited.retryAfterSeconds });
          sendBack({ type: 'upload.failed', status: result && 'refusedFile' in result ? 415 : 0 });
        })();
        return () => {
          // A cancel stops the uploads; once they all arrived they are the message's to take.
          if (!finished) abort.abort();
        };
      }),
      postMessage: fromCallback<ChatEvent, PostMessageInput>(({ input, sendBack }) => {
        const abort = new AbortController();
        const done = (err: unknown) => {
          if (abort.signal.aborted) return;
          const e = err instanceof ApiError ? err : undefined;
          sendBack({ type: 'post.done', status: statusOf(err), code: e?.code, retryAfterSeconds: e?.retryAfterSeconds });
        };
        // A sealed case: the message is sealed here under the case's key; only the envelope leaves (issue 37).
        const key = s.caseKey();
        if (key) {
          postSealedMessage(s.api, key, input.message, abort.signal, input.uploads).then((res) => sendBack({ type: 'post.done', status: res.status }), done);
          return () => abort.abort();
        }
        const form = new FormData();
        form.append('messageDto', new Blob([JSON.stringify({ message: input.message, ...(input.uploads ? { uploads: input.uploads.ids } : {}) })], { type: 'application/json' }));
        s.api
          .request('/api/private/case/messages/new', {
            method: 'POST',
            body: form,
            headers: input.uploads ? { [UPLOAD_SESSION_HEADER]: input.uploads.session } : {},
            signal: abort.signal,
          })
          .then(
            (res) => sendBack({ type: 'post.done', status: res.status }),
            (err: unknown) => {
              if (!abort.signal.aborted) {
                const e = err instanceof ApiError ? err : undefined;
                sendBack({ type: 'post.done', status: statusOf(err), code: e?.code, retryAfterSeconds: e?.retryAfterSeconds });
              }
            },
          );
        return () => abort.abort();
      }),
    },
    actions: {
      forgetUploads: () => forgetUploads(memory),
    },
  };
}

/**
 * A sealed case's files for the composer: each after its metadata check, content-checked,
 * sealed and uploaded in a fresh sealed session of the case (sealedFiles.ts says why
 * fresh); reports the chart's upload events.
 */
async function sealedUploads(s: PrivateServices, key: CaseKey, checks: FileChecks | undefined, draft: readonly DraftFile[], progress: (e: ChatEvent) => void, signal: AbortSignal): Promise<ChatEvent | null> {
  try {
    const files = (checks ? await checks.resolve(draft) : draft) as (File & { name: string })[];
    const res = await s.api.request(CASE_UPLOAD_SESSIONS_PATH, { method: 'POST', signal });
    const session = ((await res.json()) as { uploadSession: string }).uploadSession;
    const { sendSealedFiles } = await import('./sealedFiles.ts');
    const result = await sendSealedFiles(s.api, key, session, files, (p) => progress({ type: 'upload.progress', ...p }), signal);
    if (signal.aborted) return null;
    if (Array.isArray(result)) return { type: 'upload.finished', session, ids: result };
    if ('refusedFile' in result) return { type: 'upload.failed', status: 415, code: 'FILE_CONTENT_MISMATCH' };
    if ('rateLimited' in result) return { type: 'upload.failed', status: 429 };
    if ('sessionLost' in result) return { type: 'upload.failed', status: 401, code: 'UPLOAD_SESSION_INVALID' };
    return { type: 'upload.failed', status: result.status };
  } catch (err) {
    const e = err instanceof ApiError ? err : undefined;
    return signal.aborted ? null : { type: 'upload.failed', status: statusOf(err), code: e?.code, retryAfterSeconds: e?.retryAfterSeconds };
  }
}

async function callStatus(run: () => Promise<unknown>): Promise<IdentityCallResult> {
  try {
    await run();
    return { status: 200 };
  } catch (err) {
    return { status: statusOf(err) };
  }
}

/** `current`: the identity as this page opened it (a sealed case's rules are applied here: the server cannot read it). */
export function identityActors(s: PrivateServices, current: () => PrivateCase['whistleblower'] = () => null, language: () => string | undefined = () => undefined) {
  return {
    // A sealed case's notification address: sealed here to the verified key log's mail key; only the box leaves (sealed.ts putSealedNotify).
    changeNotification: fromPromise<IdentityCallResult, NotifyWish>(({ input }) => {
      const key = s.caseKey();
      if (!key) return Promise.resolve({ status: 0 });
      return callStatus(() => putSealedNotify(s.api, key.caseId, { ...input, language: language() }));
    }),
    updateWhistleblower: fromPromise<IdentityCallResult, WhistleblowerDto>(({ input }) => {
      // A sealed case: the identity is sealed here under the case's key; only the envelope leaves (issue 37).
      const key = s.caseKey();
      if (key) return callStatus(() => putSealedIdentity(s.api, key, sealedIdentityOf(input, current())));
      return callStatus(() => s.api.request('/api/private/case/whistleblower/update', { method: 'POST', body: input }));
    }),
    requestPasswordUpdate: fromPromise<IdentityCallResult, void>(() =>
      callStatus(() => s.api.request('/api/private/case/password/request-update', { method: 'PUT' })),
    ),
  };
}

export function reviewActors(s: PrivateServices) {
  return {
    sendComment: fromPromise<IdentityCallResult, { comment: string }>(({ input }) => {
      // A sealed case: the comment is sealed here under the case's key; only the envelope leaves (issue 37).
      const key = s.caseKey();
      return callStatus(() => (key ? postSealedComment(s.api, key, input.comment) : s.api.request('/api/private/case/comments', { method: 'POST', body: input })));
    }),
    // The approval names the version shown by its hash (docs/decisions/record-versions.md).
    approveCase: fromPromise<IdentityCallResult, { sha256: string | null }>(({ input }) =>
      callStatus(() => s.api.request('/api/private/case/approve', { method: 'PUT', body: input.sha256 ? { sha256: input.sha256 } : {} })),
    ),
  };
}

/** The review chart's effects for the transcript of voice file `fileId` (issue 40): the same calls as the record's, on the file's paths. */
export function transcriptReviewActors(s: PrivateServices, fileId: string) {
  return {
    sendComment: fromPromise<IdentityCallResult, { comment: string }>(({ input }) => {
      const key = s.caseKey();
      return callStatus(() => (key ? postSealedTranscriptComment(s.api, key, fileId, input.comment) : s.api.request(transcriptPath(fileId, 'comments'), { method: 'POST', body: input })));
    }),
    approveCase: fromPromise<IdentityCallResult, { sha256: string | null }>(({ input }) =>
      callStatus(() => s.api.request(transcriptPath(fileId, 'approve'), { method: 'PUT', body: input.sha256 ? { sha256: input.sha256 } : {} })),
    ),
  };
}

/** Hands bytes in this page to the browser as a download named `name`: never rendered inline. */
export function deliverBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** Fetches `path` and hands it to the browser as a download named `name`: never rendered inline. */
async function download(s: PrivateServices, path: string, accept: string, name: string): Promise<number> {
  try {
    const res = await s.api.request(path, { headers: { accept } });
    deliverBlob(await res.blob(), name);
    return 200;
  } catch (err) {
    return statusOf(err);
  }
}

/** Downloads the approved version of the record: the text, its SHA-256 and approval time. */
export function downloadRecord(s: PrivateServices, caseNumber: string, version: number): Promise<number> {
  return download(s, `/api/private/case/record/${version}/approved`, 'text/plain', `record-${caseNumber}-v${version}.txt`);
}

/** Downloads a file of the case as an attachment. */
/** A file's bytes for playing it here (a voice message, issue 40): in memory only. */
export async function fileBlob(s: PrivateServices, file: { id: string; name?: string; plainSize?: number | null; mimeType?: string; epoch?: number }): Promise<Blob> {
  const res = await s.api.request(`/api/private/case/files/${encodeURIComponent(file.id)}`, { headers: { accept: 'application/octet-stream' } });
  const key = s.caseKey();
  if (!key) return res.blob();
  // A sealed case's voice message: opened here (a short clip; the player holds it in memory anyway).
  const { openSealedFile } = await import('../../core/crypto/index.ts');
  const fileKey = keyOfEpoch(key, file.epoch);
  if (!fileKey) throw new Error('This page holds no key of the file\'s epoch.');
  const opened = await new Response(openSealedFile(fileKey, { id: file.id, name: file.name, size: file.plainSize ?? null }, res.body!)).blob();
  return new Blob([opened], { type: file.mimeType ?? '' });
}

export function downloadFile(s: PrivateServices, file: { id: string; name: string }): Promise<number> {
  return download(s, `/api/private/case/files/${encodeURIComponent(file.id)}`, 'application/octet-stream', file.name);
}
