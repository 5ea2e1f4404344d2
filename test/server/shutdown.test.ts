/**
 * SIGTERM sent to a real server process in the middle of an upload: the upload that
 * finishes within the grace period becomes a case, the one cut by the deadline leaves
 * no case and no file; the process exits 0 either way. Plus /healthz and /readyz.
 */
import http from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../server/db/database.ts';
import { startChildServer, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, startTestServer, type TestServer } from '../helpers/server.ts';
import { PDF, caseDto, listFiles, solveChallenge } from './api.ts';

const MB = 1024 * 1024;
// Long enough that the upload finished within it gets in on a starved CI machine (with
// 2 s, CI's PostgreSQL pass, run at the lowest CPU priority, missed it once), short
// enough that the upload never finished is cut in the test's time.
const GRACE_MS = 10_000;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-shutdown-'));
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of drops) await d();
  rmSync(tmp, { recursive: true, force: true });
});

async function child(name: string): Promise<{ server: ChildServer; dataDir: string; databaseUrl?: string }> {
  const dataDir = path.join(tmp, name);
  let databaseUrl: string | undefined;
  if (process.env.DATABASE_URL) {
    const created = await createTestDatabase();
    drops.push(created.drop);
    databaseUrl = created.url;
  }
  const server = await startChildServer({ dataDir, env: { SHUTDOWN_GRACE_MS: String(GRACE_MS), DATABASE_URL: databaseUrl ?? '' } });
  return { server, dataDir, databaseUrl };
}

function get(server: ChildServer, p: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: server.port, path: p, headers: { host: 'localhost' } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

/**
 * A multipart report with one PDF of `mb` MiB, sent by hand so it can stop half-way;
 * with a solved proof-of-work, as every anonymous submission needs (docs/api.md).
 */
async function startUpload(server: ChildServer, officerId: string, mb: number) {
  const proof = await solveChallenge(server, { host: 'localhost' });
  const boundary = 'wbshutdownboundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="caseDto"\r\n\r\n${JSON.stringify(caseDto(officerId))}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="evidence.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const file = Buffer.concat([PDF, Buffer.alloc(mb * MB - PDF.length, 0x20)]);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let settle!: (r: { status: number; body: string } | { error: string }) => void;
  const answer = new Promise<{ status: number; body: string } | { error: string }>((r) => (settle = r));
  const req = http.request(
    {
      host: '127.0.0.1',
      port: server.port,
      method: 'POST',
      path: '/api/public/case/new/by-form',
      headers: { ...proof, host: 'localhost', 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + file.length + tail.length) },
    },
    (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => settle({ status: res.statusCode ?? 0, body }));
      res.on('error', (e) => settle({ error: e.message }));
    },
  );
  req.on('error', (e) => settle({ error: e.message }));
  const half = file.length / 2;
  req.write(Buffer.concat([head, file.subarray(0, half)]));
  return { answer, finish: () => req.end(Buffer.concat([file.subarray(half), tail])) };
}

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const tempFiles = (dataDir: string) => (existsSync(path.join(dataDir, 'files/tmp')) ? readdirSync(path.join(dataDir, 'files/tmp')) : []);

/**
 * Whether an upload's bytes have reached the file store: a temporary file on disk, or,
 * with a database URL (where FILE_STORE defaults to postgres), a temporary object row.
 */
async function uploadStarted(dataDir: string, databaseUrl?: string): Promise<boolean> {
  if (!databaseUrl) return tempFiles(dataDir).length > 0;
  const opened = await openDatabase({ dataDir, databaseUrl });
  try {
    const row = await opened.db.selectFrom('file_object').select('key').where('state', '!=', 'final').executeTakeFirst();
    return row !== undefined;
  } finally {
    await opened.close();
  }
}

