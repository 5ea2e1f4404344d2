/**
 * Resumable uploads (tus 1.0, docs/decisions/resumable-uploads.md) against the real
 * server: the protocol, resuming across a server restart, refusals with their error
 * codes, no plaintext on disk, the 24-hour sweep, and a case that takes its uploads
 * all or nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestClock } from '../../server/clock.ts';
import { openCaseFile } from '../../server/cases/service.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, countRows, expectError, form, listFiles, PDF, solveChallenge } from './api.ts';

const HOST = 'acme.test';
const TUS = { 'tus-resumable': '1.0.0' };
let server: TestServer;
let clock: TestClock;
let officer: string;

beforeAll(async () => {
  clock = new TestClock();
  server = await startTestServer({ seedDemo: false }, { clock });
  officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: [HOST] })).officerIds[0]!;
});
afterAll(async () => server?.cleanup());

async function newSession(s = server): Promise<string> {
  const res = await fetch(`${s.url}/api/public/upload-sessions`, { method: 'POST', headers: { 'x-company-host': HOST, ...(await solveChallenge(s)) } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { uploadSession: string }).uploadSession;
}

const meta = (name: string) => `filename ${Buffer.from(name).toString('base64')}`;

async function create(session: string, name: string, length: number, s = server) {
  const res = await fetch(`${s.url}/api/public/uploads`, {
    method: 'POST',
    headers: { ...TUS, 'x-upload-session': session, 'upload-length': String(length), 'upload-metadata': meta(name) },
  });
  return { status: res.status, location: res.headers.get('location'), tus: res.headers.get('tus-resumable'), body: await res.text() };
}

async function createOk(session: string, name: string, length: number, s = server): Promise<string> {
  const r = await create(session, name, length, s);
  expect(r.status, r.body).toBe(201);
  expect(r.tus).toBe('1.0.0');
  expect(r.location).toMatch(/^\/api\/public\/uploads\/[0-9a-f-]{36}$/);
  return r.location!.split('/').pop()!;
}

async function patch(session: string, id: string, offset: number, bytes: Buffer, s = server, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/api/public/uploads/${id}`, {
    method: 'PATCH',
    headers: { ...TUS, 'x-upload-session': session, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', ...headers },
    body: new Uint8Array(bytes),
  });
  const text = await res.text();
  return { status: res.status, offset: res.headers.get('upload-offset'), data: text ? JSON.parse(text) : undefined };
}

async function head(session: string, id: string, s = server) {
  const res = await fetch(`${s.url}/api/public/uploads/${id}`, { method: 'HEAD', headers: { ...TUS, 'x-upload-session': session } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset')), length: Number(res.headers.get('upload-length')), cache: res.headers.get('cache-control') };
}

async function submit(session: string | null, uploads: string[], s = server) {
  return call(s, 'POST', '/api/public/case/new/by-form', {
    host: HOST,
    body: form('caseDto', caseDto(officer, { uploads })),
    headers: session ? { 'x-upload-session': session } : {},
  });
}

async function storedBytes(s: TestServer, caseNumber: string, position = 0): Promise<{ name: string; bytes: Buffer; mimeType: string }> {
  const row = await s.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
  const f = await s.ctx.db.selectFrom('case_file').select('id').where('case_id', '=', row.id).where('position', '=', position).executeTakeFirstOrThrow();
  const file = (await openCaseFile(s.ctx, row, f.id))!;
  const chunks: Buffer[] = [];
  for await (const c of file.stream) chunks.push(c as Buffer);
  return { name: file.name, bytes: Buffer.concat(chunks), mimeType: file.mimeType };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A PDF of `n` bytes: the signature, then random bytes (the server's metadata check parses it). */
function pdfOf(n: number): Buffer {
  const b = randomBytes(n);
  PDF.copy(b, 0, 0, 8);
  return b;
}

