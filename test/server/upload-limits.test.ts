/**
 * Issue 36, finding 2 and part of finding 6, against the real server and database:
 * upload limits that hold under parallel requests, byte quotas per session, case,
 * client and free disk (tus and multipart), the sweep that goes by a session's
 * creation and an upload's last bytes, and a session used at its own company only
 * (docs/decisions/resumable-uploads.md "Limits").
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestClock } from '../../server/clock.ts';
import { call, caseDto, countRows, expectError, form, listFiles, solveChallenge } from './api.ts';
import { Browser, newCase, officerOf, signIn } from './identity-flow.ts';

const TUS = { 'tus-resumable': '1.0.0' };
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** An MP4 of `n` bytes (a type the metadata check leaves alone). */
function mp4Of(n: number): Buffer {
  const b = randomBytes(n);
  Buffer.from('\0\0\0\x18ftypisom', 'latin1').copy(b);
  return b;
}

const meta = (name: string) => `filename ${Buffer.from(name).toString('base64')}`;

async function newSession(s: TestServer, host = 'localhost'): Promise<string> {
  const res = await fetch(`${s.url}/api/public/upload-sessions`, { method: 'POST', headers: { 'x-company-host': host, ...(await solveChallenge(s)) } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { uploadSession: string }).uploadSession;
}

async function create(s: TestServer, session: string, name: string, length: number, host = 'localhost') {
  const res = await fetch(`${s.url}/api/public/uploads`, {
    method: 'POST',
    headers: { ...TUS, 'x-company-host': host, 'x-upload-session': session, 'upload-length': String(length), 'upload-metadata': meta(name) },
  });
  const text = await res.text();
  return { status: res.status, id: res.headers.get('location')?.split('/').pop() ?? null, data: text ? JSON.parse(text) : undefined };
}

async function createOk(s: TestServer, session: string, name: string, length: number): Promise<string> {
  const r = await create(s, session, name, length);
  expect(r.status, JSON.stringify(r.data)).toBe(201);
  return r.id!;
}

async function patch(s: TestServer, session: string, id: string, offset: number, bytes: Buffer, host = 'localhost') {
  const res = await fetch(`${s.url}/api/public/uploads/${id}`, {
    method: 'PATCH',
    headers: { ...TUS, 'x-company-host': host, 'x-upload-session': session, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
    body: new Uint8Array(bytes),
  });
  const text = await res.text();
  return { status: res.status, offset: Number(res.headers.get('upload-offset')), data: text ? JSON.parse(text) : undefined };
}

async function head(s: TestServer, session: string, id: string, host = 'localhost') {
  const res = await fetch(`${s.url}/api/public/uploads/${id}`, { method: 'HEAD', headers: { ...TUS, 'x-company-host': host, 'x-upload-session': session } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset')) };
}

/** Every file of upload bytes under the file store with its size: what "nothing landed on disk" compares (case keys aside). */
function disk(s: TestServer): Record<string, number> {
  const root = s.ctx.config.filesDir!;
  return Object.fromEntries(
    listFiles(root)
      .map((f) => path.relative(root, f))
      .filter((f) => !f.startsWith(`keys${path.sep}`))
      .map((f) => [f, statSync(path.join(root, f)).size]),
  );
}

const byForm = (s: TestServer, officer: string, files: { name: string; bytes: Buffer }[], session?: string, uploads: string[] = [], host = 'localhost') =>
  call(s, 'POST', '/api/public/case/new/by-form', { host, body: form('caseDto', caseDto(officer, { uploads }), files), headers: session ? { 'x-upload-session': session } : {} });

const uploadRows = async (s: TestServer, session: string) =>
  s.ctx.db.selectFrom('file_upload').select(['id', 'length']).where('session_id', '=', session.split('.')[0]!).execute();

describe('the count of five, under parallel requests', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.cleanup());

  it('40 parallel creations on one session, each declaring 2 GiB: exactly 5 succeed, the rest get a 4xx with a code', async () => {
    const session = await newSession(server);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(server, session, `big${i}.mp4`, 2 * GiB)));
    const ok = answers.filter((a) => a.status === 201);
    expect(ok).toHaveLength(5);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBeGreaterThanOrEqual(400);
      expect(a.status).toBeLessThan(500);
      expect(a.data.error.code).toBe('TOO_MANY_FILES');
    }
    const rows = await uploadRows(server, session);
    expect(rows.map((r) => r.id).sort()).toEqual(ok.map((a) => a.id).sort());
    expect(rows.reduce((n, r) => n + Number(r.length), 0)).toBe(10 * GiB);
  });
});

