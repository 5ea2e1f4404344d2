/**
 * A private page's head script starts the case read (which also verifies the token,
 * spec §4 Session) before the SPA's scripts have loaded (core/earlyRead.ts). It must find the session exactly
 * where oidc-client-ts keeps it, call the address the API client would, and do
 * nothing at all when there is no usable session.
 */
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { User, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import { EARLY_READ_GLOBAL, takeCaseInHand, takeEarlyRead, type EarlyRead } from '../../core/earlyRead.ts';
import { EARLY_READ_JS } from '../../core/earlyReadScript.ts';
import { apiBaseUrlOf } from '../../machines/config.ts';

class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, String(value));
  }
}

const ID = { authority: 'https://portal.example/idp/realms/whistleblower', realm: 'whistleblower', clientId: 'whistleblower-app' };

/** Signs in as the SPA does: oidc-client-ts stores the user in this tab's storage. */
async function signedIn(storage: Storage, token: string, secondsLeft: number) {
  const manager = new UserManager({
    authority: ID.authority,
    client_id: ID.clientId,
    redirect_uri: 'https://portal.example/private/callback',
    userStore: new WebStorageStateStore({ store: storage }),
  });
  await manager.storeUser(
    new User({ access_token: token, token_type: 'Bearer', profile: { sub: 'x', iss: ID.authority, aud: ID.clientId, exp: 0, iat: 0 }, expires_at: Math.floor(Date.now() / 1000) + secondsLeft, refresh_token: 'r' }),
  );
}

/** Runs the head script in a page of its own; returns the requests it made and what it left for the SPA. */
type Answer = () => Promise<Response>;
const ok: Answer = () => Promise.resolve(new Response('{}', { status: 200 }));

function runHead({
  storage,
  boot,
  pathname = '/private/status',
  myCase = ok,
}: { storage: Storage; boot: unknown; pathname?: string; myCase?: Answer }) {
  const calls: { url: string; init: RequestInit }[] = [];
  const page: Record<string, unknown> = {
    location: { pathname },
    sessionStorage: storage,
    document: { getElementById: (id: string) => (id === 'wb-boot' && boot !== undefined ? { textContent: JSON.stringify(boot) } : null) },
    fetch: (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return myCase();
    },
    JSON,
    Date,
    String,
  };
  page.window = page;
  runInContext(EARLY_READ_JS, createContext(page));
  return { calls, left: page[EARLY_READ_GLOBAL] as EarlyRead | undefined, page };
}

const api = (protocol: string, host: string, port: number | string) => ({ config: { api: { protocol, host, port }, idSettings: ID } });

describe('the early read of a private page', () => {
  it('reads the case, once, with the session oidc-client-ts stored, at the API client’s address', async () => {
    const storage = new MemoryStorage();
    await signedIn(storage, 'token-1', 300);
    const boot = api('https', 'portal.example', 443);
    const { calls, left } = runHead({ storage, boot });
    const base = apiBaseUrlOf(boot.config)!;
    // One read: the case endpoint verifies the token; a separate check would be a
    // second request beside the page's scripts on a slow phone's link.
    expect(calls.map((c) => c.url)).toEqual([`${base}/api/private/case/my-case`]);
    for (const c of calls) {
      expect(c.init.headers).toEqual({ accept: 'application/json', authorization: 'Bearer token-1' });
      expect(c.init.credentials).toBe('omit');
      expect(c.init.referrerPolicy).toBe('no-referrer');
    }
    expect(left?.token).toBe('token-1');
  });

  it.each([
    ['http', 'localhost', 9000],
    ['http', 'localhost', 80],
    ['https:', 'portal.example', '443'],
    ['https', 'portal.example', ''],
    ['https', '[::1]', 8443],
  ])('works out the address as the SPA does (%s %s %s)', async (protocol, host, port) => {
    const storage = new MemoryStorage();
    await signedIn(storage, 't', 300);
    const boot = api(protocol, host, port);
    const { calls } = runHead({ storage, boot });
    expect(calls[0]!.url).toBe(`${apiBaseUrlOf(boot.config)}/api/private/case/my-case`);
  });

  it('does nothing without a session, with one about to run out, on the sign-in callback or without the boot data', async () => {
    const none = runHead({ storage: new MemoryStorage(), boot: api('https', 'portal.example', 443) });
    expect(none.calls).toEqual([]);
    expect(none.left).toBeUndefined();

    const ending = new MemoryStorage();
    await signedIn(ending, 't', 12);
    expect(runHead({ storage: ending, boot: api('https', 'portal.example', 443) }).calls).toEqual([]);

    const fresh = new MemoryStorage();
    await signedIn(fresh, 't', 300);
    expect(runHead({ storage: fresh, boot: api('https', 'portal.example', 443), pathname: '/private/callback' }).calls).toEqual([]);
    expect(runHead({ storage: fresh, boot: undefined }).calls).toEqual([]);
    // Another client's session is not this one's.
    expect(runHead({ storage: fresh, boot: { config: { ...api('https', 'portal.example', 443).config, idSettings: { ...ID, clientId: 'other' } } } }).calls).toEqual([]);
  });

  it('never throws into the page, whatever the storage holds', () => {
    const storage = new MemoryStorage();
    storage.setItem(`oidc.user:${ID.authority}:${ID.clientId}`, '{not json');
    expect(runHead({ storage, boot: api('https', 'portal.example', 443) }).calls).toEqual([]);
    storage.setItem(`oidc.user:${ID.authority}:${ID.clientId}`, JSON.stringify({ access_token: 42, expires_at: 9e12 }));
    expect(runHead({ storage, boot: api('https', 'portal.example', 443) }).calls).toEqual([]);
  });

  it('hands its answer out once, and only to the session holding the same token', async () => {
    const storage = new MemoryStorage();
    await signedIn(storage, 'token-1', 300);
    const { page } = runHead({ storage, boot: api('https', 'portal.example', 443) });
    expect(takeEarlyRead('token-2', page)).toBeNull();
    expect(page[EARLY_READ_GLOBAL]).toBeUndefined();

    const again = runHead({ storage, boot: api('https', 'portal.example', 443) }).page;
    const taken = takeEarlyRead('token-1', again);
    expect(taken?.token).toBe('token-1');
    expect((await taken!.myCase).status).toBe(200);
    expect(takeEarlyRead('token-1', again)).toBeNull();
  });
});

