/**
 * The master key after it is loaded: a server refuses a key that does not open its
 * data, `npm run keys -- rotate-master` (a real child process) re-wraps every data
 * key so everything reads back under the new key and nothing under the old one, a
 * crash in the middle of a rotation is settled at the next start, and a server still
 * running with the old key creates no case.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { MasterKeyMismatch, rotateMasterKey } from '../../server/crypto/master-key.ts';
import * as OTPAuth from 'otpauth';
import { Browser, MOUNT } from './identity-flow.ts';
import { keyBundle, signInProof } from '../helpers/handler-keys.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DESCRIPTION = 'Rotation canary: the fuel cards are shared.';
const FILE = 'receipt line\n'.repeat(10_000); // several encrypted chunks

const servers: TestServer[] = [];
afterEach(async () => {
  // The first server of each test owns the data folder (and the PostgreSQL database).
  for (const s of servers.splice(0).reverse()) await s.cleanup().catch(() => undefined);
});

async function start(overrides: Parameters<typeof startTestServer>[0] = {}) {
  const s = await startTestServer({ seedDemo: false, ...overrides });
  servers.push(s);
  return s;
}

/** The same data folder and database, started again (after `stop()`). */
function restart(first: TestServer, overrides: Parameters<typeof startTestServer>[0] = {}) {
  return startTestServer({ seedDemo: false, dataDir: first.dataDir, databaseUrl: first.config.databaseUrl, ...overrides });
}

async function fileCase(s: TestServer): Promise<string> {
  const officer = (await addCompany(s.ctx.db, { hosts: ['acme.test'] })).officerIds[0]!;
  const res = await call(s, 'POST', '/api/public/case/new/by-form', {
    host: 'acme.test',
    body: form('caseDto', caseDto(officer, { description: DESCRIPTION }), [{ name: 'receipts.txt', bytes: FILE }]),
  });
  expect(res.status).toBe(201);
  return res.data.caseDto.caseNumber;
}

/** The case as a handler reads it: description and file content, decrypted. */
async function readBack(s: TestServer, caseNumber: string) {
  const token = (await createHandlerAccount(s.ctx.db, 'acme', `h-${randomBytes(3).toString('hex')}`)).token;
  const view = await call(s, 'GET', `/api/handler/cases/${caseNumber}`, { token });
  expect(view.status).toBe(200);
  const file = await fetch(`${s.url}/api/handler/cases/${caseNumber}/files/${view.data.files[0].id}`, { headers: { authorization: `Bearer ${token}` } });
  return { description: view.data.description as string, file: await file.text() };
}

function keysCli(s: TestServer, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'server/cli/keys.ts'), 'rotate-master'],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: s.dataDir, DATABASE_URL: s.config.databaseUrl ?? '', MASTER_KEY: '', NEW_MASTER_KEY: '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const keyFile = (s: TestServer, name = 'master.key') => readFileSync(path.join(s.dataDir, name), 'utf8').trim();
const newKey = () => randomBytes(32).toString('base64');