describe('the client quota: bytes per client and 24 hours', () => {
  let server: TestServer;
  let officer: string;
  beforeAll(async () => {
    server = await startTestServer({ uploadQuota: { sessionBytes: 10 * GiB, caseBytes: 20 * GiB, clientDailyBytes: 1 * MiB, diskReserveBytes: 0 } } as never);
    officer = await officerOf(server, 'localhost');
  });
  afterAll(async () => server?.cleanup());

  it('a client past its daily byte quota gets 413 with a code, and nothing more lands on disk', async () => {
    // The whole quota, declared by one upload of one session.
    const first = await newSession(server);
    await createOk(server, first, 'all.mp4', 1 * MiB);
    const before = disk(server);
    const rowsBefore = await countRows(server);
    // Another session (another proof-of-work) of the same client: nothing more.
    const second = await newSession(server);
    const refused = await create(server, second, 'more.mp4', 1);
    expectError(refused, 413, 'UPLOAD_QUOTA_CLIENT', 'Upload-Length');
    expect(await uploadRows(server, second)).toEqual([]);
    // Nor in a multipart report: the file is cut at its first byte, and no case is made.
    const multipart = await byForm(server, officer, [{ name: 'more.mp4', bytes: mp4Of(300_000) }]);
    expectError(multipart, 413, 'UPLOAD_QUOTA_CLIENT', 'files.0');
    expect(await countRows(server)).toEqual(rowsBefore);
    expect(disk(server)).toEqual(before);
    // The counter is kept by a keyed hash, never by the address.
    const keys = await server.ctx.db.selectFrom('upload_quota' as never).select('key' as never).execute();
    expect(keys.length).toBeGreaterThan(0);
    expect(JSON.stringify(keys)).not.toContain('127.0.0.1');
  });
});

describe('the session and case quotas, declared and streamed', () => {
  let server: TestServer;
  let officer: string;
  beforeAll(async () => {
    server = await startTestServer({ uploadQuota: { sessionBytes: 1 * MiB, caseBytes: 1.5 * MiB, clientDailyBytes: 20 * GiB, diskReserveBytes: 0 } } as never);
    officer = await officerOf(server, 'localhost');
  });
  afterAll(async () => server?.cleanup());

  it('refuses at creation an upload whose declared length passes the session quota, alone or with the others', async () => {
    const session = await newSession(server);
    const before = disk(server);
    expectError(await create(server, session, 'huge.mp4', 1 * MiB + 1), 413, 'UPLOAD_QUOTA_SESSION', 'Upload-Length');
    expect(disk(server)).toEqual(before);
    await createOk(server, session, 'a.mp4', 600_000);
    expectError(await create(server, session, 'b.mp4', 500_000), 413, 'UPLOAD_QUOTA_SESSION', 'Upload-Length');
    expect((await uploadRows(server, session)).length).toBe(1);
    // creation-defer-length is not offered: a length nobody declared never reaches the tus path.
    const deferred = await fetch(`${server.url}/api/public/uploads`, {
      method: 'POST',
      headers: { ...TUS, 'x-company-host': 'localhost', 'x-upload-session': session, 'upload-defer-length': '1', 'upload-metadata': meta('c.mp4') },
    });
    expectError({ status: deferred.status, data: await deferred.json() }, 400, 'UPLOAD_LENGTH_REQUIRED');
  });

  it('cuts a multipart file (no declared length) at the byte that passes the session quota, and leaves nothing', async () => {
    const before = disk(server);
    const rows = await countRows(server);
    expectError(await byForm(server, officer, [{ name: 'long.mp4', bytes: mp4Of(1.2 * MiB) }]), 413, 'UPLOAD_QUOTA_SESSION', 'files.0');
    expectError(await byForm(server, officer, [{ name: 'one.mp4', bytes: mp4Of(600_000) }, { name: 'two.mp4', bytes: mp4Of(600_000) }]), 413, 'UPLOAD_QUOTA_SESSION', 'files.1');
    // With a session: its uploads and the body's files count together.
    const session = await newSession(server);
    await createOk(server, session, 'held.mp4', 700_000);
    expectError(await byForm(server, officer, [{ name: 'three.mp4', bytes: mp4Of(400_000) }], session), 413, 'UPLOAD_QUOTA_SESSION', 'files.0');
    expect(await countRows(server)).toEqual(rows);
    const after = disk(server);
    // Only the declared upload's object (its header) is new; no temporary is left.
    expect(Object.keys(after).filter((k) => !(k in before))).toHaveLength(1);
    expect(Object.keys(after).some((k) => k.startsWith('tmp'))).toBe(false);
  });

  it("counts a reporter's message files against the case, with the report's, in the body and as uploads", async () => {
    const caseNumber = await newCase(server, { files: [{ name: 'report.mp4', bytes: mp4Of(600_000) }] });
    const tokens = await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234');
    const as = { token: tokens.access_token, host: 'localhost' };
    const message = (files: { name: string; bytes: Buffer }[]) => call(server, 'POST', '/api/private/case/messages/new', { ...as, body: form('messageDto', { message: 'More.' }, files) });
    expect((await message([{ name: 'm1.mp4', bytes: mp4Of(600_000) }])).status).toBe(201);
    const before = disk(server);
    const rows = await countRows(server);
    // 1.2 MB held; 400 KB more passes 1.5 MiB.
    expectError(await message([{ name: 'm2.mp4', bytes: mp4Of(400_000) }]), 413, 'UPLOAD_QUOTA_CASE', 'files.0');
    const bound = (await call(server, 'POST', '/api/private/case/upload-sessions', as)).data.uploadSession as string;
    expectError(await create(server, bound, 'm3.mp4', 400_000), 413, 'UPLOAD_QUOTA_CASE', 'Upload-Length');
    expect(await countRows(server)).toEqual(rows);
    expect(disk(server)).toEqual(before);
    // What still fits is taken.
    expect((await message([{ name: 'm4.mp4', bytes: mp4Of(200_000) }])).status).toBe(201);
  });
});