/** Cases and files left in a stopped server's data (its database opened directly), in whichever store it used. */
async function leftovers(dataDir: string, databaseUrl?: string) {
  const opened = await openDatabase({ dataDir, databaseUrl });
  try {
    const count = async (t: 'report_case' | 'case_file') => Number((await opened.db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    if (databaseUrl) {
      const objects = await opened.db.selectFrom('file_object').select(['key', 'state']).execute();
      return { cases: await count('report_case'), fileRows: await count('case_file'), temporaries: objects.filter((o) => o.state !== 'final').map((o) => o.key), stored: objects.filter((o) => o.state === 'final').map((o) => o.key) };
    }
    const all = listFiles(path.join(dataDir, 'files')).map((f) => path.relative(path.join(dataDir, 'files'), f));
    return { cases: await count('report_case'), fileRows: await count('case_file'), temporaries: all.filter((f) => f.startsWith('tmp')), stored: all.filter((f) => !f.startsWith('tmp') && !f.startsWith('keys')) };
  } finally {
    await opened.close();
  }
}

describe('SIGTERM during an upload', () => {
  it('lets an upload that ends within the grace period finish, then exits cleanly', async () => {
    const { server, dataDir, databaseUrl } = await child('finishes');
    const officer = (await get(server, '/api/public/case/company-info')).body.protectionOfficers[0].id as string;
    const upload = await startUpload(server, officer, 8);
    await waitFor(() => uploadStarted(dataDir, databaseUrl), 'the upload to reach the file store');

    server.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // Draining: no new connection is accepted any more.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    upload.finish();

    const answer = await upload.answer;
    expect(answer).toMatchObject({ status: 201 });
    expect(JSON.parse((answer as { body: string }).body).caseDto.caseNumber).toMatch(/^\d{16}$/);
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toMatch(/"level":(50|60)/);
    expect(await leftovers(dataDir, databaseUrl)).toEqual({ cases: 1, fileRows: 1, temporaries: [], stored: [expect.any(String)] });
  });

  it('cuts an upload still running at the deadline: no case, no file, a clean exit', async () => {
    const { server, dataDir, databaseUrl } = await child('cut');
    const officer = (await get(server, '/api/public/case/company-info')).body.protectionOfficers[0].id as string;
    const upload = await startUpload(server, officer, 8);
    await waitFor(() => uploadStarted(dataDir, databaseUrl), 'the upload to reach the file store');

    const t0 = Date.now();
    server.child.kill('SIGTERM');
    // The client never sends the rest: the server waits out the grace period, then cuts it.
    const answer = await upload.answer;
    expect(answer).toHaveProperty('error');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('shutdown grace period over');
    expect(await leftovers(dataDir, databaseUrl)).toEqual({ cases: 0, fileRows: 0, temporaries: [], stored: [] });
  });
});

describe('health and readiness', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.cleanup());

  it('/healthz says the process lives; /readyz that it can serve, with no company or personal data', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const ready = await fetch(`${server.url}/readyz`, { headers: { 'x-company-host': 'localhost' } });
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ ok: true, checks: { accepting: 'ok', database: 'ok', migrations: 'ok', keys: 'ok' } });
  });

  it('/readyz answers 503 when a migration is missing', async () => {
    const last = await server.ctx.db.selectFrom('kysely_migration' as never).select('name' as never).orderBy('name' as never, 'desc').executeTakeFirstOrThrow() as { name: string };
    await sql`delete from kysely_migration where name = ${last.name}`.execute(server.ctx.db);
    try {
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = await ready.json();
      expect(body.error.code).toBe('NOT_READY');
      expect(body.checks).toEqual({ accepting: 'ok', database: 'ok', migrations: 'failed', keys: 'ok' });
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last.name}, ${new Date().toISOString()})`.execute(server.ctx.db);
    }
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('/readyz answers 503 once the database is gone, /healthz still 200', async () => {
    await server.ctx.db.destroy();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks).toEqual({ accepting: 'ok', database: 'failed', migrations: 'failed', keys: 'ok' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
