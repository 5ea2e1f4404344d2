/**
 * The migration of legacy cases (issue 37 Build 7, docs/decisions/blind-server.md
 * "Sealed on arrival; migration"; server/keys/migrate-wraps.ts, server/keys/retire-master.ts).
 * A data folder made by the previous code path (SEALED_CASES off: server-keyed cases, one
 * of them from before verifiers) gets an anchor and a certified handler key; the job wraps
 * every case to the recovery key and to the keys entitled to its officer, once; the
 * reporters' sign-ins with the password add their wraps; `npm run keys -- retire-master`
 * (a real child process) names what still needs the master key and exits 1, then, once
 * nothing does, seals every case and destroys the key. Afterwards every case opens for its
 * handler, the recovery key and its reporter with core/crypto, and the old key opens nothing.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form, listFiles } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, formAction, openSignIn, signIn, signInWithVerifier, withProof } from './identity-flow.ts';
import { migrateWraps, WRAP_MIGRATION_JOB } from '../../server/keys/migrate-wraps.ts';
import { CaseCrypto } from '../../server/crypto/case-crypto.ts';
import {
  deriveReporterKeys, fieldContext, fromBase64, keyId, makeHandlerKeys, openFieldText, openCaseParts, openSealedBox, signKeyLogEntry, toBase64, unwrapDataKey, wrapDataKey,
  PBKDF2_DEFAULT, SEALED_COLUMNS, type HandlerKeys, type Kdf,
} from '../../core/crypto/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOST = 'retire.test';
const PASSWORDS = { legacy: 'a password from before verifiers', verifier: 'a password with a verifier', changed: 'the verifier case after its password change', browser: 'a password the browser derived from' };
const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers.splice(0).reverse()) await s.cleanup().catch(() => undefined);
});

function retireCli(s: TestServer): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'server/cli/keys.ts'), 'retire-master'],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: s.dataDir, DATABASE_URL: s.config.databaseUrl ?? '', MASTER_KEY: '', NEW_MASTER_KEY: '' }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Made {
  number: string;
  id: string;
  description: string;
  follow: boolean;
}

describe('migrating a data folder of the previous release and retiring the master key', () => {
  it('wraps every case, names what still needs the key, seals every case and destroys it; every case still opens', async () => {
    // 1. The previous code path: SEALED_CASES off (the previous release's default), server-keyed cases.
    const first = await startTestServer({ seedDemo: false, sealedCases: 'off' });
    servers.push(first);
    const [officerA, officerB] = (await addCompany(first.ctx.db, { id: 'retire', hosts: [HOST], officers: 2 })).officerIds as [string, string];
    const made: Record<'legacy' | 'verifier' | 'anonymous' | 'browser', Made> = {} as never;
    // The report form of the previous release: a reservation, and a verifier derived in the browser (the server never saw the password).
    const reservation = (await call(first, 'POST', '/api/public/case/reservation', { host: HOST })).data;
    const browserKeys = await deriveReporterKeys({ caseNumber: reservation.caseNumber, password: PASSWORDS.browser, salt: Buffer.from(reservation.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
    for (const [name, officer, account] of [
      ['legacy', officerA, { follow: true, password: PASSWORDS.legacy }],
      ['verifier', officerA, { follow: true, password: PASSWORDS.verifier }],
      ['anonymous', officerB, { follow: false }],
      ['browser', officerA, { follow: true, reservation: reservation.reservation, verifier: b64u(browserKeys.verifier), kdf: PBKDF2_DEFAULT }],
    ] as const) {
      const description = `Retire-${name}-report-${name.length * 7919}`;
      const headers: Record<string, string> = 'reservation' in account ? { 'x-case-reservation': account.reservation } : {};
      const res = await call(first, 'POST', '/api/public/case/new/by-form', { host: HOST, headers, body: form('caseDto', caseDto(officer, { description, caseAccount: account })) });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
      const row = await first.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key']).where('case_number', '=', res.data.caseDto.caseNumber).executeTakeFirstOrThrow();
      expect([row.sealed, row.wrapped_key === null]).toEqual([false, false]);
      made[name] = { number: res.data.caseDto.caseNumber, id: row.id, description, follow: account.follow };
    }
    // A handler's message on the server-keyed path: sealed by the server under the case's key, in the field format core/crypto opens.
    const MESSAGE = 'Retire-handler-question-6620';
    const olga = await createHandlerAccount(first.ctx.db, 'retire', 'Olga');
    expect((await call(first, 'POST', `/api/handler/cases/${made.verifier.number}/messages`, { token: olga.token, body: form('messageDto', { message: MESSAGE }) })).status).toBe(201);
    // A case from before verifiers: the password's own hash, no salt or kdf.
    await first.ctx.db.updateTable('case_account').set({ password_hash: await first.ctx.passwords.hash(PASSWORDS.legacy), salt: null, kdf: null }).where('case_id', '=', made.legacy.id).execute();
    const oldMasterKey = readFileSync(path.join(first.dataDir, 'master.key'), 'utf8').trim();
    await first.stop();

    // 2. This release with SEALED_CASES=browser: an anchor, a certified handler key for officer A.
    const second = await startTestServer({ seedDemo: false, sealedCases: 'browser', dataDir: first.dataDir, databaseUrl: first.config.databaseUrl });
    servers.push(second);
    const recovery = await makeHandlerKeys();
    expect((await call(second, 'PUT', '/api/admin/companies/retire/key-anchor', { headers: { authorization: `Bearer ${second.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
    const hanne = await createHandlerAccount(second.ctx.db, 'retire', 'Hanne', { officers: [officerA] });
    const hanneKeys: HandlerKeys = await makeHandlerKeys();
    const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
      seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(hanneKeys.ecdhSpki), ecdsaSpki: toBase64(hanneKeys.ecdsaSpki), officerIds: [officerA], addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
    });
    expect((await call(second, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);
    await second.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hanneKeys.ecdhSpki), ecdsa_spki: Buffer.from(hanneKeys.ecdsaSpki) }).where('id', '=', hanne.id).execute();
    // The append started the job in the background; this run waits for it and finds nothing left.
    expect(await second.ctx.jobs.runNow(WRAP_MIGRATION_JOB)).toBe(true);
    const recoveryId = await keyId(recovery.ecdhSpki);
    const hanneId = await keyId(hanneKeys.ecdhSpki);
    const wrapsOf = async (s: TestServer, id: string) => s.ctx.db.selectFrom('case_key_wrap').select(['recipient_key_id', 'kind', 'wrap', 'epoch']).where('case_id', '=', id).orderBy('kind').execute();
    expect((await wrapsOf(second, made.legacy.id)).map((w) => [w.kind, w.recipient_key_id, w.epoch])).toEqual([['handler', hanneId, 1], ['recovery', recoveryId, 1]]);
    expect((await wrapsOf(second, made.verifier.id)).map((w) => w.kind)).toEqual(['handler', 'recovery']);
    // Officer B has no certified key: the recovery key alone.
    expect((await wrapsOf(second, made.anonymous.id)).map((w) => w.kind)).toEqual(['recovery']);
    // Idempotent: a second pass makes nothing.
    expect(await migrateWraps(second.ctx)).toEqual({ cases: 0, wraps: 0 });
    // The cases themselves are unchanged: still server-keyed.
    expect((await second.ctx.db.selectFrom('report_case').select('sealed').execute()).every((r) => !r.sealed)).toBe(true);

    // The legacy reporter signs in as the sign-in page does: the password once, with a fresh verifier (PBKDF2 here).
    const salt = Buffer.alloc(16, 9);
    const legacyKeys = await deriveReporterKeys({ caseNumber: made.legacy.number, password: PASSWORDS.legacy, salt, kdf: PBKDF2_DEFAULT });
    const b = new Browser(second, HOST);
    const { page } = await openSignIn(b);
    const res = await b.postForm(formAction(page.text), withProof(page.text, { caseNumber: made.legacy.number, password: PASSWORDS.legacy, newVerifier: b64u(legacyKeys.verifier), newSalt: salt.toString('base64url'), newKdf: JSON.stringify(PBKDF2_DEFAULT) }));
    expect(res.status, res.text).toBe(303);
    expect((await wrapsOf(second, made.legacy.id)).map((w) => w.kind)).toEqual(['handler', 'recovery', 'reporter']);

    // The reporter who signs in by verifier: the private area wraps the data key in the browser, to the reporter key it holds.
    const browserTokens = (await signInWithVerifier(new Browser(second, HOST), made.browser.number, PASSWORDS.browser)).tokens!;
    const offer = await call(second, 'GET', '/api/private/case/my-case/reporter-wrap', { host: HOST, token: browserTokens.access_token });
    expect(offer.status, JSON.stringify(offer.data)).toBe(200);
    expect(offer.data.caseId).toBe(made.browser.id);
    const browserWrap = toBase64(await wrapDataKey(browserKeys.reporterKey, fromBase64(offer.data.dataKey), { caseId: made.browser.id, epoch: offer.data.epoch }));
    expectError(await call(second, 'PUT', '/api/private/case/my-case/reporter-wrap', { host: HOST, token: browserTokens.access_token, json: { wrap: 'AAAA' } }), 400, 'BAD_WRAP', 'wrap');
    expect((await call(second, 'PUT', '/api/private/case/my-case/reporter-wrap', { host: HOST, token: browserTokens.access_token, json: { wrap: browserWrap } })).status).toBe(201);
    expectError(await call(second, 'PUT', '/api/private/case/my-case/reporter-wrap', { host: HOST, token: browserTokens.access_token, json: { wrap: browserWrap } }), 409, 'REPORTER_WRAP_NOT_NEEDED');
    expectError(await call(second, 'GET', '/api/private/case/my-case/reporter-wrap', { host: HOST, token: browserTokens.access_token }), 409, 'REPORTER_WRAP_NOT_NEEDED');
    await second.stop();

    // 3. Still needed: the followed case whose reporter has no wrap yet. Exit 1, nothing changed.
    const blocked = await retireCli(second);
    expect(blocked.code, blocked.stderr).toBe(1);
    expect(blocked.stdout).toContain('needs the master key: 1 followed case(s) whose reporter has no wrap yet');
    expect(blocked.stdout).toContain('1 case(s) no certified handler key opens yet');
    expect(blocked.stderr).toContain('the master key is still needed');
    expect(readFileSync(path.join(first.dataDir, 'master.key'), 'utf8').trim()).toBe(oldMasterKey);

    // The other reporter signs in the way a scripted client does (the plain password): the server derives the reporter key once.
    const third = await startTestServer({ seedDemo: false, sealedCases: 'browser', dataDir: first.dataDir, databaseUrl: first.config.databaseUrl });
    servers.push(third);
    const verifierTokens = await signIn(new Browser(third, HOST), made.verifier.number, PASSWORDS.verifier);
    const firstWrap = (await wrapsOf(third, made.verifier.id)).find((w) => w.kind === 'reporter');
    expect(firstWrap).toBeTruthy();
    // A password change (spec §4): the wrap to the old reporter key goes, the plain path's new key gets one.
    expect((await call(third, 'PUT', '/api/private/case/password/request-update', { host: HOST, token: verifierTokens.access_token })).status).toBe(200);
    await signIn(new Browser(third, HOST), made.verifier.number, PASSWORDS.verifier, { newPassword: PASSWORDS.changed });
    const wraps = await wrapsOf(third, made.verifier.id);
    expect(wraps.map((w) => w.kind)).toEqual(['handler', 'recovery', 'reporter']);
    expect(Buffer.from(wraps.find((w) => w.kind === 'reporter')!.wrap)).not.toEqual(Buffer.from(firstWrap!.wrap));
    await third.stop();

    // 4. Nothing needs the key any more: it goes (the shred keys of the server-keyed cases are there until then).
    expect(listFiles(third.ctx.caseKeys.root)).toHaveLength(4);
    const retired = await retireCli(third);
    expect(retired.stderr).toBe('');
    expect(retired.code).toBe(0);
    expect(retired.stdout).toContain('sealed 4 case(s)');
    expect(retired.stdout).toContain('destroyed the master key');
    expect(retired.stdout).toContain('Backups taken before now still hold the old master key');
    const oldBytes = Buffer.from(oldMasterKey, 'base64');
    for (const f of listFiles(first.dataDir)) {
      const bytes = readFileSync(f);
      expect(bytes.includes(Buffer.from(oldMasterKey)) || bytes.includes(oldBytes), f).toBe(false);
    }
    expect(listFiles(third.ctx.caseKeys.root)).toEqual([]);

    // 5. Every case is sealed and opens for its handler (or only the recovery key), the recovery key and its reporter.
    const fourth = await startTestServer({ seedDemo: false, sealedCases: 'browser', dataDir: first.dataDir, databaseUrl: first.config.databaseUrl });
    servers.push(fourth);
    const legacyColumns = await fourth.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'details_enc']).execute();
    expect(legacyColumns.every((r) => r.sealed && r.wrapped_key === null)).toBe(true);
    const verifierKeys = await (async () => {
      const account = await fourth.ctx.db.selectFrom('case_account').select(['salt', 'kdf']).where('case_id', '=', made.verifier.id).executeTakeFirstOrThrow();
      return deriveReporterKeys({ caseNumber: made.verifier.number, password: PASSWORDS.changed, salt: new Uint8Array(account.salt!), kdf: JSON.parse(account.kdf!) as Kdf });
    })();
    for (const c of Object.values(made)) {
      const at = { caseId: c.id, epoch: 1 };
      const details = legacyColumns.find((r) => r.id === c.id)!.details_enc;
      const opens = async (dk: Uint8Array) => JSON.parse(await openFieldText(dk, fieldContext(c.id, SEALED_COLUMNS.details), details)).description as string;
      const wraps = await wrapsOf(fourth, c.id);
      const recoveryWrap = wraps.find((w) => w.kind === 'recovery')!;
      expect(await opens(await openSealedBox(recovery.ecdh, recoveryWrap.wrap, { ...at, recipientKeyId: recoveryId }))).toBe(c.description);
      if (c !== made.anonymous) {
        const view = await call(fourth, 'GET', `/api/handler/cases/${c.number}/sealed`, { token: hanne.token });
        expect(view.status, JSON.stringify(view.data)).toBe(200);
        expect(await opens(await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { ...at, recipientKeyId: hanneId }))).toBe(c.description);
      }
      if (c.follow) {
        const password = c === made.legacy ? PASSWORDS.legacy : c === made.browser ? PASSWORDS.browser : PASSWORDS.changed;
        const tokens = await signIn(new Browser(fourth, HOST), c.number, password);
        const mine = await call(fourth, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
        expect(mine.status, JSON.stringify(mine.data)).toBe(200);
        const reporterKey = c === made.legacy ? legacyKeys.reporterKey : c === made.browser ? browserKeys.reporterKey : verifierKeys.reporterKey;
        const dk = await unwrapDataKey(reporterKey, fromBase64(mine.data.wrap.wrap), at);
        expect(await opens(dk)).toBe(c.description);
        // The thread as the private area opens it: the server-keyed messages open under the same key.
        const parts = await openCaseParts(dk, mine.data);
        expect(parts.messages.map((m) => m.text)).toEqual(c === made.verifier ? [MESSAGE] : []);
      }
      // The server's plain view is gone with the key.
      if (c !== made.anonymous) expect((await call(fourth, 'GET', `/api/handler/cases/${c.number}`, { token: hanne.token })).data.error.code).toBe('CASE_SEALED');
    }
    // The old key opens none of the server wrappings a dead page might still hold: there are no shred keys left to pair it with.
    const old = new CaseCrypto(oldBytes);
    expect(old.opensCheck((await fourth.ctx.db.selectFrom('meta').select('value').where('key', '=', 'master_key_check').executeTakeFirstOrThrow()).value)).toBe(false);
  }, 180_000);
});