describe('the free-disk reserve', () => {
  let server: TestServer;
  let officer: string;
  beforeAll(async () => {
    server = await startTestServer({ uploadQuota: { sessionBytes: 10 * GiB, caseBytes: 20 * GiB, clientDailyBytes: 20 * GiB, diskReserveBytes: 0 } } as never);
    officer = await officerOf(server, 'localhost');
  });
  afterAll(async () => server?.cleanup());
  const setReserve = (bytes: number) => {
    (server.ctx.config as unknown as { uploadQuota: { diskReserveBytes: number } }).uploadQuota.diskReserveBytes = bytes;
  };

  it('with the reserve above the free space: 507 with a code, and nothing written', async () => {
    const session = await newSession(server);
    const id = await createOk(server, session, 'early.mp4', 3 * MiB);
    setReserve(Number.MAX_SAFE_INTEGER);
    try {
      const before = disk(server);
      const rows = await countRows(server);
      expectError(await create(server, session, 'late.mp4', 1000), 507, 'INSUFFICIENT_STORAGE', 'Upload-Length');
      expectError(await byForm(server, officer, [{ name: 'a.mp4', bytes: mp4Of(50_000) }]), 507, 'INSUFFICIENT_STORAGE', 'files.0');
      expect(await countRows(server)).toEqual(rows);
      expect((await uploadRows(server, session)).length).toBe(1);
      expect(disk(server)).toEqual(before);
      // A running upload stops before it writes past one buffer, and keeps what it has.
      const file = mp4Of(3 * MiB);
      expectError(await patch(server, session, id, 0, file), 507, 'INSUFFICIENT_STORAGE');
      const grown = disk(server)[path.join('uploads', id)]! - before[path.join('uploads', id)]!;
      expect(grown).toBeLessThanOrEqual(1.1 * MiB);
      setReserve(0);
      const at = (await head(server, session, id)).offset;
      expect(at).toBeLessThan(file.length);
      expect((await patch(server, session, id, at, file.subarray(at))).status).toBe(204);
    } finally {
      setReserve(0);
    }
  });
});

