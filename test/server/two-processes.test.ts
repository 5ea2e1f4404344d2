/**
 * Two server processes on one PostgreSQL database behave as one portal behind a load
 * balancer, as on two machines: each has a data folder of its own and the files are
 * in the database (FILE_STORE=postgres); they share nothing but PostgreSQL, the
 * secrets from the environment and the small shred-key folder (KEYS_DIR,
 * docs/decisions/file-store.md). A reporter's whole journey alternates between them
 * (report, sign-in, code exchange, refresh, messages, password change, a signing-key
 * rotation), files uploaded through one (multipart, and a resumable upload begun on
 * one and finished on the other) are downloaded through the other, a `pg_dump`
 * restored into a new database serves the same case with its files, failed sign-ins
 * on both add up to one lock, and master-key rotation is refused while either runs.
 * Runs only with DATABASE_URL (.ci/run); PGlite admits one process per data folder.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startChildServer, type ChildServer } from '../helpers/child-server.ts';
import { createTestDatabase, type TestServer } from '../helpers/server.ts';
import { Browser, exchangeCode, followToApp, formAction, newCase, officerOf, openSignIn, refresh, signIn, withProof, type Tokens } from './identity-flow.ts';
import { call, caseDto, form, listFiles, solveChallenge } from './api.ts';

const PUBLIC_PORT = 9443; // what the reporter's browser sees: the balancer's address, never contacted
const front = { port: PUBLIC_PORT, url: `http://localhost:${PUBLIC_PORT}` } as TestServer;
/** The refusal a sign-in page shows (pages differ only in their interaction's address). */
const alertOf = (html: string) => /role="alert"[^>]*>([\s\S]*?)<\//.exec(html)?.[1];
const asServer = (s: ChildServer) => ({ url: s.url, port: s.port }) as TestServer;
const BURST = 20;
/** PostgreSQL's client tools (pg_dump, pg_restore), as .ci/run finds the server's. */
const PG_BIN = existsSync('/usr/lib/postgresql')
  ? readdirSync('/usr/lib/postgresql')
      .sort((x, y) => Number(x) - Number(y))
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .filter((d) => existsSync(`${d}/pg_dump`))
      .pop()
  : undefined;
const LEDGER = 'supplier;invoice;amount\n'.repeat(120_000); // 2.8 MB: several chunk rows
const TUS = { 'tus-resumable': '1.0.0' };

