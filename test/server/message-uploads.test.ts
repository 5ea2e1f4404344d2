/**
 * A signed-in reporter's resumable uploads for a private message
 * (docs/decisions/resumable-uploads.md, "Files with a private message"), against the
 * real server and the real embedded provider: a session bound to the token's case,
 * the message that takes its uploads in its own transaction (all or nothing), the
 * refusals of a session used where it does not belong, the per-case budget, the
 * 24-hour sweep, and my-case showing the files at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, caseDto, countRows, expectError, form, PDF, solveChallenge } from './api.ts';
import { Browser, newCase, signIn, type Tokens } from './identity-flow.ts';
import { openCaseFile } from '../../server/cases/service.ts';
import { sweepUploads } from '../../server/uploads/resumable.ts';
import { caseCacheOf } from '../../server/cases/view-cache.ts';
import { deleteCase } from '../../server/retention/purge.ts';

const B = '/api/private/case';
const TUS = { 'tus-resumable': '1.0.0' };
let server: TestServer;
let mine: { caseNumber: string; tokens: Tokens };
let theirs: { caseNumber: string; tokens: Tokens };

beforeAll(async () => {
  server = await startTestServer({ caseUploadSessionRateLimit: { max: 6, windowSeconds: 3600 } });
  const open = async () => {
    const caseNumber = await newCase(server);
    return { caseNumber, tokens: await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234') };
  };
  mine = await open();
  theirs = await open();
});
afterAll(async () => server?.cleanup());

const as = (t: Tokens) => ({ token: t.access_token, host: 'localhost' });

async function caseSession(t: Tokens): Promise<string> {
  const res = await call(server, 'POST', `${B}/upload-sessions`, as(t));
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.data.uploadSession).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
  return res.data.uploadSession as string;
}

async function upload(session: string, name: string, bytes: Buffer, sendBytes = bytes.length): Promise<string> {
  const res = await fetch(`${server.url}/api/public/uploads`, {
    method: 'POST',
    headers: { ...TUS, 'x-upload-session': session, 'upload-length': String(bytes.length), 'upload-metadata': `filename ${Buffer.from(name).toString('base64')}` },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const id = res.headers.get('location')!.split('/').pop()!;
  if (sendBytes) {
    const p = await fetch(`${server.url}/api/public/uploads/${id}`, {
      method: 'PATCH',
      headers: { ...TUS, 'x-upload-session': session, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: new Uint8Array(bytes.subarray(0, sendBytes)),
    });
    expect(p.status, await p.text()).toBe(204);
  }
  return id;
}

const post = (t: Tokens, session: string | null, dto: unknown) =>
  call(server, 'POST', `${B}/messages/new`, { ...as(t), body: form('messageDto', dto), headers: session ? { 'x-upload-session': session } : {} });

function pdfOf(n: number): Buffer {
  const b = randomBytes(n);
  PDF.copy(b, 0, 0, 8);
  return b;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function caseRow(caseNumber: string) {
  return server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
}

describe("a reporter's resumable uploads for a message", () => {
  it('the message takes the uploads of a session bound to its case, and my-case shows them at once', async () => {
    // my-case is read (and cached) before the message, so a stale copy would show.
    const before = await call(server, 'GET', `${B}/my-case`, as(mine.tokens));
    expect(before.status).toBe(200);
    // The case is now in the process's cache (server/cases/view-cache.ts): a missed invalidation would show the old view.
    const cached = await call(server, 'GET', `${B}/my-case`, as(mine.tokens));
    expect(cached.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(caseCacheOf(server.ctx.db)!.size).toBeGreaterThan(0);
    const session = await caseSession(mine.tokens);
    const a = pdfOf(3 * 65_536 + 17);
    const b = Buffer.from('the minutes, as I wrote them\n');
    const ids = [await upload(session, 'minutes.pdf', a), await upload(session, 'notes.txt', b)];
    const res = await post(mine.tokens, session, { message: 'Two files.', uploads: ids });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(res.data.message.files.map((f: { name: string; size: number }) => [f.name, f.size])).toEqual([
      ['minutes.pdf', a.length],
      ['notes.txt', b.length],
    ]);

    const after = await call(server, 'GET', `${B}/my-case`, as(mine.tokens));
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const m = (after.data.messages as { id: string; files: { id: string; name: string }[] }[]).find((x) => x.id === res.data.message.id);
    expect(m?.files.map((f) => f.name)).toEqual(['minutes.pdf', 'notes.txt']);
    // The very bytes, read back through the case's key.
    const row = await caseRow(mine.caseNumber);
    const file = (await openCaseFile(server.ctx, row, m!.files[0]!.id))!;
    const chunks: Buffer[] = [];
    for await (const c of file.stream) chunks.push(c as Buffer);
    expect(sha(Buffer.concat(chunks))).toBe(sha(a));
    const download = await fetch(`${server.url}${B}/files/${m!.files[1]!.id}`, { headers: { authorization: `Bearer ${mine.tokens.access_token}`, 'x-company-host': 'localhost' } });
    expect(Buffer.from(await download.arrayBuffer()).toString()).toBe(b.toString());

    // The uploads became the message's files; the session served its one message.
    expect((await fetch(`${server.url}/api/public/uploads/${ids[0]}`, { method: 'HEAD', headers: { ...TUS, 'x-upload-session': session } })).status).toBe(404);
    expectError(await post(mine.tokens, session, { message: 'again', uploads: [] }), 409, 'UPLOAD_SESSION_USED');
  });

  it('writes no message while an upload is incomplete (409), and the same session sends it once the upload is done', async () => {
    const session = await caseSession(mine.tokens);
    const bytes = pdfOf(200_000);
    const id = await upload(session, 'half.pdf', bytes, 100_000);
    const rows = await countRows(server);
    expectError(await post(mine.tokens, session, { message: 'Not yet.', uploads: [id] }), 409, 'UPLOAD_INCOMPLETE', 'uploads.0');
    expect(await countRows(server)).toEqual(rows);
    const p = await fetch(`${server.url}/api/public/uploads/${id}`, {
      method: 'PATCH',
      headers: { ...TUS, 'x-upload-session': session, 'upload-offset': '100000', 'content-type': 'application/offset+octet-stream' },
      body: new Uint8Array(bytes.subarray(100_000)),
    });
    expect(p.status).toBe(204);
    const res = await post(mine.tokens, session, { message: 'Now.', uploads: [id] });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect((await countRows(server)).messages).toBe(rows.messages + 1);
  });

  it("refuses a session bound to another case, an anonymous session for a message, and a reporter's session for a new case", async () => {
    const theirSession = await caseSession(theirs.tokens);
    const id = await upload(theirSession, 'theirs.txt', Buffer.from('theirs\n'));
    const rows = await countRows(server);
    expectError(await post(mine.tokens, theirSession, { message: 'Not mine.', uploads: [id] }), 403, 'UPLOAD_SESSION_FOREIGN');
    // Naming the id under my own session finds nothing either.
    const own = await caseSession(mine.tokens);
    expectError(await post(mine.tokens, own, { message: 'Not mine.', uploads: [id] }), 400, 'UNKNOWN_UPLOAD', 'uploads.0');
    expectError(await post(mine.tokens, null, { message: 'No session.', uploads: [id] }), 400, 'UPLOAD_SESSION_REQUIRED', 'uploads');

    const anon = await fetch(`${server.url}/api/public/upload-sessions`, { method: 'POST', headers: { 'x-company-host': 'localhost', ...(await solveChallenge(server)) } });
    const anonSession = ((await anon.json()) as { uploadSession: string }).uploadSession;
    const anonId = await upload(anonSession, 'anon.txt', Buffer.from('anonymous\n'));
    expectError(await post(mine.tokens, anonSession, { message: 'Public.', uploads: [anonId] }), 403, 'UPLOAD_SESSION_FOREIGN');

    const officer = (await server.ctx.db.selectFrom('report_case').select('protection_officer_id').limit(1).executeTakeFirstOrThrow()).protection_officer_id;
    const newCaseWith = await call(server, 'POST', '/api/public/case/new/by-form', {
      host: 'localhost',
      body: form('caseDto', caseDto(officer, { uploads: [id] })),
      headers: { 'x-upload-session': theirSession },
    });
    expectError(newCaseWith, 403, 'UPLOAD_SESSION_FOREIGN');
    expect(await countRows(server)).toEqual(rows);
    // The upload is still theirs to send.
    expect((await post(theirs.tokens, theirSession, { message: 'Mine.', uploads: [id] })).status).toBe(201);
  });

  it('keeps the file rules: at most five files with those in the body, and a file whose bytes are not its type is refused', async () => {
    const session = await caseSession(mine.tokens);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await upload(session, `n${i}.txt`, Buffer.from(`note ${i}\n`)));
    const sixth = await fetch(`${server.url}/api/public/uploads`, {
      method: 'POST',
      headers: { ...TUS, 'x-upload-session': session, 'upload-length': '3', 'upload-metadata': `filename ${Buffer.from('six.txt').toString('base64')}` },
    });
    expect(sixth.status).toBe(400);
    const withBody = await call(server, 'POST', `${B}/messages/new`, {
      ...as(mine.tokens),
      body: form('messageDto', { message: 'Six.', uploads: ids }, [{ name: 'extra.txt', bytes: 'six\n' }]),
      headers: { 'x-upload-session': session },
    });
    expectError(withBody, 400, 'TOO_MANY_FILES');

    const other = await caseSession(mine.tokens);
    const fake = await fetch(`${server.url}/api/public/uploads`, {
      method: 'POST',
      headers: { ...TUS, 'x-upload-session': other, 'upload-length': '2000', 'upload-metadata': `filename ${Buffer.from('fake.pdf').toString('base64')}` },
    });
    const fakeId = fake.headers.get('location')!.split('/').pop()!;
    const p = await fetch(`${server.url}/api/public/uploads/${fakeId}`, {
      method: 'PATCH',
      headers: { ...TUS, 'x-upload-session': other, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      body: new Uint8Array(randomBytes(2000)),
    });
    expect(p.status).toBe(415);
  });

  it('needs the bearer token, and limits upload sessions per case', async () => {
    expectError(await call(server, 'POST', `${B}/upload-sessions`, { host: 'localhost' }), 401, 'UNAUTHORIZED');
    // The budget (6 in this suite) is the case's: the other case still has its own.
    let last = 0;
    for (let i = 0; i < 6 && last !== 429; i++) last = (await call(server, 'POST', `${B}/upload-sessions`, as(mine.tokens))).status;
    const refused = await call(server, 'POST', `${B}/upload-sessions`, as(mine.tokens));
    expectError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(server, 'POST', `${B}/upload-sessions`, as(theirs.tokens))).status).toBe(201);
  });

  it('the 24-hour sweep removes an abandoned session of a reporter with its uploads', async () => {
    const session = await call(server, 'POST', `${B}/upload-sessions`, as(theirs.tokens));
    const token = session.data.uploadSession as string;
    const id = await upload(token, 'left.pdf', pdfOf(100_000), 70_000);
    const sessionId = token.split('.')[0]!;
    await sweepUploads(server.ctx, new Date(Date.now() + 25 * 60 * 60 * 1000));
    expect(await server.ctx.db.selectFrom('upload_session').select('id').where('id', '=', sessionId).executeTakeFirst()).toBeUndefined();
    expect(await server.ctx.db.selectFrom('file_upload').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    expectError(await post(theirs.tokens, token, { message: 'Late.', uploads: [id] }), 401, 'UPLOAD_SESSION_INVALID');
  });

  it("deleting a case removes its reporter's upload sessions and their unfinished uploads at once", async () => {
    const caseNumber = await newCase(server);
    const tokens = await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234');
    const token = (await call(server, 'POST', `${B}/upload-sessions`, as(tokens))).data.uploadSession as string;
    const id = await upload(token, 'draft.pdf', pdfOf(200_000), 70_000);
    const known = async () => (await server.ctx.files.listUploads()).map((o) => o.key);
    expect(await known()).toContain(id);
    const row = await caseRow(caseNumber);
    expect(await deleteCase(server.ctx, row.id, 'CLOSED', new Date())).toBe(true);
    expect(await server.ctx.db.selectFrom('upload_session').select('id').where('id', '=', token.split('.')[0]!).executeTakeFirst()).toBeUndefined();
    expect(await server.ctx.db.selectFrom('file_upload').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    expect(await known()).not.toContain(id);
  });

  it('still takes files in the multipart body (the spec call)', async () => {
    const res = await call(server, 'POST', `${B}/messages/new`, { ...as(mine.tokens), body: form('messageDto', { message: 'Old way.' }, [{ name: 'a.txt', bytes: 'a\n' }]) });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    expect(res.data.message.files.map((f: { name: string }) => f.name)).toEqual(['a.txt']);
  });
});
