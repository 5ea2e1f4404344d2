/**
 * The reporter's password change on a sealed case (spec §4; docs/decisions/sealed-cases.md
 * "Password change"; server/cases/reporter-rewrap.ts): the new-password step of a sealed
 * case carries the case's reporter wraps, takes the new verifier, salt and kdf with the
 * data key re-wrapped under the new reporter key, and swaps all of them in one
 * transaction. Every malformed or incomplete re-wrap, and the plain password (the server
 * cannot re-wrap), is refused with its code and changes nothing. After the change the
 * old password's key opens no wrap of the case and the new one opens it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, deriveVerifier, formAction, openSignIn, signInWithVerifier, withProof, type RawResponse } from './identity-flow.ts';
import { sealCase, DETAILS_COLUMN, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { handOverFromPassword } from '../../src/private/unlock.ts';
import { readReporterKey } from '../../src/private/reporterKey.ts';
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';
import {
  deriveReporterKeys, fieldContext, fromBase64, keyId, makeHandlerKeys, openFieldText, signKeyLogEntry, toBase64, unwrapDataKey, wrapDataKey,
  PBKDF2_DEFAULT, type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';

const HOST = 'sealed-password.test';
const MARKER = 'MARKER-rewrap-51c0';
let server: TestServer;
let officer: string;

const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  // `localhost` too: the private area's own look-up below is a real fetch, which resolves only that name.
  officer = (await addCompany(server.ctx.db, { id: 'sealedpw', hosts: [HOST, 'localhost'], officers: 1 })).officerIds[0]!;
  const recovery: HandlerKeys = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealedpw/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  const hanne = await createHandlerAccount(server.ctx.db, 'sealedpw', 'Hanne', { officers: [officer] });
  const keys = await makeHandlerKeys();
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(keys.ecdhSpki), ecdsaSpki: toBase64(keys.ecdsaSpki), officerIds: [officer],
    addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry as KeyLogEntry })).status).toBe(201);
});
afterAll(async () => server?.cleanup());

/** A followed sealed case made as the report form makes it; its data key and the reporter key of `password`. */
async function sealedCase(password: string) {
  const r = await call(server, 'POST', '/api/public/case/reservation', { host: HOST });
  expect(r.status).toBe(201);
  const keys = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password, salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
  const caseAccount = { follow: true, reservation: r.data.reservation, verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT };
  const sealed = await sealCase(await log(), { officerId: officer, details: { description: `Invoices forged ${MARKER}` }, account: { caseAccount, reporterKey: keys.reporterKey } });
  const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body, headers: { 'x-case-reservation': r.data.reservation } });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return { caseNumber: r.data.caseNumber as string, caseId: sealed.caseId, dataKey: sealed.dataKey, oldKey: keys.reporterKey };
}

/** Signs in with the old password and asks for a new one; then signs in again (a fresh browser) to reach the new-password step. */
async function atNewPasswordStep(caseNumber: string, password: string) {
  const first = await signInWithVerifier(new Browser(server, HOST), caseNumber, password);
  expect(first.tokens).toBeTruthy();
  const asked = await call(server, 'PUT', '/api/private/case/password/request-update', { host: HOST, token: first.tokens!.access_token });
  expect(asked.status, JSON.stringify(asked.data)).toBe(200);
  const b = new Browser(server, HOST);
  const { page } = await openSignIn(b);
  const { verifier } = await deriveVerifier(b, caseNumber, password);
  const step = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber, verifier }));
  expect(step.status, step.text).toBe(200);
  return { b, step };
}