describe('the case in hand', () => {
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const theCase = { caseNumber: '1234567890123456', status: 'NEW' };
  const caseAnswer: Answer = () => Promise.resolve(new Response(JSON.stringify(theCase), { status: 200, headers: { etag: '"v1"' } }));

  it('once the case read said 200, is the case with its ETag, taken once; the read itself stays readable', async () => {
    const storage = new MemoryStorage();
    await signedIn(storage, 'token-1', 300);
    const { page, left } = runHead({ storage, boot: api('https', 'portal.example', 443), myCase: caseAnswer });
    await settle();
    expect(takeCaseInHand('token-2', page)).toBeNull();
    expect(takeCaseInHand('token-1', page)).toEqual({ etag: '"v1"', data: theCase });
    expect(takeCaseInHand('token-1', page)).toBeNull();
    expect(takeEarlyRead('token-1', page)).toBeNull();
    expect(await (await left!.myCase).json()).toEqual(theCase);
  });

  it.each([
    ['the case read said 401', () => Promise.resolve(new Response('{}', { status: 401 }))],
    ['the case read said 500', () => Promise.resolve(new Response('{}', { status: 500 }))],
    ['the case read got no answer', () => Promise.reject(new TypeError('network'))],
    ['the case is still on its way', () => new Promise<Response>(() => {})],
  ] as [string, Answer][])('is nothing when %s: the answer is left for the session to look at', async (_name, myCase) => {
    const storage = new MemoryStorage();
    await signedIn(storage, 'token-1', 300);
    const { page } = runHead({ storage, boot: api('https', 'portal.example', 443), myCase });
    await settle();
    expect(takeCaseInHand('token-1', page)).toBeNull();
    expect(takeEarlyRead('token-1', page)?.token).toBe('token-1');
  });
});

describe('the stored session, read without oidc-client-ts', () => {
  it('has as many seconds left, and is expired exactly when, oidc-client-ts says', async () => {
    const { isExpired, secondsLeft } = await import('../../src/private/services.ts');
    // One clock for both: the library reads the time itself.
    const now = Date.now();
    vi.useFakeTimers({ now, toFake: ['Date'] });
    for (const offset of [-3600, -1, 0, 1, 9, 10, 70, 3600]) {
      const expires_at = Math.floor(now / 1000) + offset;
      const user = new User({ access_token: 'a', token_type: 'Bearer', profile: { sub: 'x', iss: ID.authority, aud: ID.clientId, exp: 0, iat: 0 }, expires_at });
      expect(secondsLeft({ expires_at }, now), `offset ${offset}`).toBe(user.expires_in);
      expect(isExpired({ expires_at }, now), `offset ${offset}`).toBe(user.expired);
    }
    vi.useRealTimers();
    expect(secondsLeft({})).toBeUndefined();
    expect(isExpired({})).toBe(false);
  });
});