/** An MP4 of `n` bytes (a type the metadata check leaves alone: quick for large files). */
function mp4Of(n: number): Buffer {
  const b = randomBytes(n);
  Buffer.from('\0\0\0\x18ftypisom', 'latin1').copy(b);
  return b;
}

describe('tus protocol', () => {
  it('creates, takes bytes in pieces across chunk boundaries, answers the offset, and the case gets the very file', async () => {
    const session = await newSession();
    const file = pdfOf(3 * 65_536 + 4_321);
    const id = await createOk(session, 'evidence.pdf', file.length);
    expect(await head(session, id)).toMatchObject({ status: 200, offset: 0, length: file.length, cache: 'no-store' });
    // Pieces that end inside chunks, exactly on a chunk boundary, and a single byte.
    const cuts = [0, 70_001, 70_002, 131_072, 200_000, file.length];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const r = await patch(session, id, cuts[i]!, file.subarray(cuts[i], cuts[i + 1]));
      expect(r.status, JSON.stringify(r.data)).toBe(204);
      expect(Number(r.offset)).toBe(cuts[i + 1]);
      expect((await head(session, id)).offset).toBe(cuts[i + 1]);
    }
    const before = await countRows(server);
    const res = await submit(session, [id]);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect((await countRows(server)).cases).toBe(before.cases + 1);
    const stored = await storedBytes(server, res.data.caseDto.caseNumber);
    expect(stored.name).toBe('evidence.pdf');
    expect(stored.mimeType).toBe('application/pdf');
    expect(sha(stored.bytes)).toBe(sha(file));
    // The upload became the case's file: gone from the uploads, and the session is spent.
    expect((await head(session, id)).status).toBe(404);
    expectError(await submit(session, []), 409, 'UPLOAD_SESSION_USED');
    expect((await create(session, 'more.pdf', 10)).status).toBe(409);
  });

  it('keeps the bytes a dropped connection delivered and continues from there', async () => {
    const session = await newSession();
    const file = mp4Of(2 * 1024 * 1024);
    const id = await createOk(session, 'cut.mp4', file.length);
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}/api/public/uploads/${id}`, {
        method: 'PATCH',
        headers: { ...TUS, 'x-upload-session': session, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream', 'content-length': String(file.length) },
      });
      req.on('error', () => resolve());
      req.write(file.subarray(0, 700_000), () => setTimeout(() => req.destroy(), 300));
      req.on('close', () => resolve());
    });
    let offset = 0;
    for (let i = 0; i < 50 && offset === 0; i++) {
      offset = (await head(session, id)).offset;
      if (!offset) await new Promise((r) => setTimeout(r, 50));
    }
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(700_000);
    expect((await patch(session, id, offset, file.subarray(offset))).status).toBe(204);
    const res = await submit(session, [id]);
    expect(res.status).toBe(201);
    expect(sha((await storedBytes(server, res.data.caseDto.caseNumber)).bytes)).toBe(sha(file));
  });

  it('resumes after the server restarts, from the offset saved in the database', async () => {
    const first = await startTestServer({ seedDemo: false });
    await addCompany(first.ctx.db, { id: 'acme', hosts: [HOST] });
    const officerHere = (await call(first, 'GET', '/api/public/case/company-info', { host: HOST })).data.protectionOfficers[0].id;
    const session = await newSession(first);
    const file = mp4Of(500_000);
    const id = await createOk(session, 'restart.mp4', file.length, first);
    expect((await patch(session, id, 0, file.subarray(0, 123_457), first)).status).toBe(204);
    await first.stop();
    // The same data folder and the same database (PGlite's lives in the folder; PostgreSQL's is named).
    const second = await startTestServer({ seedDemo: false, dataDir: first.dataDir, databaseUrl: first.config.databaseUrl });
    try {
      expect((await head(session, id, second)).offset).toBe(123_457);
      expect((await patch(session, id, 123_457, file.subarray(123_457), second)).status).toBe(204);
      const res = await call(second, 'POST', '/api/public/case/new/by-form', {
        host: HOST,
        body: form('caseDto', caseDto(officerHere, { uploads: [id] })),
        headers: { 'x-upload-session': session },
      });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
      expect(sha((await storedBytes(second, res.data.caseDto.caseNumber)).bytes)).toBe(sha(file));
    } finally {
      await second.stop();
      await first.cleanup();
    }
  });

  it('after a process died between writing chunks and saving the offset, takes the whole chunks back and drops a torn one', async () => {
    const session = await newSession();
    const file = mp4Of(700_000);
    const id = await createOk(session, 'crash.mp4', file.length);
    // Saved: 4 sealed chunks and a 37 856-byte tail in the database.
    expect((await patch(session, id, 0, file.subarray(0, 300_000))).status).toBe(204);
    // What a killed process leaves: chunk 4 (the tail and what followed it) written but
    // not recorded, and half of chunk 5.
    const row = await server.ctx.db.selectFrom('file_upload').innerJoin('upload_session', 'upload_session.id', 'file_upload.session_id').select(['file_upload.file_header', 'upload_session.case_id', 'upload_session.wrapped_key']).where('file_upload.id', '=', id).executeTakeFirstOrThrow();
    const sealer = server.ctx.crypto.chunkSealer(await server.ctx.caseKeys.unwrap(row.case_id, row.wrapped_key), id, row.file_header);
    const torn = sealer.seal(5, file.subarray(5 * 65_536, 6 * 65_536), false).subarray(0, 30_000);
    appendFileSync(path.join(server.ctx.config.filesDir!, 'uploads', id), Buffer.concat([sealer.seal(4, file.subarray(4 * 65_536, 5 * 65_536), false), torn]));
    expect((await head(session, id)).offset).toBe(5 * 65_536);
    expect((await patch(session, id, 5 * 65_536, file.subarray(5 * 65_536))).status).toBe(204);
    const res = await submit(session, [id]);
    expect(res.status).toBe(201);
    expect(sha((await storedBytes(server, res.data.caseDto.caseNumber)).bytes)).toBe(sha(file));
  });

  it('terminates an upload on DELETE', async () => {
    const session = await newSession();
    const id = await createOk(session, 'gone.pdf', 1000);
    expect((await patch(session, id, 0, pdfOf(400))).status).toBe(204);
    const res = await fetch(`${server.url}/api/public/uploads/${id}`, { method: 'DELETE', headers: { ...TUS, 'x-upload-session': session } });
    expect(res.status).toBe(204);
    expect((await head(session, id)).status).toBe(404);
    expect(listFiles(server.ctx.config.filesDir!).some((f) => f.endsWith(id))).toBe(false);
  });
});

describe('refusals', () => {
  it('answers 409 UPLOAD_OFFSET_MISMATCH for a PATCH at another offset, and keeps the upload', async () => {
    const session = await newSession();
    const id = await createOk(session, 'a.pdf', 1000);
    expect((await patch(session, id, 0, pdfOf(100))).status).toBe(204);
    const r = await patch(session, id, 50, Buffer.alloc(10));
    expectError({ status: r.status, data: r.data }, 409, 'UPLOAD_OFFSET_MISMATCH', 'Upload-Offset');
    expect((await head(session, id)).offset).toBe(100);
  });

  it('refuses bad input with a 4xx and an error code', async () => {
    const session = await newSession();
    const post = async (headers: Record<string, string>) => {
      const res = await fetch(`${server.url}/api/public/uploads`, { method: 'POST', headers });
      return { status: res.status, data: JSON.parse(await res.text()) };
    };
    const base = { ...TUS, 'x-upload-session': session, 'upload-length': '10', 'upload-metadata': meta('a.pdf') };
    expectError(await post({ ...base, 'tus-resumable': '0.2.2' }), 412, 'TUS_VERSION_UNSUPPORTED');
    expectError(await post({ ...base, 'x-upload-session': 'nope' }), 401, 'UPLOAD_SESSION_INVALID');
    expectError(await post({ ...base, 'x-upload-session': `${session.split('.')[0]}.${randomBytes(32).toString('base64url')}` }), 401, 'UPLOAD_SESSION_INVALID');
    expectError(await post({ ...base, 'upload-length': '-1' }), 400, 'BAD_UPLOAD_HEADER', 'Upload-Length');
    expectError(await post({ ...base, 'upload-length': undefined as unknown as string, 'upload-defer-length': '1' }), 400, 'UPLOAD_LENGTH_REQUIRED');
    expectError(await post({ ...base, 'upload-length': String(2 * 1024 ** 3 + 1) }), 413, 'FILE_TOO_LARGE');
    expectError(await post({ ...base, 'upload-metadata': meta('run.exe') }), 415, 'FORBIDDEN_FILE_TYPE');
    expectError(await post({ ...base, 'upload-metadata': 'filename not*base64' }), 400, 'BAD_UPLOAD_METADATA');
    expectError(await post({ ...base, 'upload-metadata': 'other aGk=' }), 400, 'FILE_NAME_REQUIRED');
    const id = await createOk(session, 'b.pdf', 10);
    expectError(await patch(session, id, 0, pdfOf(10), server, { 'content-type': 'application/json' }), 415, 'UPLOAD_CONTENT_TYPE');
    expectError(await patch(session, id, 0, Buffer.concat([pdfOf(10), Buffer.alloc(5)])), 400, 'UPLOAD_TOO_LONG');
    expectError(await patch(session, 'not-an-id', 0, pdfOf(10)), 404, 'UPLOAD_NOT_FOUND');
    // Five files per report, as in the multipart call.
    for (let i = 0; i < 4; i++) await createOk(session, `c${i}.pdf`, 10);
    expectError(await post(base), 400, 'TOO_MANY_FILES');
  });

  it('refuses and removes a finished upload whose bytes are not its type (checked again when complete)', async () => {
    const session = await newSession();
    // Text must be UTF-8 without NUL all through: this one fails only in its last chunk.
    const text = Buffer.concat([Buffer.alloc(200_000, 0x41), Buffer.from([0xff, 0x00])]);
    const id = await createOk(session, 'fake.txt', text.length);
    expect((await patch(session, id, 0, text.subarray(0, 150_000))).status).toBe(204);
    const r = await patch(session, id, 150_000, text.subarray(150_000));
    expectError({ status: r.status, data: r.data }, 415, 'FILE_CONTENT_MISMATCH');
    expect((await head(session, id)).status).toBe(404);
    expect(listFiles(server.ctx.config.filesDir!).some((f) => f.endsWith(id))).toBe(false);
  });

  it('refuses at once, by its first bytes, a large upload that is not its type', async () => {
    const session = await newSession();
    const id = await createOk(session, 'big.pdf', 50 * 1024 * 1024);
    const r = await patch(session, id, 0, Buffer.alloc(100_000, 0x41));
    expectError({ status: r.status, data: r.data }, 415, 'FILE_CONTENT_MISMATCH');
    expect((await head(session, id)).status).toBe(404);
    expect(listFiles(server.ctx.config.filesDir!).some((f) => f.endsWith(id))).toBe(false);
  });

  it('binds an upload to its session: another session can neither see it nor take it into a case', async () => {
    const mine = await newSession();
    const theirs = await newSession();
    const file = pdfOf(1000);
    const id = await createOk(mine, 'mine.pdf', file.length);
    expect((await patch(mine, id, 0, file)).status).toBe(204);
    expect((await head(theirs, id)).status).toBe(404);
    expectError(await patch(theirs, id, 1000, Buffer.alloc(0)), 404, 'UPLOAD_NOT_FOUND');
    const before = await countRows(server);
    expectError(await submit(theirs, [id]), 400, 'UNKNOWN_UPLOAD', 'uploads.0');
    expectError(await submit(null, [id]), 400, 'UPLOAD_SESSION_REQUIRED', 'uploads');
    expect(await countRows(server)).toEqual(before);
    // Still the owner's.
    expect((await submit(mine, [id])).status).toBe(201);
  });

  it('creates no case while one of its uploads is incomplete, and the same session works once it is done', async () => {
    const session = await newSession();
    const done = pdfOf(5000);
    const partial = mp4Of(300_000);
    const a = await createOk(session, 'done.pdf', done.length);
    expect((await patch(session, a, 0, done)).status).toBe(204);
    const b = await createOk(session, 'partial.mp4', partial.length);
    expect((await patch(session, b, 0, partial.subarray(0, 100_000))).status).toBe(204);
    const before = await countRows(server);
    const filesBefore = listFiles(server.ctx.config.filesDir!).length;
    expectError(await submit(session, [a, b]), 409, 'UPLOAD_INCOMPLETE', 'uploads.1');
    expect(await countRows(server)).toEqual(before);
    expect(listFiles(server.ctx.config.filesDir!).length).toBe(filesBefore);
    // Both uploads are still there, untouched.
    expect((await head(session, a)).offset).toBe(done.length);
    expect((await head(session, b)).offset).toBe(100_000);
    expect((await patch(session, b, 100_000, partial.subarray(100_000))).status).toBe(204);
    const res = await submit(session, [a, b]);
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect((await countRows(server)).files).toBe(before.files + 2);
    expect(sha((await storedBytes(server, res.data.caseDto.caseNumber, 1)).bytes)).toBe(sha(partial));
  });
});

describe('at rest and abandoned', () => {
  it('never writes a plaintext chunk: neither the file store nor the database holds the bytes, mid-upload or after', async () => {
    const session = await newSession();
    const marker = 'UNIQUE-PLAINTEXT-MARKER-7f3a';
    const text = Buffer.from(`${marker}\n`.repeat(20_000)); // ~580 KB of text, many chunks
    const id = await createOk(session, 'notes.txt', text.length);
    // Leave a tail that does not fill a chunk: it must be sealed, not kept in clear.
    expect((await patch(session, id, 0, text.subarray(0, 65_536 * 3 + 1_000))).status).toBe(204);
    const scan = () => listFiles(server.dataDir).filter((f) => readFileSync(f).includes(marker));
    expect(scan()).toEqual([]);
    expect((await patch(session, id, 65_536 * 3 + 1_000, text.subarray(65_536 * 3 + 1_000))).status).toBe(204);
    expect(scan()).toEqual([]);
    // Files of the store are the server's alone.
    for (const f of listFiles(server.ctx.config.filesDir!)) expect((await import('node:fs')).statSync(f).mode & 0o777).toBe(0o600);
    const res = await submit(session, [id]);
    expect(res.status).toBe(201);
    expect(scan()).toEqual([]);
    expect((await storedBytes(server, res.data.caseDto.caseNumber)).bytes.equals(text)).toBe(true);
  });

  it('removes a session and its finished upload 24 hours after it was made, and the session can then make no case', async () => {
    const session = await newSession();
    const file = pdfOf(5_000);
    const id = await createOk(session, 'left.pdf', file.length);
    expect((await patch(session, id, 0, file)).status).toBe(204);
    const exists = (key: string) => listFiles(server.ctx.config.filesDir!).some((f) => f.endsWith(key));
    expect(exists(id)).toBe(true);

    // A finished upload is not stalled: it waits for its case as long as its session lives.
    clock.advance(23 * 60 * 60 * 1000);
    await server.ctx.jobs.runNow('upload-sweep');
    expect(exists(id)).toBe(true);
    expect((await head(session, id)).status).toBe(200);

    clock.advance(2 * 60 * 60 * 1000);
    const before = await countRows(server);
    await server.ctx.jobs.runNow('upload-sweep');
    expect(exists(id)).toBe(false);
    expect(await server.ctx.db.selectFrom('file_upload').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    expectError(await submit(session, [id]), 401, 'UPLOAD_SESSION_INVALID');
    expect((await countRows(server)).cases).toBe(before.cases);
  });
});