const attr = (html: string, name: string) => {
  const m = new RegExp(`${name}="([^"]*)"`).exec(html);
  return m ? m[1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&') : null;
};

async function state(caseId: string) {
  const account = await server.ctx.db.selectFrom('case_account').select(['password_hash', 'salt', 'kdf', 'must_change_password']).where('case_id', '=', caseId).executeTakeFirstOrThrow();
  const wraps = await server.ctx.db.selectFrom('case_key_wrap').select(['epoch', 'recipient_key_id', 'kind', 'wrap']).where('case_id', '=', caseId).orderBy('recipient_key_id').execute();
  return { account: { ...account, salt: account.salt && Buffer.from(account.salt).toString('hex') }, wraps: wraps.map((w) => ({ ...w, wrap: Buffer.from(w.wrap).toString('hex') })) };
}

describe('the password change of a sealed case', () => {
  it('refuses the plain password and every malformed re-wrap, changing nothing; takes the re-wrap with the new verifier; then only the new password opens the case', async () => {
    const { caseNumber, caseId, dataKey, oldKey } = await sealedCase('the old password');
    const { b, step } = await atNewPasswordStep(caseNumber, 'the old password');
    // The step carries what the page re-wraps: the case id and its reporter wraps, as stored.
    expect(attr(step.text, 'data-case-id')).toBe(caseId);
    const pageWraps = JSON.parse(attr(step.text, 'data-wraps')!) as { epoch: number; wrap: string }[];
    expect(pageWraps.map((w) => w.epoch)).toEqual([1]);
    const at = { caseId, epoch: 1 };
    expect(Buffer.from(await unwrapDataKey(oldKey, fromBase64(pageWraps[0]!.wrap), at))).toEqual(Buffer.from(dataKey));
    const before = await state(caseId);

    const salt = Buffer.alloc(16, 7);
    const next = await deriveReporterKeys({ caseNumber, password: 'the new password', salt, kdf: PBKDF2_DEFAULT });
    const newWrap = toBase64(await wrapDataKey(next.reporterKey, dataKey, at));
    const secret = { verifier: Buffer.from(next.verifier).toString('base64url'), salt: salt.toString('base64url'), kdf: JSON.stringify(PBKDF2_DEFAULT) };
    const badVersion = fromBase64(newWrap);
    badVersion[0] = 2;
    let page: RawResponse = step;
    const refusals: [Record<string, string>, string][] = [
      [{ newPassword: 'the new password', confirmPassword: 'the new password' }, 'REWRAP_REQUIRED'],
      [secret, 'BAD_WRAP'],
      [{ ...secret, wraps: 'not json' }, 'BAD_WRAP'],
      [{ ...secret, wraps: JSON.stringify({ epoch: 1, wrap: newWrap }) }, 'BAD_WRAP'],
      [{ ...secret, wraps: JSON.stringify([{ epoch: 1, wrap: toBase64(fromBase64(newWrap).subarray(0, 60)) }]) }, 'BAD_WRAP'],
      [{ ...secret, wraps: JSON.stringify([{ epoch: 1, wrap: toBase64(badVersion) }]) }, 'BAD_WRAP'],
      [{ ...secret, wraps: JSON.stringify([{ epoch: 1, wrap: 'a wrap?' }]) }, 'BAD_ENVELOPE'],
      [{ ...secret, wraps: JSON.stringify([{ epoch: 1.5, wrap: newWrap }]) }, 'BAD_WRAP'],
      // The old wrap sent back as it is: only the old password would open it.
      [{ ...secret, wraps: JSON.stringify(pageWraps) }, 'BAD_WRAP'],
      [{ ...secret, wraps: JSON.stringify([{ epoch: 1, wrap: newWrap }, { epoch: 1, wrap: newWrap }]) }, 'DUPLICATE_WRAP'],
      [{ ...secret, wraps: JSON.stringify([]) }, 'WRAP_MISSING'],
      [{ ...secret, wraps: JSON.stringify([{ epoch: 1, wrap: newWrap }, { epoch: 2, wrap: newWrap }]) }, 'WRAP_UNEXPECTED'],
    ];
    for (const [fields, code] of refusals) {
      const res = await b.postForm(formAction(page.text), fields);
      expect(res.status, `${code}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(attr(res.text, 'data-code'), JSON.stringify(fields)).toBe(code);
      // Still the new-password step of the same case, with the same wraps to re-wrap.
      expect(JSON.parse(attr(res.text, 'data-wraps')!)).toEqual(pageWraps);
      expect(await state(caseId)).toEqual(before);
      page = res;
    }
    // While nothing changed, the old password still leads to this step (the change is still asked for).
    const stillAsked = (await signInWithVerifier(new Browser(server, HOST), caseNumber, 'the old password')).refused!;
    expect(stillAsked.status).toBe(200);
    expect(JSON.parse(attr(stillAsked.text, 'data-wraps')!)).toEqual(pageWraps);

    const done = await b.postForm(formAction(page.text), { ...secret, wraps: JSON.stringify([{ epoch: 1, wrap: newWrap }]) });
    expect(done.status, done.text.slice(0, 300)).toBe(303);
    const after = await state(caseId);
    expect(after.account.must_change_password).toBe(false);
    expect(after.account.salt).toBe(salt.toString('hex'));
    // Only the reporter wrap changed; the handler's and the recovery key's stay as they were.
    expect(after.wraps.filter((w) => w.kind !== 'reporter')).toEqual(before.wraps.filter((w) => w.kind !== 'reporter'));
    const stored = after.wraps.filter((w) => w.kind === 'reporter');
    expect(stored.map((w) => w.wrap)).toEqual([Buffer.from(fromBase64(newWrap)).toString('hex')]);
    // The old password's key opens no wrap of the case any more; the new one opens it.
    for (const w of after.wraps) await expect(unwrapDataKey(oldKey, Buffer.from(w.wrap, 'hex'), at)).rejects.toThrow();
    expect(Buffer.from(await unwrapDataKey(next.reporterKey, Buffer.from(stored[0]!.wrap, 'hex'), at))).toEqual(Buffer.from(dataKey));

    // Sign-in: the old password is refused, the new one signs in and its key opens the case.
    expect((await signInWithVerifier(new Browser(server, HOST), caseNumber, 'the old password')).refused?.status).toBe(400);
    const signedIn = await signInWithVerifier(new Browser(server, HOST), caseNumber, 'the new password');
    expect(signedIn.tokens).toBeTruthy();
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: signedIn.tokens!.access_token });
    expect(mine.status, JSON.stringify(mine.data)).toBe(200);
    const again = await deriveVerifier(new Browser(server, HOST), caseNumber, 'the new password');
    const dk = await unwrapDataKey(again.key, fromBase64(mine.data.wrap.wrap), { caseId, epoch: mine.data.epoch });
    expect(await openFieldText(dk, fieldContext(caseId, DETAILS_COLUMN), fromBase64(mine.data.envelopes.details))).toContain(MARKER);
    const old = await deriveVerifier(new Browser(server, HOST), caseNumber, 'the old password');
    await expect(unwrapDataKey(old.key, fromBase64(mine.data.wrap.wrap), { caseId, epoch: mine.data.epoch })).rejects.toThrow();
  });
});

/** A tab's sessionStorage, in memory. */
function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() { return m.size; },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

// With an external OpenID issuer the private area derives the reporter key itself from the
// case password (src/private/unlock.ts, machines/session.ts `askingPassword`).
describe('the case password typed in the private area (an external issuer signed in)', () => {
  it('derives, with the salt and kdf the server answers, the key that opens the case; another password’s key does not; the password is in no request', async () => {
    const { caseNumber, caseId, dataKey } = await sealedCase('typed in the page');
    const origin = `http://localhost:${server.port}`;
    const sent: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (url: RequestInfo | URL, init?: RequestInit) => {
      sent.push(`${String(url)} ${String(init?.body ?? '')}`);
      return realFetch(url, init);
    }) as typeof fetch;
    try {
      const storage = memoryStorage();
      await handOverFromPassword({ origin, caseNumber, password: 'typed in the page' }, storage);
      const handed = JSON.parse(storage.getItem(REPORTER_KEY_HANDOVER)!) as { k: string; t: number };
      expect(Object.keys(handed).sort()).toEqual(['k', 't']);
      const key = (await readReporterKey(storage))!;
      const wrap = await server.ctx.db.selectFrom('case_key_wrap').select(['wrap', 'epoch']).where('case_id', '=', caseId).where('kind', '=', 'reporter').executeTakeFirstOrThrow();
      expect(Buffer.from(await unwrapDataKey(key, wrap.wrap, { caseId, epoch: wrap.epoch }))).toEqual(Buffer.from(dataKey));

      const wrong = memoryStorage();
      await handOverFromPassword({ origin, caseNumber, password: 'not the password' }, wrong);
      await expect(unwrapDataKey((await readReporterKey(wrong))!, wrap.wrap, { caseId, epoch: wrap.epoch })).rejects.toThrow();

      expect(sent).toHaveLength(2);
      for (const line of sent) {
        expect(line).toContain('/idp/realms/whistleblower/signin/kdf');
        expect(line).not.toMatch(/typed in the page|not the password/);
        expect(line).not.toContain(handed.k);
      }
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

