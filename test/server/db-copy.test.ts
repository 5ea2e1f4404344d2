/**
 * The move from the embedded PGlite to PostgreSQL: `copyDatabase` copies every row
 * into an empty, migrated database, and the portal started on the copy serves the
 * same cases (decrypted with the same master key), sign-ins (same pepper) and new
 * rows (identity sequences moved on). The core runs PGlite to PGlite in every run;
 * `npm run db -- copy-to-postgres` into a real PostgreSQL runs where DATABASE_URL
 * names one (CI's PostgreSQL pass). The files move too: into chunk rows
 * (FILE_STORE=postgres), served by a portal whose data folder holds no file, only
 * the keys.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, form } from './api.ts';
import { Browser, newCase, signIn } from './identity-flow.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { openDatabase } from '../../server/db/database.ts';
import { CopyRefused, copyDatabase } from '../../server/db/copy.ts';
import { DiskFileStore } from '../../server/files/store.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FILE = 'ledger line\n'.repeat(8_000);
const PASSWORD = 'copy-pass';

let source: TestServer;
let caseNumber: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  // Always PGlite, also in the PostgreSQL pass: that is what gets moved.
  source = await startTestServer({ databaseUrl: undefined });
  caseNumber = await newCase(source, { password: PASSWORD, files: [{ name: 'ledger.txt', bytes: FILE }] });
  const company = (await companyByHost(source.ctx.db, 'localhost'))!;
  const token = (await createHandlerAccount(source.ctx.db, company.id, 'Hanne')).token;
  const msg = await call(source, 'POST', `/api/handler/cases/${caseNumber}/messages`, { token, body: form('messageDto', { message: 'Which supplier?' }, []) });
  expect(msg.status).toBe(201);
  await signIn(new Browser(source), caseNumber, PASSWORD); // provider rows too
  await source.stop();
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  await source?.cleanup();
});

/** A data folder with the source's keys and files but no database yet. */
function siblingDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-copy-'));
  for (const f of ['master.key', 'pepper', 'admin.token', 'files']) cpSync(path.join(source.dataDir, f), path.join(dir, f), { recursive: true });
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A data folder with the source's keys (master key, pepper, shred keys) and no file of the file store. */
function keysOnlyDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-copy-'));
  for (const f of ['master.key', 'pepper', 'admin.token', path.join('files', 'keys')]) cpSync(path.join(source.dataDir, f), path.join(dir, f), { recursive: true });
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The portal on the copy serves the case as it was, and takes new rows. */
async function expectSameCase(server: TestServer) {
  const company = (await companyByHost(server.ctx.db, 'localhost'))!;
  const token = (await createHandlerAccount(server.ctx.db, company.id, `H-${randomBytes(3).toString('hex')}`)).token;
  const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token });
  expect(view.status).toBe(200);
  expect(view.data.messages.map((m: { message: string }) => m.message)).toContain('Which supplier?');
  const file = await fetch(`${server.url}/api/handler/cases/${caseNumber}/files/${view.data.files[0].id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(await file.text()).toBe(FILE);
  // A status event: its identity sequence must continue after the copied ids.
  expect((await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token, json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
  // The reporter signs in with the same password (same pepper, same provider keys).
  const t = await signIn(new Browser(server), caseNumber, PASSWORD);
  const mine = await call(server, 'GET', '/api/private/case/my-case', { token: t.access_token, host: 'localhost' });
  expect(mine.status).toBe(200);
  expect(mine.data.caseNumber).toBe(caseNumber);
}

describe('copying the embedded database', () => {
  it('copies every row, parents first, and the portal on the copy serves the same case', async () => {
    const dir = siblingDataDir();
    const from = await openDatabase({ dataDir: source.dataDir });
    const to = await openDatabase({ dataDir: dir });
    try {
      const report = await copyDatabase(from.db, to.db);
      const names = report.tables.map((t) => t.name);
      expect(names.indexOf('company')).toBeLessThan(names.indexOf('report_case'));
      expect(names.indexOf('report_case')).toBeLessThan(names.indexOf('case_message'));
      expect(names.indexOf('case_message')).toBeLessThan(names.indexOf('case_file'));
      const rows = Object.fromEntries(report.tables.map((t) => [t.name, t.rows]));
      expect(rows.report_case).toBe(1);
      expect(rows.case_file).toBe(1);
      expect(rows.oidc_payload).toBeGreaterThan(0);
      expect(rows.meta).toBe(2); // the master key's check value, and that the case keys are shreddable (docs/decisions/deletion.md)
      // A second copy into the same database is refused: it is no longer empty.
      await expect(copyDatabase(from.db, to.db)).rejects.toThrow(CopyRefused);
    } finally {
      await to.close();
      await from.close();
    }
    const copy = await startTestServer({ dataDir: dir, databaseUrl: undefined });
    cleanups.push(() => copy.stop());
    await expectSameCase(copy);
  });

  it('moves the files into chunk rows in the same copy; a portal with FILE_STORE=postgres and no files folder serves them', async () => {
    const dir = keysOnlyDataDir();
    const from = await openDatabase({ dataDir: source.dataDir });
    const to = await openDatabase({ dataDir: dir });
    try {
      const report = await copyDatabase(from.db, to.db, { files: new DiskFileStore(path.join(source.dataDir, 'files')) });
      expect(report.files.objects).toBe(1);
      expect(report.files.bytes).toBeGreaterThan(FILE.length); // sealed: header and tags
      const objects = await to.db.selectFrom('file_object').select(['key', 'state']).execute();
      expect(objects.map((o) => o.state)).toEqual(['final']);
      const stored = await from.db.selectFrom('case_file').select('storage_key').execute();
      expect(objects.map((o) => o.key)).toEqual(stored.map((r) => r.storage_key));
    } finally {
      await to.close();
      await from.close();
    }
    const copy = await startTestServer({ dataDir: dir, databaseUrl: undefined, fileStore: 'postgres' });
    cleanups.push(() => copy.stop());
    expect(copy.ctx.files.kind).toBe('postgres');
    await expectSameCase(copy);
  });

  it('refuses a copy whose files are not in the files folder, and copies nothing', async () => {
    const dir = siblingDataDir();
    const empty = mkdtempSync(path.join(os.tmpdir(), 'wb-copy-nofiles-'));
    cleanups.push(async () => rmSync(empty, { recursive: true, force: true }));
    const from = await openDatabase({ dataDir: source.dataDir });
    const to = await openDatabase({ dataDir: dir });
    try {
      await expect(copyDatabase(from.db, to.db, { files: new DiskFileStore(empty) })).rejects.toThrow(/is not in the file store/);
      expect(await to.db.selectFrom('report_case').select('id').execute()).toEqual([]);
    } finally {
      await to.close();
      await from.close();
    }
  });

  it('explains what is missing or wrong instead of starting a copy', async () => {
    const run = (env: Record<string, string>) => cli(source.dataDir, env);
    const none = await run({ TARGET_DATABASE_URL: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('TARGET_DATABASE_URL');
    const notPg = await run({ TARGET_DATABASE_URL: 'mysql://x/y' });
    expect(notPg.code).toBe(1);
    expect(notPg.stderr).toContain('must be a postgres:// URL');
    const both = await run({ TARGET_DATABASE_URL: 'postgres://x/y', DATABASE_URL: 'postgres://a/b' });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('unset DATABASE_URL');
  });

  it.skipIf(!process.env.DATABASE_URL)('npm run db -- copy-to-postgres moves a PGlite data folder into PostgreSQL', async () => {
    const name = `wb_copy_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    });
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    const target = u.toString();

    const out = await cli(source.dataDir, { TARGET_DATABASE_URL: target });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/copied \d+ rows in \d+ tables/);
    const again = await cli(source.dataDir, { TARGET_DATABASE_URL: target });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the target is not empty');

    expect(out.stdout).toMatch(/and 1 files \(\d+ bytes\) into chunk rows/);
    // The files are in the rows: a data folder with the keys only serves them.
    const moved = await startTestServer({ dataDir: keysOnlyDataDir(), databaseUrl: target, fileStore: 'postgres' });
    cleanups.push(() => moved.stop());
    expect(moved.ctx.dbKind).toBe('postgres');
    await expectSameCase(moved);
  });
});

function cli(dataDir: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'server/cli/db.ts'), 'copy-to-postgres'],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', MASTER_KEY: '', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