describe.skipIf(!process.env.DATABASE_URL)('two server processes on one PostgreSQL', () => {
  let a: ChildServer;
  let b: ChildServer;
  let db: { url: string; drop: () => Promise<void> };
  let tmp: string;
  // Production-like: every process gets the same secrets from the environment.
  const masterKey = randomBytes(32).toString('base64');
  const pepper = randomBytes(32).toString('base64');
  // A low burst threshold, so the last test can make a burst with a few failures.
  // Files in the database, each process its own data folder: only the shred keys are shared.
  const env = () => ({ DATABASE_URL: db.url, MASTER_KEY: masterKey, PASSWORD_PEPPER: pepper, SIGNIN_BURST_THRESHOLD: String(BURST), SIGNIN_POW_DIFFICULTY: '8', FILE_STORE: 'postgres', KEYS_DIR: path.join(tmp, 'keys') });

  beforeAll(async () => {
    db = await createTestDatabase();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-two-'));
    a = await startChildServer({ dataDir: path.join(tmp, 'a'), env: env() });
    b = await startChildServer({ dataDir: path.join(tmp, 'b'), env: env() });
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** A private-API call from the browser, through process `via`. */
  async function api(browser: Browser, via: ChildServer, method: string, p: string, token: string, body?: { json?: unknown; message?: string }) {
    browser.via = via;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    let text: string | undefined;
    if (body?.json !== undefined) {
      headers['content-type'] = 'application/json';
      text = JSON.stringify(body.json);
    } else if (body?.message !== undefined) {
      const boundary = 'wbtwoprocesses';
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      text = `--${boundary}\r\nContent-Disposition: form-data; name="messageDto"\r\n\r\n${JSON.stringify({ message: body.message })}\r\n--${boundary}--\r\n`;
    }
    const res = await browser.request(method, p, { headers, ...(text !== undefined ? { body: text } : {}) });
    return { status: res.status, text: res.text };
  }

  it('both are ready', async () => {
    for (const s of [a, b]) expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    expect(a.pid).not.toBe(b.pid);
  });

  it("carries a reporter's whole journey, every step on the other process", async () => {
    const caseNumber = await newCase(asServer(a), { password: 'pass1234' });
    const browser = new Browser(front);

    // Sign-in: authorization request on A, the form post on B, the redirect on A, the code on B.
    browser.via = a;
    const { verifier, redirectUri, page } = await openSignIn(browser, { uiLocales: 'en' });
    expect(page.status).toBe(200);
    browser.via = b;
    const posted = await browser.postForm(formAction(page.text), { caseNumber, password: 'pass1234' });
    browser.via = a;
    const back = await followToApp(browser, posted);
    browser.via = b;
    const exchanged = await exchangeCode(browser, back.searchParams.get('code')!, verifier, redirectUri);
    expect(exchanged.status, exchanged.text).toBe(200);
    let tokens = JSON.parse(exchanged.text) as Tokens;
    expect(decodeJwt(tokens.access_token).case_number).toBe(caseNumber);

    // Refresh on A, then use the new token on B.
    browser.via = a;
    const refreshed = await refresh(browser, tokens.refresh_token);
    expect(refreshed.status, refreshed.text).toBe(200);
    tokens = JSON.parse(refreshed.text) as Tokens;
    const mine = await api(browser, b, 'GET', '/api/private/case/my-case', tokens.access_token);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.text).toContain(caseNumber);

    // A message sent through B is read through A.
    const sent = await api(browser, b, 'POST', '/api/private/case/messages/new', tokens.access_token, { message: 'Sent through one process' });
    expect(sent.status, sent.text).toBe(201);
    const read = await api(browser, a, 'GET', '/api/private/case/messages', tokens.access_token);
    expect(read.status).toBe(200);
    expect(read.text).toContain('Sent through one process');

    // A signing-key rotation on A: tokens signed with the new key verify on B at once.
    const adminToken = readFileSync(path.join(tmp, 'a', 'admin.token'), 'utf8').trim();
    const rotated = await fetch(`${a.url}/api/admin/identity/rotate-signing-key`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });
    expect(rotated.status).toBe(201);
    const { kid } = (await rotated.json()) as { kid: string };
    browser.via = a;
    const afterRotation = await refresh(browser, tokens.refresh_token);
    expect(afterRotation.status, afterRotation.text).toBe(200);
    tokens = JSON.parse(afterRotation.text) as Tokens;
    expect(decodeProtectedHeader(tokens.access_token).kid).toBe(kid);
    expect((await api(browser, b, 'GET', '/api/private/case/my-case', tokens.access_token)).status).toBe(200);

    // Password change asked on B ends the sign-in everywhere: A refuses the refresh token.
    const asked = await api(browser, b, 'PUT', '/api/private/case/password/request-update', tokens.access_token);
    expect(asked.status, asked.text).toBe(200);
    browser.via = a;
    expect((await refresh(browser, tokens.refresh_token)).status).toBe(400);

    // The next sign-in asks for the new password: started on B, old password on A, new one on B.
    const again = new Browser(front);
    again.via = b;
    const second = await openSignIn(again, { uiLocales: 'en' });
    again.via = a;
    const step = await again.postForm(formAction(second.page.text), { caseNumber, password: 'pass1234' });
    expect(step.status).toBe(200);
    expect(step.text).toContain('id="newPassword"');
    again.via = b;
    const done = await again.postForm(formAction(step.text), { newPassword: 'new-pass-2', confirmPassword: 'new-pass-2' });
    again.via = a;
    const back2 = await followToApp(again, done);
    again.via = b;
    expect((await exchangeCode(again, back2.searchParams.get('code')!, second.verifier, second.redirectUri)).status).toBe(200);

    // The old password fails on either process, the new one works on either.
    for (const via of [a, b]) {
      const fresh = new Browser(front);
      fresh.via = via;
      const { page: p } = await openSignIn(fresh, { uiLocales: 'en' });
      expect((await fresh.postForm(formAction(p.text), { caseNumber, password: 'pass1234' })).status).toBe(400);
    }
    for (const via of [a, b]) {
      const fresh = new Browser(front);
      fresh.via = via;
      expect(decodeJwt((await signIn(fresh, caseNumber, 'new-pass-2')).access_token).case_number).toBe(caseNumber);
    }
  });

  /** The reporter's case and the text of each of its files, read through `via` with a fresh sign-in. */
  async function filesVia(via: ChildServer, caseNumber: string, password: string) {
    const browser = new Browser(front);
    browser.via = via;
    const t = await signIn(browser, caseNumber, password);
    const mine = await api(browser, via, 'GET', '/api/private/case/my-case', t.access_token);
    expect(mine.status, mine.text).toBe(200);
    const files = (JSON.parse(mine.text) as { files: { id: string; name: string }[] }).files;
    const out: Record<string, string> = {};
    for (const f of files) {
      const got = await api(browser, via, 'GET', `/api/private/case/files/${f.id}`, t.access_token);
      expect(got.status).toBe(200);
      out[f.name] = got.text;
    }
    return out;
  }

  /** Solved on `via`: an upload session for a case still to come. */
  async function uploadSession(via: ChildServer): Promise<string> {
    const res = await fetch(`${via.url}/api/public/upload-sessions`, { method: 'POST', headers: { 'x-company-host': 'localhost', ...(await solveChallenge(via)) } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { uploadSession: string }).uploadSession;
  }

  const tusPatch = async (via: ChildServer, session: string, id: string, offset: number, bytes: Buffer) => {
    const res = await fetch(`${via.url}/api/public/uploads/${id}`, {
      method: 'PATCH',
      headers: { ...TUS, 'x-upload-session': session, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
      body: new Uint8Array(bytes),
    });
    await res.arrayBuffer();
    return { status: res.status, offset: Number(res.headers.get('upload-offset')) };
  };

  let filed: { caseNumber: string; password: string; files: Record<string, string> } | undefined;

  it('serves files uploaded through one process from the other, with no folder shared: multipart, and a resumable upload begun on one and finished on the other', async () => {
    // Multipart through A, read through B.
    const password = 'files-pass';
    const caseNumber = await newCase(asServer(a), { password, files: [{ name: 'ledger.csv', bytes: LEDGER }] });
    expect(await filesVia(b, caseNumber, password)).toEqual({ 'ledger.csv': LEDGER });

    // tus: session and first half on A, the offset asked and the rest sent on B, the case made on B, read on A.
    const session = await uploadSession(a);
    const bytes = Buffer.from('Notes of the meeting, line by line.\n'.repeat(90_000)); // 3.2 MB
    const created = await fetch(`${a.url}/api/public/uploads`, {
      method: 'POST',
      headers: { ...TUS, 'x-upload-session': session, 'upload-length': String(bytes.length), 'upload-metadata': `filename ${Buffer.from('notes.txt').toString('base64')}` },
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').pop()!;
    const half = 1_500_000;
    expect(await tusPatch(a, session, id, 0, bytes.subarray(0, half))).toEqual({ status: 204, offset: half });
    const asked = await fetch(`${b.url}/api/public/uploads/${id}`, { method: 'HEAD', headers: { ...TUS, 'x-upload-session': session } });
    expect(Number(asked.headers.get('upload-offset'))).toBe(half);
    expect(await tusPatch(b, session, id, half, bytes.subarray(half))).toEqual({ status: 204, offset: bytes.length });
    const officer = await officerOf(asServer(b), 'localhost');
    const made = await call(asServer(b), 'POST', '/api/public/case/new/by-form', {
      host: 'localhost',
      body: form('caseDto', caseDto(officer, { uploads: [id], caseAccount: { follow: true, password } })),
      headers: { 'x-upload-session': session },
    });
    expect(made.status, JSON.stringify(made.data)).toBe(201);
    expect(await filesVia(a, made.data.caseDto.caseNumber, password)).toEqual({ 'notes.txt': bytes.toString() });

    // Nothing of either file is in either data folder: the bytes are in PostgreSQL.
    for (const dir of ['a', 'b']) {
      const stored = listFiles(path.join(tmp, dir)).filter((f) => !f.includes(`${path.sep}keys${path.sep}`) && f.includes(`${path.sep}files${path.sep}`));
      expect(stored).toEqual([]);
    }
    filed = { caseNumber, password, files: { 'ledger.csv': LEDGER } };
  });

  it.skipIf(!PG_BIN)('a pg_dump of the database, restored into a new one, serves the same case with its files', async () => {
    expect(filed).toBeDefined();
    const dump = path.join(tmp, 'portal.dump');
    execFileSync(`${PG_BIN}/pg_dump`, ['--format=custom', '--file', dump, '--dbname', db.url]);
    const restored = await createTestDatabase();
    let c: ChildServer | undefined;
    try {
      execFileSync(`${PG_BIN}/pg_restore`, ['--no-owner', '--dbname', restored.url, dump]);
      // A third machine: its own data folder, the restored database, the same secrets and shred keys.
      c = await startChildServer({ dataDir: path.join(tmp, 'c'), env: { ...env(), DATABASE_URL: restored.url } });
      expect(await filesVia(c, filed!.caseNumber, filed!.password)).toEqual(filed!.files);
    } finally {
      await c?.stop();
      await restored.drop();
    }
  });

  it('adds failed sign-ins on both processes up to one lock', async () => {
    const caseNumber = await newCase(asServer(b), { password: 'right-pass' });
    // Ten wrong passwords at once, five through each process, each from its own browser.
    const attempts = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const browser = new Browser(front);
        browser.via = i % 2 ? b : a;
        const { page } = await openSignIn(browser, { uiLocales: 'en' });
        return { browser, action: formAction(page.text) };
      }),
    );
    const answers = await Promise.all(attempts.map(({ browser, action }, i) => browser.postForm(action, { caseNumber, password: `wrong-${i}` })));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(400));

    // Locked on both: the right password is refused, and both say the same pause (issue 17 §2:
    // a paused sign-in says for how long; the tenth failure, on whichever process, said it first).
    const pausedAnswers = answers.filter((r) => alertOf(r.text)?.includes('paused'));
    expect(pausedAnswers.length).toBeGreaterThanOrEqual(1);
    for (const via of [a, b]) {
      const browser = new Browser(front);
      browser.via = via;
      const { page } = await openSignIn(browser, { uiLocales: 'en' });
      const locked = await browser.postForm(formAction(page.text), { caseNumber, password: 'right-pass' });
      expect(locked.status).toBe(400);
      expect(alertOf(locked.text)).toBe(alertOf(pausedAnswers[0]!.text));
    }
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // One row for the case, locked: neither process saw more than five failures of its own.
      const rows = (await client.query(`select locked_until > now() as locked from signin_throttle where key like 'case:%'`)).rows as { locked: boolean }[];
      expect(rows).toEqual([{ locked: true }]);
    } finally {
      await client.end();
    }
  });

  it("sees a burst of failed sign-ins made on one process on the other: its form asks for the proof, and refuses a post without one", async () => {
    const caseNumber = await newCase(asServer(a), { password: 'burst-pass' });
    const pageVia = async (via: ChildServer) => {
      const browser = new Browser(front);
      browser.via = via;
      return { browser, ...(await openSignIn(browser, { uiLocales: 'en' })) };
    };
    // Wrong passwords on random case numbers, all through process a, until process b's form asks for a proof.
    let failures = 0;
    while (!(await pageVia(b)).page.text.includes('data-pow-challenge')) {
      expect(failures).toBeLessThan(BURST);
      const { browser, page } = await pageVia(a);
      const wrong = Array.from({ length: 16 }, () => Math.floor(Math.random() * 10)).join('');
      expect((await browser.postForm(formAction(page.text), withProof(page.text, { caseNumber: wrong, password: 'wrong' }))).status).toBe(400);
      failures++;
    }
    expect(failures).toBeGreaterThan(0);
    // On b: no proof, no sign-in, even with the right password; with the proof solved, in.
    const bare = await pageVia(b);
    const refused = await bare.browser.postForm(formAction(bare.page.text), { caseNumber, password: 'burst-pass' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('data-pow-challenge');
    const solved = await pageVia(b);
    const ok = await solved.browser.postForm(formAction(solved.page.text), withProof(solved.page.text, { caseNumber, password: 'burst-pass' }));
    expect(ok.status, ok.text).toBe(303);
  });

  it('refuses a master-key rotation while either process runs, also from another machine', async () => {
    const elsewhere = mkdtempSync(path.join(tmp, 'other-machine-'));
    const run = () =>
      new Promise<{ code: number; stderr: string; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', path.join(ROOT, 'server/cli/keys.ts'), 'rotate-master'],
          { cwd: ROOT, env: { ...process.env, ...env(), DATA_DIR: elsewhere, NEW_MASTER_KEY: randomBytes(32).toString('base64') }, timeout: 60_000 },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const refused = await run();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('2 server process(es) run on this database');
    expect(refused.stderr).toContain(`pid ${a.pid}`);
    expect(refused.stderr).toContain(`pid ${b.pid}`);

    // Stopped cleanly, they leave no trace: the rotation runs.
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
    const ran = await run();
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('re-wrapped');
  });
});
