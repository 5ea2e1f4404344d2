/**
 * Case keys that deletion can destroy (docs/decisions/deletion.md): where the master
 * key lives and what the server says about it, the upgrade of a data folder whose
 * case keys were wrapped by the master key alone, and a case whose key file is gone.
 */
import { existsSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { rotateMasterKey } from '../../server/crypto/master-key.ts';
import { LEGACY_ROW, MIGRATED_ROW } from '../../server/crypto/case-key-migration.ts';
import { caseKeysDir } from '../../server/crypto/case-keys.ts';
import { randomBytes } from 'node:crypto';

const DESCRIPTION = 'Key canary: the petty cash went to the boat.';
const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0).reverse()) await s.cleanup().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function logSink() {
  const sink = { text: '' };
  const stream = new Writable({
    write(chunk, _enc, cb) {
      sink.text += chunk.toString();
      cb();
    },
  });
  return { sink, stream };
}

async function fileCase(s: TestServer): Promise<{ caseNumber: string; token: string }> {
  const officer = (await addCompany(s.ctx.db, { id: 'acme', hosts: ['acme.test'] })).officerIds[0]!;
  const res = await call(s, 'POST', '/api/public/case/new/by-form', { host: 'acme.test', body: form('caseDto', caseDto(officer, { description: DESCRIPTION }), [{ name: 'a.txt', bytes: 'evidence' }]) });
  expect(res.status).toBe(201);
  return { caseNumber: res.data.caseDto.caseNumber, token: (await createHandlerAccount(s.ctx.db, 'acme', 'Hanne')).token };
}

async function description(s: TestServer, caseNumber: string): Promise<{ status: number; text?: string; code?: string }> {
  const token = (await createHandlerAccount(s.ctx.db, 'acme', `h-${randomBytes(3).toString('hex')}`)).token;
  const view = await call(s, 'GET', `/api/handler/cases/${caseNumber}`, { token });
  return { status: view.status, text: view.data?.description, code: view.data?.error?.code };
}

describe('where the master key lives', () => {
  it('warns at start while the key file is in the data folder', async () => {
    const { sink, stream } = logSink();
    const s = await startTestServer({ seedDemo: false, logLevel: 'warn' }, { logStream: stream });
    servers.push(s);
    expect(existsSync(path.join(s.dataDir, 'master.key'))).toBe(true);
    expect(sink.text).toMatch(/master key: it is in the data folder/);
  });

  it('MASTER_KEY_FILE outside the data folder: the key is made there, none in the data folder, and no warning', async () => {
    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'wb-keys-'));
    dirs.push(keyDir);
    const keyFile = path.join(keyDir, 'portal.key');
    const { sink, stream } = logSink();
    const s = await startTestServer({ seedDemo: false, logLevel: 'warn', masterKeyFile: keyFile }, { logStream: stream });
    servers.push(s);
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toHaveLength(32);
    expect(existsSync(path.join(s.dataDir, 'master.key'))).toBe(false);
    expect(sink.text).not.toMatch(/master key: it is in the data folder/);
    const { caseNumber } = await fileCase(s);
    await s.stop();
    // The same key file opens the cases after a restart.
    const again = await startTestServer({ seedDemo: false, dataDir: s.dataDir, databaseUrl: s.config.databaseUrl, masterKeyFile: keyFile });
    expect((await description(again, caseNumber)).text).toBe(DESCRIPTION);
    await again.stop();
  });
});

describe('a data folder whose case keys the master key alone wrapped', () => {
  it('is migrated at start: every case still opens, the server warns until the master key is rotated, and rotation clears it', async () => {
    const first = await startTestServer({ seedDemo: false });
    servers.push(first);
    const { caseNumber } = await fileCase(first);
    // Turn it into what the previous release left: the key under the master key alone, no key file, no migration mark.
    const row = await first.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    const dataKey = await first.ctx.caseKeys.unwrap(row.id, row.wrapped_key);
    await first.ctx.db.updateTable('report_case').set({ wrapped_key: first.ctx.crypto.wrapCaseKey(row.id, dataKey) }).where('id', '=', row.id).execute();
    await first.ctx.db.deleteFrom('meta').where('key', 'in', [MIGRATED_ROW, LEGACY_ROW]).execute();
    await first.stop();
    const keyFile = path.join(caseKeysDir(first.ctx.config.filesDir!), row.id.slice(0, 2), row.id);
    rmSync(keyFile);

    const { sink, stream } = logSink();
    const second = await startTestServer({ seedDemo: false, dataDir: first.dataDir, databaseUrl: first.config.databaseUrl, logLevel: 'info' }, { logStream: stream });
    expect(sink.text).toMatch(/case keys: re-wrapped/);
    expect(sink.text).toMatch(/run `npm run keys -- rotate-master`/);
    expect(existsSync(keyFile)).toBe(true);
    expect((await description(second, caseNumber)).text).toBe(DESCRIPTION);
    // The master key alone no longer opens what the row holds now.
    const now = await second.ctx.db.selectFrom('report_case').select('wrapped_key').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(() => second.ctx.crypto.unwrapCaseKey(row.id, now.wrapped_key!)).toThrow();

    const oldKey = Buffer.from(readFileSync(path.join(first.dataDir, 'master.key'), 'utf8').trim(), 'base64');
    const newKey = randomBytes(32);
    await rotateMasterKey(second.ctx.db, oldKey, newKey, second.ctx.caseKeys);
    expect(await second.ctx.db.selectFrom('meta').select('key').where('key', '=', LEGACY_ROW).executeTakeFirst()).toBeUndefined();
    await second.stop();

    const { sink: sink3, stream: stream3 } = logSink();
    const third = await startTestServer({ seedDemo: false, dataDir: first.dataDir, databaseUrl: first.config.databaseUrl, masterKey: newKey.toString('base64'), logLevel: 'info' }, { logStream: stream3 });
    expect(sink3.text).not.toMatch(/rotate-master/);
    expect((await description(third, caseNumber)).text).toBe(DESCRIPTION);
    await third.stop();
  });
});

describe('a case whose key file is gone', () => {
  it('answers 410 CASE_DELETED to the handler, not a 5xx', async () => {
    const s = await startTestServer({ seedDemo: false });
    servers.push(s);
    const { caseNumber } = await fileCase(s);
    const row = await s.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    await s.ctx.caseKeys.destroy(row.id);
    // The case cache may hold the view: a write to the case drops it, as a purge's delete would.
    expect(await description(s, caseNumber)).toMatchObject({ status: 410, code: 'CASE_DELETED' });
  });
});