describe('the sweep', () => {
  let server: TestServer;
  let clock: TestClock;
  const MIN = 60 * 1000;
  beforeAll(async () => {
    clock = new TestClock();
    server = await startTestServer({}, { clock });
  });
  afterAll(async () => server?.cleanup());
  const exists = (id: string) => listFiles(server.ctx.config.filesDir!).some((f) => f.endsWith(id));

  it('removes a session 24 hours after it was made, however steadily its PATCHes come', async () => {
    const session = await newSession(server);
    const piece = 65_536;
    const file = mp4Of(40 * piece);
    const id = await createOk(server, session, 'steady.mp4', file.length);
    let offset = 0;
    for (let elapsed = 50 * MIN; elapsed < 24 * 60 * MIN; elapsed += 50 * MIN) {
      clock.advance(50 * MIN);
      const r = await patch(server, session, id, offset, file.subarray(offset, offset + piece));
      expect(r.status, JSON.stringify(r.data)).toBe(204);
      offset = r.offset;
      await server.ctx.jobs.runNow('upload-sweep');
      expect(exists(id)).toBe(true);
    }
    // 24 h 10 min after the session was made, 20 minutes after its last bytes.
    clock.advance(60 * MIN);
    await server.ctx.jobs.runNow('upload-sweep');
    expect(exists(id)).toBe(false);
    expect(await uploadRows(server, session)).toEqual([]);
    expectError(await patch(server, session, id, offset, file.subarray(offset, offset + piece)), 401, 'UPLOAD_SESSION_INVALID');
  });

  it('removes an unfinished upload after an hour without bytes, and keeps the finished and the moving ones', async () => {
    const session = await newSession(server);
    const stalled = await createOk(server, session, 'stalled.mp4', 300_000);
    const done = await createOk(server, session, 'done.mp4', 100_000);
    const moving = await createOk(server, session, 'moving.mp4', 300_000);
    const moved = mp4Of(300_000);
    expect((await patch(server, session, stalled, 0, mp4Of(100_000))).status).toBe(204);
    expect((await patch(server, session, done, 0, mp4Of(100_000))).status).toBe(204);
    expect((await patch(server, session, moving, 0, moved.subarray(0, 100_000))).status).toBe(204);
    clock.advance(30 * MIN);
    // A PATCH that brings no bytes does not make it look alive.
    expect((await patch(server, session, stalled, 100_000, Buffer.alloc(0))).status).toBe(204);
    expect((await patch(server, session, moving, 100_000, moved.subarray(100_000, 200_000))).status).toBe(204);
    clock.advance(29 * MIN);
    await server.ctx.jobs.runNow('upload-sweep');
    expect(exists(stalled)).toBe(true);
    clock.advance(2 * MIN);
    await server.ctx.jobs.runNow('upload-sweep');
    expect(exists(stalled)).toBe(false);
    expect((await head(server, session, stalled)).status).toBe(404);
    expect(exists(done)).toBe(true);
    expect(exists(moving)).toBe(true);
    expect((await uploadRows(server, session)).map((r) => r.id).sort()).toEqual([done, moving].sort());
    // The session goes on: its freed place takes a new upload.
    await createOk(server, session, 'again.mp4', 1000);
  });
});

describe('an upload session belongs to the company whose host made it', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.cleanup());

  it('a session made at localhost is refused at group.localhost and makes no case there', async () => {
    const session = await newSession(server, 'localhost');
    const file = mp4Of(100_000);
    // tus calls naming the other company
    expectError(await create(server, session, 'x.mp4', file.length, 'group.localhost'), 403, 'UPLOAD_SESSION_FOREIGN');
    expect(await uploadRows(server, session)).toEqual([]);
    const id = await createOk(server, session, 'x.mp4', file.length);
    expectError(await patch(server, session, id, 0, file, 'group.localhost'), 403, 'UPLOAD_SESSION_FOREIGN');
    expect((await head(server, session, id, 'group.localhost')).status).toBe(403);
    expect((await patch(server, session, id, 0, file)).status).toBe(204);
    // The case at the other company: refused, nothing written.
    const before = await countRows(server);
    const files = disk(server);
    const groupOfficer = await officerOf(server, 'group.localhost');
    expectError(await byForm(server, groupOfficer, [], session, [id], 'group.localhost'), 403, 'UPLOAD_SESSION_FOREIGN');
    expectError(await byForm(server, groupOfficer, [{ name: 'y.mp4', bytes: mp4Of(10_000) }], session, [], 'group.localhost'), 403, 'UPLOAD_SESSION_FOREIGN');
    expect(await countRows(server)).toEqual(before);
    expect(disk(server)).toEqual(files);
    // At its own company the session still makes its case.
    const res = await byForm(server, await officerOf(server, 'localhost'), [], session, [id]);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const made = await server.ctx.db.selectFrom('report_case').innerJoin('company_host', 'company_host.company_id', 'report_case.company_id').select('company_host.host').where('report_case.case_number', '=', res.data.caseDto.caseNumber).execute();
    expect(made.map((r) => r.host)).toContain('localhost');
  });
});