describe('the master key', () => {
  it('refuses to start with a key that does not open the data, and names what to do', async () => {
    const first = await start();
    await fileCase(first);
    await first.stop();
    await expect(restart(first, { masterKey: newKey() })).rejects.toThrow(MasterKeyMismatch);
    await expect(restart(first, { masterKey: newKey() })).rejects.toThrow(/MASTER_KEY does not open this database/);
    // The right key still works: nothing was written under the wrong one.
    const again = await restart(first);
    servers.push(again);
    expect((await readBack(again, (await again.ctx.db.selectFrom('report_case').select('case_number').executeTakeFirstOrThrow()).case_number)).description).toBe(DESCRIPTION);
  });

  it('rotates the generated key file: everything reads back under the new key, nothing under the old', async () => {
    const first = await start();
    const caseNumber = await fileCase(first);
    const oldKey = keyFile(first);
    const before = await new Browser(first, 'acme.test').get(`${MOUNT}/jwks`);
    expect(before.status).toBe(200);
    const kidsBefore = JSON.parse(before.text).keys.map((k: { kid: string }) => k.kid);
    // An enrolled handler: the TOTP secret is sealed with the master key itself.
    const hanne = await createHandlerAccount(first.ctx.db, 'acme', 'Hanne', { email: 'hanne@example.org' });
    const opened = await call(first, 'POST', '/api/handler/enrolment/start', { host: 'acme.test', json: { code: hanne.enrolmentCode } });
    const totp = (offset: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(opened.data.secret), digits: 6, period: 30 }).generate({ timestamp: Date.now() + offset * 30_000 });
    expect((await call(first, 'POST', '/api/handler/enrolment/finish', { host: 'acme.test', json: { code: hanne.enrolmentCode, keys: await keyBundle('a long passphrase'), totpCode: totp(0) } })).status).toBe(200);
    await first.stop();

    const out = await keysCli(first);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('re-wrapped 1 case keys and 1 provider key store(s)');
    expect(keyFile(first)).not.toBe(oldKey);
    expect(existsSync(path.join(first.dataDir, 'master.key.next'))).toBe(false);

    const rotated = await restart(first);
    servers.push(rotated);
    expect(await readBack(rotated, caseNumber)).toEqual({ description: DESCRIPTION, file: FILE });
    // The handler's TOTP secret was re-sealed: the next code still signs in.
    expect((await call(rotated, 'POST', '/api/handler/session', { host: 'acme.test', json: { ...(await signInProof((p, json) => call(rotated, 'POST', p, { host: 'acme.test', json }), 'hanne@example.org', 'a long passphrase')), code: totp(1) } })).status).toBe(200);
    // The provider's key store came along: it still publishes the same signing keys.
    const jwks = await new Browser(rotated, 'acme.test').get(`${MOUNT}/jwks`);
    expect(jwks.status).toBe(200);
    expect(JSON.parse(jwks.text).keys.map((k: { kid: string }) => k.kid)).toEqual(kidsBefore);
    await rotated.stop();
    await expect(restart(first, { masterKey: oldKey })).rejects.toThrow(MasterKeyMismatch);
  });

  it('rotates a MASTER_KEY from the environment to NEW_MASTER_KEY, and asks for it when missing', async () => {
    const oldKey = newKey();
    const first = await start({ masterKey: oldKey });
    const caseNumber = await fileCase(first);
    await first.stop();

    const missing = await keysCli(first, { MASTER_KEY: oldKey });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('give the new key in NEW_MASTER_KEY');
    const short = await keysCli(first, { MASTER_KEY: oldKey, NEW_MASTER_KEY: 'c2hvcnQ=' });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('NEW_MASTER_KEY must be 32 bytes');
    const wrong = await keysCli(first, { MASTER_KEY: newKey(), NEW_MASTER_KEY: newKey() });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('MASTER_KEY does not open this database');

    const next = newKey();
    const out = await keysCli(first, { MASTER_KEY: oldKey, NEW_MASTER_KEY: next });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Start every server with MASTER_KEY set to the new key');
    await expect(restart(first, { masterKey: oldKey })).rejects.toThrow(MasterKeyMismatch);
    const rotated = await restart(first, { masterKey: next });
    servers.push(rotated);
    expect(await readBack(rotated, caseNumber)).toEqual({ description: DESCRIPTION, file: FILE });
  });

  it('finishes a rotation that committed before its key file was renamed, and forgets one that did not commit', async () => {
    const first = await start();
    const caseNumber = await fileCase(first);
    const oldKey = Buffer.from(keyFile(first), 'base64');
    await first.stop();

    // Not committed: the next key file is left over, the database still under the old key.
    writeFileSync(path.join(first.dataDir, 'master.key.next'), newKey() + '\n', { mode: 0o600 });
    const s1 = await restart(first);
    expect(existsSync(path.join(first.dataDir, 'master.key.next'))).toBe(false);
    expect(keyFile(first)).toBe(oldKey.toString('base64'));
    expect((await readBack(s1, caseNumber)).description).toBe(DESCRIPTION);

    // Committed, then the crash: the database is under the next key, the file not yet renamed.
    const next = randomBytes(32);
    await rotateMasterKey(s1.ctx.db, oldKey, next, s1.ctx.caseKeys);
    await s1.stop();
    writeFileSync(path.join(first.dataDir, 'master.key.next'), next.toString('base64') + '\n', { mode: 0o600 });
    const s2 = await restart(first);
    servers.push(s2);
    expect(keyFile(first)).toBe(next.toString('base64'));
    expect(existsSync(path.join(first.dataDir, 'master.key.next'))).toBe(false);
    expect(await readBack(s2, caseNumber)).toEqual({ description: DESCRIPTION, file: FILE });
  });

  it('a server still running with the old key answers 503 to a new case instead of wrapping it with that key', async () => {
    const s = await start();
    const officer = (await addCompany(s.ctx.db, { hosts: ['acme.test'] })).officerIds[0]!;
    const before = await s.ctx.db.selectFrom('report_case').select('id').execute();
    await rotateMasterKey(s.ctx.db, Buffer.from(keyFile(s), 'base64'), randomBytes(32), s.ctx.caseKeys);
    const res = await call(s, 'POST', '/api/public/case/new/by-form', { host: 'acme.test', body: form('caseDto', caseDto(officer), [{ name: 'a.txt', bytes: 'x' }]) });
    expect(res.status).toBe(503);
    expect(res.data.error.code).toBe('RESTART_NEEDED');
    expect(await s.ctx.db.selectFrom('report_case').select('id').execute()).toEqual(before);
  });

  it('refuses to rotate while a server runs on the data folder', async () => {
    const s = await start();
    writeFileSync(path.join(s.dataDir, 'server.json'), JSON.stringify({ pid: process.pid, port: s.port }));
    const out = await keysCli(s);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/a server \(pid \d+\) is running/);
  });
});
