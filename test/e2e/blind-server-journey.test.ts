/**
 * The done-when journey of issue 37 (docs/decisions/blind-server.md), in one test: real
 * Chromium against the real portal (the built SPA, the embedded OpenID provider, a real
 * SMTP server from smtp-server, PGlite) with SEALED_CASES=browser and a clock the test
 * moves (server/clock.ts TestClock, as test/server/retention.test.ts moves it).
 *
 * The journey, every step in a browser page:
 * - Hanne and Greta (officer of `localhost`) enrol; Hanne makes the company's recovery
 *   key, which certifies hers. Greta is certified later, so no case key is hers at first.
 * - Reporter A sends an identified, followed online report through the form with two
 *   files and e-mail notification; signs in on the provider's page and sends a message
 *   with a file. Hanne opens the case (details, identity, the three files, each saved
 *   and compared byte for byte), replies with a file; the notification mail arrives at
 *   the SMTP server; A reads the reply and saves Hanne's file, identical.
 * - Reporter B sends a followed phone report through /oral-report; Hanne writes its
 *   record (sealed and hashed in her browser); B opens it, comments and approves it;
 *   Hanne sees both, then closes the case.
 * - A changes the password on the provider's page (the data key re-wrapped there); the
 *   case opens with the new one.
 * - Hanne certifies Greta; Greta finds no key for case A; Hanne grants it; Greta opens it.
 * - The clock moves 37 months; the retention job purges B (closed) and keeps A.
 *
 * The recording: a recording HTTP proxy of node:http between Chromium and the server
 * (Chromium's --proxy-server, through playwright's `proxy` launch option, which also
 * proxies loopback). Chosen over page.on('request'/'response'): the proxy sees the
 * bytes as they cross the wire (request bodies a page event does not expose, such as
 * streamed uploads, every worker's and the provider's pages' requests, response bodies
 * of aborted streams) and decodes the responses' Brotli and gzip itself. So that
 * nothing goes round it, the server's own socket listener notes the peer port of every
 * request; every request with Chromium's user agent must have come from one of the
 * proxy's upstream sockets. No CONNECT tunnel is let through (the portal uses none; a
 * tunnel's bytes could not be read); the only ones asked for are Chromium's own services'
 * to Google's hosts, refused. Neither any marker string nor any run of a file's bytes may
 * appear in any URL, header or body either way: as typed, URL- and form-encoded, or in
 * base64 or base64url at any alignment. Nor in any mail the SMTP server took.
 *
 * After the journey the server stops; the whole data folder (PGlite's files with their
 * dead pages and write-ahead log, the file store, master key, pepper, admin token, mail
 * key, shred keys) is copied twice to temporary folders: one is scanned as it is, a
 * server is started on the other, and the project's own code paths are tried on them:
 * - the server's case service (loadCaseView) and case keys, for every case row;
 * - every handler API route that reads a case, with a token of an account made in the
 *   copy for every officer (what a thief with the database makes first);
 * - `npm run handler -- list` and `show CASE --save DIR` as child processes;
 * - the scripted client (scripts/lib/sealed-client.ts) with the old password and with a
 *   wrong one, and with the purged case's own password;
 * - every key a thief holds (master key, pepper, admin token, every 32-byte key file and
 *   what HKDF derives from them, every data key the server unwraps) against every
 *   sealed field of every row and every reporter wrap;
 * - the dead-page scan of test/server/deletion.test.ts: every 61-byte run anywhere in
 *   any file that could be a server wrapping of a data key, tried with those keys;
 * - a grep of every row of every table, and of every file of the untouched copy.
 * None yields a marker or a file byte. The control, so each path is shown able to read
 * what it can: a server-keyed case (CONTROL, sent in clear through the API before the
 * company had keys) opens by each of them; and the reporter's new password opens case A
 * through the scripted client. The notification address is sealed to the mail key, which
 * the mail worker holds by design (docs/security.md "What the server still sees"): it is
 * in no file, row or request in clear, and the mail key opens it and nothing else.
 *
 * PGlite only: on PostgreSQL the database's files are the cluster's, not the data folder's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createHash, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import * as OTPAuth from 'otpauth';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, distDir, openPage, type OpenedPage, type Portal } from './harness.ts';
import { createOnlineCase, firstOfficerId, signInThroughProvider } from './reporter.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestSmtp } from '../helpers/smtp.ts';
import { listFiles } from '../server/api.ts';
import { TestClock } from '../../server/clock.ts';
import { RETENTION_JOB } from '../../server/retention/purge.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import { loadCaseView } from '../../server/cases/service.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { fieldContext, importFieldKey, openField, unwrapDataKey } from '../../core/crypto/index.ts';
import { deriveForCase, openMyCase } from '../../scripts/lib/sealed-client.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cat = (area: string) => JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en: Record<string, string> = {};
for (const area of ['common', 'forms', 'notifying', 'private', 'sealing', 'sealedPrivate', 'record', 'handler', 'keys', 'sealed', 'sealedwork', 'metadata']) Object.assign(en, cat(area));
const msg = (key: string, values: Record<string, string | number> = {}) => {
  const text = en[key];
  if (text === undefined) throw new Error(`no message ${key}`);
  return text.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));
};
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const label = (key: string) => new RegExp(`^${escape(msg(key))}\\*?$`);

const HOST = 'localhost';
const COMPANY = 'nordlys-energi';
const DAY = 24 * 3600_000;
const tag = () => randomBytes(5).toString('hex');
const M = {
  description: `Descr-${tag()}-marker`,
  name: `Name-${tag()}-marker`,
  unit: `Unit-${tag()}-marker`,
  relation: `Rel-${tag()}-marker`,
  fileA: `FileA-${tag()}-marker`,
  fileB: `FileB-${tag()}-marker`,
  reporterMessage: `RepMsg-${tag()}-marker`,
  reporterFile: `RepFile-${tag()}-marker`,
  reply: `Reply-${tag()}-marker`,
  handlerFile: `HanFile-${tag()}-marker`,
  phoneRelation: `PhoneRel-${tag()}-marker`,
  record: `Record-${tag()}-marker`,
  comment: `Comment-${tag()}-marker`,
};
const ADDRESS = `notify-${tag()}@marker.example`;
const CONTROL = `Control-${tag()}-plain`;
const PASSWORDS = { a1: `A-old-${tag()}-pw`, a2: `A-new-${tag()}-pw`, b: `B-phone-${tag()}-pw`, hanne: `hanne long passphrase ${tag()}`, greta: `greta long passphrase ${tag()}` };

/** A text file's bytes: its marker on many lines, over more than one 64 KiB chunk. */
const textFile = (marker: string, lines = 4000) => Buffer.from(Array.from({ length: lines }, (_, i) => `${i};${marker};a line of the ledger`).join('\n') + `\n${marker}-end\n`);
const FILES = {
  formA: { name: `Kassebog ${M.fileA}.csv`, mimeType: 'text/csv', buffer: textFile(`${M.fileA}-bytes`) },
  formB: { name: `Noter ${M.fileB}.txt`, mimeType: 'text/plain', buffer: textFile(`${M.fileB}-bytes`, 40) },
  reporter: { name: `Ledger ${M.reporterFile}.txt`, mimeType: 'text/plain', buffer: textFile(`${M.reporterFile}-bytes`) },
  handler: { name: `Questions ${M.handlerFile}.txt`, mimeType: 'text/plain', buffer: textFile(`${M.handlerFile}-bytes`, 3000) },
};
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** What of the files must show nowhere: each name, and runs of its bytes from its start, middle and end. */
const fileNeedles = Object.values(FILES).flatMap((f) => {
  const b = f.buffer;
  const mid = Math.floor(b.length / 2);
  return [Buffer.from(f.name), b.subarray(0, 40), b.subarray(mid, mid + 40), b.subarray(b.length - 40)];
});
/** Every marker, the file needles and the passwords: what no wire, file, row or code path may yield. */
const NEEDLES: Buffer[] = [...Object.values(M), ...Object.values(PASSWORDS)].map((s) => Buffer.from(s)).concat(fileNeedles);

/** The forms a needle can take in transit or at rest: as is, URL- and form-encoded, base64 and base64url at the three alignments. */
function formsOf(needle: Buffer): Buffer[] {
  const text = needle.toString('latin1');
  const out = new Set<string>([text, encodeURIComponent(needle.toString('utf8')), new URLSearchParams({ x: needle.toString('utf8') }).toString().slice(2)]);
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), needle]).toString('base64');
    // The first 4 characters (when shifted) and the last 4 depend on the bytes beside the needle.
    const core = b64.slice(k ? 4 : 0, -4);
    out.add(core);
    out.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...out].map((s) => Buffer.from(s, 'latin1'));
}
const NEEDLE_FORMS = NEEDLES.map((n) => ({ label: n.toString('latin1').slice(0, 32), forms: formsOf(n) }));
/** Which needles are in `hay`, named. */
const needlesIn = (hay: Buffer, where: string) => NEEDLE_FORMS.filter((n) => n.forms.some((f) => hay.includes(f))).map((n) => `${n.label} in ${where}`);

// ---- the recording proxy -------------------------------------------------------------

interface Exchange {
  method: string;
  url: string;
  requestHeaders: string[];
  requestBody: Buffer[];
  status: number | null;
  responseHeaders: string[];
  /** The response body as it crossed the wire, and decoded (Content-Encoding) for the scan. */
  responseBody: Buffer[];
  decoded: Buffer[];
  decodeError: string | null;
}

function recordingProxy(target: () => number) {
  const exchanges: Exchange[] = [];
  const tunnels: string[] = [];
  const upstreamPorts = new Set<number>();
  // A connection per request upstream: no race between a reused socket and the server closing it idle.
  const agent = new http.Agent({ keepAlive: false });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, `http://${req.headers.host}`);
    const ex: Exchange = { method: req.method!, url: url.href, requestHeaders: req.rawHeaders, requestBody: [], status: null, responseHeaders: [], responseBody: [], decoded: [], decodeError: null };
    exchanges.push(ex);
    req.on('data', (c: Buffer) => ex.requestBody.push(c));
    const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname.endsWith('.localhost');
    if (!local || Number(url.port) !== target()) {
      ex.status = 502;
      res.writeHead(502).end();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const up = http.request({ host: '127.0.0.1', port: target(), method: req.method, path: url.pathname + url.search, headers, agent }, (ur) => {
      ex.status = ur.statusCode!;
      ex.responseHeaders = ur.rawHeaders;
      const encoding = String(ur.headers['content-encoding'] ?? '').trim();
      const decoder = encoding === 'br' ? zlib.createBrotliDecompress() : encoding === 'gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : null;
      if (encoding && !decoder) ex.decodeError = `unknown encoding ${encoding}`;
      decoder?.on('data', (d: Buffer) => ex.decoded.push(d)).on('error', (e) => (ex.decodeError = String(e)));
      const h = { ...ur.headers };
      delete h.connection;
      delete h['keep-alive'];
      res.writeHead(ur.statusCode!, h);
      ur.on('data', (c: Buffer) => {
        ex.responseBody.push(c);
        if (decoder) decoder.write(c);
        else ex.decoded.push(c);
        res.write(c);
      });
      ur.on('end', () => {
        // An empty body (a 304, a HEAD) is no compressed stream to end.
        if (ex.responseBody.length) decoder?.end();
        res.end();
      });
      ur.on('error', () => res.destroy());
    });
    up.on('socket', (s: net.Socket) => {
      const note = () => s.localPort && upstreamPorts.add(s.localPort);
      if (s.localPort) note();
      else s.once('connect', note);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
    tunnels.push(String(req.url));
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  return {
    exchanges,
    tunnels,
    upstreamPorts,
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))),
    close: () => {
      agent.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One exchange as one buffer: method, URL, both header lists, both bodies (as sent and decoded). */
const exchangeBytes = (e: Exchange) =>
  Buffer.concat([Buffer.from(`${e.method} ${e.url}\n${e.requestHeaders.join('\n')}\n${e.status}\n${e.responseHeaders.join('\n')}\n`, 'latin1'), ...e.requestBody, Buffer.from('\n'), ...e.responseBody, Buffer.from('\n'), ...e.decoded]);

// ---- the portal ------------------------------------------------------------------------

let smtp: TestSmtp;
let clock: TestClock;
let server: TestServer;
let portal: Portal;
let proxy: ReturnType<typeof recordingProxy>;
let browser: Browser;
const opened: OpenedPage[] = [];
/** Every request the server's socket took: the peer port and the user agent. */
const serverSaw: { port: number; ua: string; url: string }[] = [];

const totp = (secret: string, step: number) => new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });

/** A page in a context of its own; `noPicker`: a browser without the File System Access picker, so saves go through the download. */
async function open(noPicker = true): Promise<Page> {
  const o = await openPage(browser, { locale: 'en-GB' });
  opened.push(o);
  if (noPicker) await o.context.addInitScript(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
  o.page.setDefaultTimeout(120_000);
  return o.page;
}

interface Handler {
  name: 'hanne' | 'greta';
  email: string;
  secret: string;
  page: Page;
}

async function enrol(name: Handler['name'], officer: string): Promise<Handler> {
  const email = `${name}@example.org`;
  const account = await createHandlerAccount(server.ctx.db, COMPANY, name, { email, officers: [officer], token: false });
  const page = await open();
  await page.goto(enrolmentLink(portal.url(HOST, ''), account.enrolmentCode!));
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(msg('handler.enrol.password', { min: 12 })).fill(PASSWORDS[name]);
  await page.getByLabel(msg('handler.enrol.repeat')).fill(PASSWORDS[name]);
  await page.getByLabel(msg('handler.enrol.totp')).fill(totp(secret, 0));
  await page.getByRole('button', { name: msg('handler.enrol.submit') }).click();
  await page.getByText(msg('handler.enrol.done')).waitFor();
  return { name, email, secret, page };
}

async function handlerSignIn(h: Handler) {
  await h.page.goto(portal.url(HOST, '/handler'));
  await h.page.getByLabel(msg('handler.signIn.email')).fill(h.email);
  await h.page.getByLabel(msg('handler.signIn.password')).fill(PASSWORDS[h.name]);
  await h.page.getByLabel(msg('handler.signIn.code')).fill(totp(h.secret, 1));
  await h.page.getByRole('button', { name: msg('handler.signIn.submit') }).click();
  await h.page.waitForURL((u) => u.pathname === '/handler/cases');
}

async function keysPage(page: Page) {
  await page.getByRole('link', { name: msg('keys.nav') }).click();
  await page.getByRole('heading', { level: 1, name: msg('keys.page.title') }).waitFor();
}

/** The case from the inbox, by an in-app link (a full navigation would lock the keys). */
async function openCase(page: Page, caseNumber: string) {
  await page.getByRole('link', { name: msg('handler.title'), exact: true }).click();
  await page.getByRole('link', { name: new RegExp(caseNumber.replace(/(\d{4})(?=\d)/g, '$1 ')) }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
}

const stepOf = (page: Page, key: string) => page.locator('section', { has: page.getByRole('heading', { name: msg(`forms.step.${key}.title`) }) });

async function downloaded(page: Page, click: () => Promise<void>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return readFileSync((await download.path())!);
}

beforeAll(async () => {
  smtp = new TestSmtp();
  await smtp.start();
  clock = new TestClock();
  proxy = recordingProxy(() => server.port);
  const proxyPort = await proxy.listen();
  [server, browser] = await Promise.all([
    // mailBatchMs 0: the reporter's news goes at the next mail run, not batched for five minutes.
    startTestServer(
      { distDir: distDir(), seedDemo: true, sealedCases: 'browser', smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@portal.test>', mailBatchMs: 0, identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } },
      { clock },
    ),
    chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true, proxy: { server: `http://127.0.0.1:${proxyPort}` } }),
  ]);
  portal = { server, url: (host = 'localhost', pathname = '/') => `http://${host}:${server.port}${pathname}` };
  server.app.server.on('request', (req: http.IncomingMessage) => serverSaw.push({ port: req.socket.remotePort ?? 0, ua: String(req.headers['user-agent'] ?? ''), url: String(req.url) }));
}, 120_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await proxy?.close();
  await server?.cleanup();
  await smtp?.stop();
});

describe.skipIf(!!process.env.DATABASE_URL)('the done-when journey of issue 37', () => {
  const cases = { a: '', b: '', control: '' };
  const ids = { a: '', b: '', control: '' };

  it('runs in Chromium through a recording proxy: nothing of the journey in any request, response or mail', async () => {
    const officerId = await firstOfficerId(portal);
    // The control: a server-keyed case sent in clear before the company had keys.
    cases.control = await createOnlineCase(portal, { officerId, password: `Control-${tag()}-pw`, description: CONTROL });

    // Hanne and Greta enrol; Hanne makes the recovery key, which certifies her key.
    const hanne = await enrol('hanne', officerId);
    const greta = await enrol('greta', officerId);
    await handlerSignIn(hanne);
    await keysPage(hanne.page);
    await hanne.page.getByRole('button', { name: msg('keys.anchor.make') }).click();
    await hanne.page.getByRole('button', { name: msg('keys.anchor.printed') }).click();
    await hanne.page.getByText(msg('keys.page.certified')).waitFor();

    // Reporter A: an identified, followed online report with two files and e-mail notification, through the form.
    const a = await open();
    await a.goto(portal.url(HOST, '/online-form'));
    await a.getByRole('heading', { level: 2 }).first().waitFor();
    await a.getByLabel(label('forms.relation.label')).fill(`Storekeeper ${M.relation}`);
    await a.getByLabel(label('forms.describe.violation')).selectOption('THEFT');
    await a.getByLabel(label('forms.describe.description')).fill(`Stock sold privately: ${M.description}`);
    await stepOf(a, 'describeProblem').getByRole('radio', { name: msg('forms.no') }).check();
    await a.getByRole('radio', { name: msg('forms.related.company') }).check();
    await a.getByLabel(label('forms.related.unit')).fill(M.unit);
    await stepOf(a, 'documents').locator('input[type="file"]').setInputFiles([FILES.formA, FILES.formB]);
    for (const f of [FILES.formA, FILES.formB]) await stepOf(a, 'documents').getByText(f.name).first().waitFor();
    await a.getByRole('radio', { name: msg('forms.identity.reveal') }).check();
    await a.getByLabel(label('forms.identity.name')).fill(M.name);
    await a.getByLabel(label('forms.identity.email')).fill(ADDRESS);
    await a.getByRole('checkbox', { name: msg('forms.identity.notification') }).check();
    await a.getByText(msg('notifying.sealed')).waitFor();
    await a.getByLabel(label('forms.follow.password')).fill(PASSWORDS.a1);
    await a.getByLabel(label('forms.follow.confirm')).fill(PASSWORDS.a1);
    await a.getByRole('checkbox', { name: new RegExp(msg('forms.terms.accept')) }).check();
    const sendA = a.getByRole('button', { name: msg('forms.send.online') });
    await expect.poll(() => sendA.isEnabled()).toBe(true);
    await sendA.click();
    const doneA = a.getByRole('dialog', { name: msg('forms.success.online.title') });
    await doneA.waitFor({ timeout: 120_000 });
    cases.a = (await doneA.getByTestId('case-number').textContent())!.replace(/ /g, '');

    // Reporter B: a followed phone report through /oral-report.
    const b = await open();
    await b.goto(portal.url(HOST, '/oral-report'));
    await b.getByRole('heading', { level: 2 }).first().waitFor();
    await b.getByLabel(label('forms.relation.label')).fill(`Driver ${M.phoneRelation}`);
    await b.getByRole('radio', { name: msg('forms.identity.anonymous') }).check();
    await b.getByLabel(label('forms.follow.password')).fill(PASSWORDS.b);
    await b.getByLabel(label('forms.follow.confirm')).fill(PASSWORDS.b);
    await b.getByRole('checkbox', { name: new RegExp(msg('forms.terms.accept')) }).check();
    const sendB = b.getByRole('button', { name: msg('forms.send.oral') });
    await expect.poll(() => sendB.isEnabled()).toBe(true);
    await sendB.click();
    const doneB = b.getByRole('dialog', { name: msg('forms.success.oral.title') });
    await doneB.waitFor({ timeout: 120_000 });
    cases.b = (await doneB.getByTestId('case-number').textContent())!.replace(/ /g, '');

    const row = (n: string) => server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'submission_type']).where('case_number', '=', n).executeTakeFirstOrThrow();
    const [rowA, rowB, rowControl] = [await row(cases.a), await row(cases.b), await row(cases.control)];
    expect([rowA, rowB].map((r) => [r.sealed, r.wrapped_key, r.submission_type])).toEqual([[true, null, 'ONLINE_FORM'], [true, null, 'PHONE']]);
    expect(rowControl.sealed).toBe(false);
    [ids.a, ids.b, ids.control] = [rowA.id, rowB.id, rowControl.id];

    // A signs in and writes with a file: checked and sealed in the page.
    await signInThroughProvider(portal, a, cases.a, PASSWORDS.a1, '/private/messages');
    await a.getByLabel(msg('private.messages.label')).waitFor();
    await a.getByLabel(/^Attach files/).setInputFiles(FILES.reporter);
    await a.getByLabel(msg('private.messages.label')).fill(`The ledger: ${M.reporterMessage}`);
    await a.getByRole('button', { name: msg('private.messages.send') }).click();
    const own = a.locator('[data-own="true"]', { hasText: M.reporterMessage });
    await own.waitFor();
    await own.getByRole('button', { name: new RegExp(escape(FILES.reporter.name)) }).waitFor();

    // Hanne opens case A in her browser: details, identity, the message, the three files, each saved identical.
    await openCase(hanne.page, cases.a);
    await hanne.page.getByTestId('sealed-details').getByText(M.description, { exact: false }).waitFor();
    await hanne.page.getByTestId('sealed-identity').getByText(M.name, { exact: false }).waitFor();
    await hanne.page.getByTestId('sealed-thread').getByText(M.reporterMessage, { exact: false }).waitFor();
    const files = hanne.page.getByTestId('sealed-files');
    for (const f of [FILES.formA, FILES.formB, FILES.reporter]) {
      await files.getByText(f.name, { exact: true }).waitFor();
      const bytes = await downloaded(hanne.page, () => files.getByRole('button', { name: msg('sealedwork.files.save', { name: f.name }) }).click());
      expect(sha256(bytes), f.name).toBe(sha256(f.buffer));
    }

    // She replies with a file, sealed in her browser.
    const [chooser] = await Promise.all([hanne.page.waitForEvent('filechooser'), hanne.page.getByLabel(msg('sealedwork.composer.attach')).click()]);
    await chooser.setFiles(FILES.handler);
    await hanne.page.getByTestId('sealed-attachments').getByText(FILES.handler.name, { exact: true }).waitFor();
    await hanne.page.getByLabel(msg('handler.composer.text'), { exact: true }).fill(`Please see the questions ${M.reply}`);
    await hanne.page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await hanne.page.getByText(msg('handler.composer.sent')).waitFor();
    await files.getByText(FILES.handler.name, { exact: true }).waitFor();

    // The news reaches A's address through the SMTP server.
    await expect.poll(async () => (await server.ctx.jobs.runNow(MAIL_JOB), smtp.to(ADDRESS).length), { timeout: 60_000 }).toBeGreaterThan(0);

    // A reads the reply and saves Hanne's file, identical.
    await a.reload();
    await a.getByText(M.reply, { exact: false }).first().waitFor();
    const theirs = a.getByRole('complementary', { name: msg('private.files.title') }).getByRole('button', { name: new RegExp(escape(FILES.handler.name)) });
    await theirs.waitFor();
    expect(sha256(await downloaded(a, () => theirs.click()))).toBe(sha256(FILES.handler.buffer));

    // Case B: Hanne writes the record, sealed and hashed in her browser.
    await openCase(hanne.page, cases.b);
    const record = hanne.page.getByTestId('sealed-record');
    await record.getByRole('button', { name: msg('handler.record.write') }).click();
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(`Phone call on Monday. ${M.record} said the till was short.`);
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();

    // B signs in, opens the record (its hash checked in the page), comments and approves.
    await signInThroughProvider(portal, b, cases.b, PASSWORDS.b, '/private/report');
    await b.getByText(M.record, { exact: false }).first().waitFor();
    await b.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    await b.getByRole('button', { name: msg('private.report.comment.open'), exact: true }).click();
    const commentDialog = b.getByRole('dialog', { name: msg('private.report.comment.title') });
    await commentDialog.getByRole('textbox').fill(`It was Tuesday ${M.comment}`);
    await commentDialog.getByRole('button', { name: msg('private.report.comment.submit') }).click();
    await b.getByText(msg('private.report.comment.sent')).waitFor();
    await b.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).click();
    const approve = b.getByRole('alertdialog', { name: msg('private.report.approve.title') });
    await approve.getByRole('button', { name: msg('private.report.approve.confirm') }).click();
    await b.getByText(msg('private.report.approved')).waitFor();

    // Hanne sees the comment and the approval, and closes the case.
    await openCase(hanne.page, cases.b);
    await record.getByTestId('record-comments').getByText(M.comment, { exact: false }).waitFor();
    await record.getByTestId('record-approval').waitFor();
    await hanne.page.getByLabel(msg('handler.case.newStatus')).selectOption('CLOSED');
    await hanne.page.getByRole('button', { name: msg('handler.case.changeStatus') }).click();
    await hanne.page.getByRole('alertdialog').getByRole('button', { name: msg('handler.case.changeStatus') }).click();
    await hanne.page.getByTestId('case-status').getByText(msg('handler.status.CLOSED')).waitFor();

    // A changes the password on the provider's page; the case opens with the new one.
    await a.getByRole('link', { name: msg('private.nav.info') }).first().click();
    const change = a.getByRole('button', { name: msg('private.info.password.change') });
    await expect.poll(() => change.isEnabled()).toBe(true);
    await change.click();
    await a.getByRole('alertdialog').getByRole('button', { name: msg('private.info.password.confirm') }).click();
    await a.getByRole('heading', { level: 1, name: msg('private.password.requested.title') }).waitFor();
    await a.getByRole('link', { name: msg('private.password.requested.login') }).click();
    await a.waitForSelector('#caseNumber');
    await a.fill('#caseNumber', cases.a);
    await a.fill('#password', PASSWORDS.a1);
    await a.press('#password', 'Enter');
    await a.waitForSelector('#newPassword');
    await a.fill('#newPassword', PASSWORDS.a2);
    await a.fill('#confirmPassword', PASSWORDS.a2);
    await a.press('#confirmPassword', 'Enter');
    // The provider's page derives the new keys and re-wraps the case's key first (Argon2id, slow on a loaded machine).
    await a.waitForURL((u) => u.pathname.startsWith('/private/'), { timeout: 180_000 });
    const a2 = await open();
    await signInThroughProvider(portal, a2, cases.a, PASSWORDS.a2, '/private/status');
    await a2.getByRole('link', { name: msg('private.nav.report') }).first().click();
    await a2.getByText(M.description, { exact: false }).waitFor();

    // Greta, certified now, has no key for case A; Hanne grants it; Greta opens it.
    await keysPage(hanne.page);
    const pending = hanne.page.locator('li', { hasText: greta.email });
    await pending.getByRole('button', { name: msg('keys.pending.certify', { name: 'greta' }) }).click();
    await hanne.page.getByRole('alertdialog').getByRole('button', { name: msg('keys.pending.confirm') }).click();
    await pending.waitFor({ state: 'detached' });
    await handlerSignIn(greta);
    await openCase(greta.page, cases.a);
    await greta.page.getByText(msg('sealed.noKey')).waitFor();
    await openCase(hanne.page, cases.a);
    const grants = hanne.page.getByTestId('sealed-grants');
    await grants.getByRole('button', { name: msg('sealed.grants.give', { name: 'greta' }) }).click();
    await hanne.page.getByRole('alertdialog').getByRole('button', { name: msg('sealed.grants.confirm') }).click();
    await grants.getByText(msg('sealed.grants.granted', { name: 'greta' })).waitFor();
    await greta.page.getByRole('button', { name: msg('handler.retry') }).click();
    await greta.page.getByTestId('sealed-details').getByText(M.description, { exact: false }).waitFor();
    await greta.page.getByTestId('sealed-thread').getByText(M.reply, { exact: false }).waitFor();

    // Retention: 37 months on, the closed case B is purged; A and the control stay.
    for (const p of opened) await p.close().catch(() => undefined);
    clock.advance(37 * 31 * DAY);
    expect(await server.ctx.jobs.runNow(RETENTION_JOB)).toBe(true);
    const left = (await server.ctx.db.selectFrom('report_case').select('id').where('id', 'in', [ids.a, ids.b, ids.control]).execute()).map((r) => r.id).sort();
    expect(left).toEqual([ids.a, ids.control].sort());

    // The recording: everything Chromium sent went through the proxy, and nothing of the journey is in it.
    await new Promise((r) => setTimeout(r, 500));
    const chromiumRequests = serverSaw.filter((s) => /Chrome/.test(s.ua));
    expect(chromiumRequests.length).toBeGreaterThan(100);
    expect(chromiumRequests.filter((s) => !proxy.upstreamPorts.has(s.port)).map((s) => s.url)).toEqual([]);
    // No tunnel to the portal (its bytes could not be read). Chromium's own services ask for tunnels to Google's hosts
    // (autofill, accounts, component updates through gvt1.com): refused by the proxy, they reach nothing, and carry no page's traffic.
    expect(proxy.tunnels.filter((t) => !/^([a-z0-9.-]+\.)?(google|googleapis|gstatic|gvt1|gvt2)\.com:443$/.test(t))).toEqual([]);
    expect(proxy.exchanges.filter((e) => e.decodeError).map((e) => `${e.url}: ${e.decodeError}`)).toEqual([]);
    const all = proxy.exchanges.map(exchangeBytes);
    // The recording holds what it should: the form's sealed case, the tus uploads, the sealed record, comment, re-wrap and grant.
    const urls = proxy.exchanges.map((e) => `${e.method} ${new URL(e.url).pathname}`);
    for (const expected of [/^POST \/api\/public\/case\/new\/sealed$/, /^PATCH \/api\/public\/uploads\//, /^POST \/api\/private\/case\/messages\/sealed$/, /^POST \/api\/handler\/cases\/\d+\/messages\/sealed$/, /\/record\/sealed$/, /\/comments\/sealed$/, /^POST \/idp\/.*\/interaction\/[^/]+\/password/, /^POST \/api\/handler\/cases\/\d+\/key-wraps$/]) {
      expect(urls.some((u) => expected.test(u)), String(expected)).toBe(true);
    }
    expect(urls.some((u) => /\/api\/public\/case\/new\/by-/.test(u))).toBe(false);
    const sealedSent = proxy.exchanges.find((e) => e.method === 'POST' && e.url.endsWith('/api/public/case/new/sealed'))!;
    expect(Buffer.concat(sealedSent.requestBody).toString()).toContain('"envelopes"');
    const leaks = all.flatMap((bytes, i) => needlesIn(bytes, `${proxy.exchanges[i]!.method} ${proxy.exchanges[i]!.url}`));
    expect(leaks).toEqual([]);
    // Nor the address, except in the SMTP envelope of the mail to it; no mail carries anything of the journey.
    expect(all.filter((bytes) => formsOf(Buffer.from(ADDRESS)).some((f) => bytes.includes(f))).length).toBe(0);
    expect(smtp.mails.length).toBeGreaterThan(0);
    expect(smtp.mails.flatMap((m, i) => needlesIn(Buffer.from(`${m.raw}\n${m.subject}\n${m.text}`), `mail ${i} to ${m.to.join(',')}`))).toEqual([]);
  }, 900_000);

  describe('a copy of the whole data folder, master key and pepper included', () => {
    /** The copy a server is started on, and an untouched second copy for the scans of its files. */
    let copyDir: string;
    let rawDir: string;
    let copy: TestServer;
    let thief: string;

    beforeAll(async () => {
      expect(ids.a, 'the journey ran').not.toBe('');
      await proxy.close();
      await server.stop();
      [copyDir, rawDir] = [mkdtempSync(path.join(os.tmpdir(), 'wb-stolen-')), mkdtempSync(path.join(os.tmpdir(), 'wb-stolen-raw-'))];
      for (const dir of [copyDir, rawDir]) {
        rmSync(dir, { recursive: true, force: true });
        cpSync(server.dataDir, dir, { recursive: true });
        for (const f of ['master.key', 'pepper', 'admin.token']) expect(statSync(path.join(dir, f)).size).toBeGreaterThan(0);
      }
      copy = await startTestServer({ dataDir: copyDir, distDir: distDir(), seedDemo: false, sealedCases: 'browser', jobs: false, identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } });
      // The first thing a thief with the database does: an account for every officer.
      thief = (await createHandlerAccount(copy.ctx.db, COMPANY, 'Thief')).token;
    }, 120_000);
    afterAll(async () => {
      await copy?.cleanup();
      if (rawDir) rmSync(rawDir, { recursive: true, force: true });
    });

    it('the server\'s case service and case keys open the control and nothing of the journey', async () => {
      const out: string[] = [];
      let control = '';
      for (const r of await copy.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).execute()) {
        try {
          const view = await loadCaseView(copy.ctx, r.id);
          const text = JSON.stringify(view);
          if (r.id === ids.control) control = text;
          out.push(...needlesIn(Buffer.from(text), `case view ${r.id}`));
        } catch (err) {
          if (r.id === ids.a) expect((err as { code?: string }).code).toBe('CASE_SEALED');
        }
        try {
          const key = await copy.ctx.caseKeys.unwrap(r.id, r.wrapped_key);
          if (r.id === ids.a) out.push('a data key of case A');
          expect(key.length).toBe(32);
        } catch {
          // sealed: no server key
        }
      }
      expect(control).toContain(CONTROL);
      expect(out).toEqual([]);
      // The mail key opens the notification address (by design) and it is all it opens.
      const notify = await copy.ctx.db.selectFrom('case_notify').select(['case_id', 'box']).execute();
      expect(notify.map((n) => n.case_id)).toEqual([ids.a]);
      expect(await copy.ctx.mailKeys.openNotify(ids.a, new Uint8Array(notify[0]!.box))).toEqual({ address: ADDRESS, language: 'en' });
    });

    it('every handler API route that reads a case answers nothing of the journey, to an account made in the copy', async () => {
      const get = async (p: string, method = 'GET', json?: unknown) => {
        const res = await fetch(`${copy.url}${p}`, { method, headers: { authorization: `Bearer ${thief}`, ...(json ? { 'content-type': 'application/json' } : {}) }, body: json ? JSON.stringify(json) : undefined });
        return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
      };
      const answers: { what: string; status: number; bytes: Buffer }[] = [];
      const list = await get('/api/handler/cases');
      expect(list.status).toBe(200);
      answers.push({ what: 'inbox', ...list });
      answers.push({ what: 'statistics', ...(await get('/api/handler/statistics')) });
      for (const n of [cases.a, cases.b, cases.control]) {
        for (const p of ['', '/sealed', '/assignment', '/key-wraps', '/record/1/approved', '/record/2/approved']) answers.push({ what: `${n}${p}`, ...(await get(`/api/handler/cases/${n}${p}`)) });
        answers.push({ what: `${n} export`, ...(await get(`/api/handler/cases/${n}/exports`, 'POST', {})) });
      }
      for (const f of await copy.ctx.db.selectFrom('case_file').innerJoin('report_case', 'report_case.id', 'case_file.case_id').select(['case_file.id', 'report_case.case_number']).execute()) {
        answers.push({ what: `file ${f.id}`, ...(await get(`/api/handler/cases/${f.case_number}/files/${f.id}`)) });
      }
      const admin = readFileSync(path.join(copyDir, 'admin.token'), 'utf8').trim();
      const exp = await fetch(`${copy.url}/api/admin/companies/${COMPANY}/export`, { headers: { authorization: `Bearer ${admin}` } });
      answers.push({ what: 'company export', status: exp.status, bytes: Buffer.from(await exp.arrayBuffer()) });
      expect(answers.flatMap((x) => needlesIn(x.bytes, `${x.what} (${x.status})`))).toEqual([]);
      // The sealed case's plain view is refused; the purged one is gone; the control opens.
      expect(answers.find((x) => x.what === cases.a)!.status).toBe(409);
      expect(answers.find((x) => x.what === cases.b)!.status).toBe(404);
      expect(answers.find((x) => x.what === cases.control)!.bytes.toString()).toContain(CONTROL);
    });

    it('`npm run handler -- list` and `show CASE --save DIR` print and save nothing of the journey', async () => {
      const run = (args: string[]) =>
        new Promise<{ code: number; out: string }>((resolve) => {
          execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/cli/handler.ts'), ...args, '--url', copy.url, '--token', thief], { cwd: ROOT, env: { ...process.env, DATA_DIR: copyDir }, timeout: 120_000 }, (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
          );
        });
      const saveDir = mkdtempSync(path.join(os.tmpdir(), 'wb-show-'));
      try {
        const runs = [await run(['list']), ...(await Promise.all([cases.a, cases.b].map((n) => run(['show', n, '--save', path.join(saveDir, n)]))))];
        expect(runs.flatMap((r, i) => needlesIn(Buffer.from(r.out), `run ${i}`))).toEqual([]);
        expect(runs[1]!.code).not.toBe(0);
        expect(runs[1]!.out).toContain('this case is sealed');
        const saved = listFiles(saveDir);
        expect(saved.flatMap((f) => needlesIn(readFileSync(f), f))).toEqual([]);
        // The control: the same command shows the server-keyed case.
        const control = await run(['show', cases.control]);
        expect(control.out).toContain(CONTROL);
      } finally {
        rmSync(saveDir, { recursive: true, force: true });
      }
    }, 300_000);

    it('the scripted client opens nothing without the reporter\'s password; with it, case A opens', async () => {
      const origin = `http://127.0.0.1:${copy.port}`;
      const tries: [string, string][] = [[cases.a, PASSWORDS.a1], [cases.a, `wrong-${tag()}`], [cases.b, PASSWORDS.b]];
      for (const [n, pw] of tries) {
        let text = '';
        try {
          text = JSON.stringify((await openMyCase(origin, await deriveForCase(origin, n, pw))).opened);
        } catch (err) {
          text = String(err);
        }
        expect(needlesIn(Buffer.from(text), `${n} with ${pw.slice(0, 6)}`)).toEqual([]);
        expect(text).not.toContain('"details"');
      }
      // The control: the reporter's own (new) password opens it, here as in the browser.
      const mine = await openMyCase(origin, await deriveForCase(origin, cases.a, PASSWORDS.a2));
      expect(JSON.stringify(mine.opened)).toContain(M.description);
    }, 120_000);

    it('no key the data folder holds opens a sealed field or a reporter wrap of the journey; they open the control\'s', async () => {
      const keys = await thiefKeys(copyDir, copy, [ids.a, ids.b, ids.control]);
      const opened: string[] = [];
      let control = 0;
      const db = copy.ctx.db;
      const tables = (await sql<{ table_name: string; column_name: string }>`select table_name, column_name from information_schema.columns where table_schema = current_schema() and data_type = 'bytea' and column_name like '%_enc'`.execute(db)).rows;
      for (const { table_name, column_name } of tables) {
        const hasCase = table_name === 'report_case' || (await sql<{ n: number }>`select count(*)::int as n from information_schema.columns where table_schema = current_schema() and table_name = ${table_name} and column_name = 'case_id'`.execute(db)).rows[0]!.n > 0;
        if (!hasCase) continue;
        const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(db)).rows;
        for (const r of rows) {
          const caseId = String(table_name === 'report_case' ? r.id : r.case_id);
          const sealed = r[column_name];
          if (!(sealed instanceof Uint8Array) || ![ids.a, ids.control].includes(caseId)) continue;
          const contexts = [fieldContext(caseId, `${table_name}.${column_name}`), fieldContext(caseId, `${table_name}.${column_name}`, String(r.id ?? ''))];
          for (const key of keys) {
            for (const c of contexts) {
              if (!(await opensWith(key, c, sealed))) continue;
              if (caseId === ids.control) control++;
              else opened.push(`${table_name}.${column_name} ${String(r.id)}`);
            }
          }
        }
      }
      for (const w of await db.selectFrom('case_key_wrap').select(['case_id', 'wrap', 'epoch']).where('kind', '=', 'reporter').execute()) {
        for (const key of keys) {
          try {
            await unwrapDataKey(await importFieldKey(key), new Uint8Array(w.wrap), { caseId: w.case_id, epoch: w.epoch });
            if (w.case_id !== ids.control) opened.push(`reporter wrap of ${w.case_id}`);
          } catch {
            // expected
          }
        }
      }
      expect(opened).toEqual([]);
      expect(control).toBeGreaterThan(0);
    }, 300_000);

    it('the dead-page scan finds no server wrapping of a journey case\'s key that opens, and finds the control\'s', async () => {
      const found = openableWrappings(rawDir, [ids.a, ids.b, ids.control]);
      expect(found[ids.control]!.length).toBeGreaterThan(0);
      expect({ a: found[ids.a], b: found[ids.b] }).toEqual({ a: [], b: [] });
    }, 600_000);

    it('no row of any table holds a marker, a file byte or the address', async () => {
      const db = copy.ctx.db;
      const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows;
      expect(tables.length).toBeGreaterThan(10);
      const inRows: string[] = [];
      for (const { table_name } of tables) {
        for (const r of (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(db)).rows) {
          const bytes = Buffer.concat(Object.values(r).map((v) => (v instanceof Uint8Array ? Buffer.from(v) : Buffer.from(typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)))));
          inRows.push(...needlesIn(bytes, table_name));
          if (formsOf(Buffer.from(ADDRESS)).some((x) => bytes.includes(x))) inRows.push(`the address in ${table_name}`);
        }
      }
      expect(inRows).toEqual([]);
    }, 120_000);

    it('no file of the copy (database files, dead pages and write-ahead log, file store, key files) holds a marker, a file byte or the address', () => {
      const files = listFiles(rawDir);
      expect(files.some((f) => f.includes(`${path.sep}db${path.sep}`))).toBe(true);
      const found = files.flatMap((f) => {
        const bytes = readFileSync(f);
        return [...needlesIn(bytes, path.relative(rawDir, f)), ...(formsOf(Buffer.from(ADDRESS)).some((x) => bytes.includes(x)) ? [`the address in ${f}`] : [])];
      });
      expect(found).toEqual([]);
    }, 300_000);
  });
});

// ---- the thief's keys and the dead-page scan (as test/server/deletion.test.ts and sealed-at-rest.test.ts) ----

const WRAPPED_LENGTH = 1 + 12 + 32 + 16;
const b64File = (f: string) => Buffer.from(readFileSync(f, 'utf8').trim(), 'base64');

/** Every key file of the folder (master key, pepper, admin token, every 32-byte file or base64 of 32 bytes), and the case-key wrapping keys HKDF derives from any pair for `caseIds`. */
function folderKeys(dir: string, caseIds: string[]): Buffer[] {
  const base: Buffer[] = ['master.key', 'pepper', 'admin.token'].map((n) => b64File(path.join(dir, n)));
  for (const f of listFiles(dir)) {
    const size = statSync(f).size;
    if (size === 32) base.push(readFileSync(f));
    if (size === 44 || size === 45) {
      const d = b64File(f);
      if (d.length === 32) base.push(d);
    }
  }
  const keys = [...base];
  for (const id of caseIds) for (const other of base) keys.push(Buffer.from(hkdfSync('sha256', base[0]!, other, `wb:case-kek:${id}`, 32)), Buffer.from(hkdfSync('sha256', other, base[0]!, `wb:case-kek:${id}`, 32)));
  // Each key once: the base64 key files are also among the folder's files, so they came twice.
  return [...new Map(keys.map((k) => [k.toString('hex'), k])).values()];
}

/** The folder's keys and every data key the server on the copy unwraps by its own code. */
async function thiefKeys(dir: string, on: TestServer, caseIds: string[]): Promise<Uint8Array[]> {
  const keys: Uint8Array[] = folderKeys(dir, caseIds);
  for (const row of await on.ctx.db.selectFrom('report_case').select(['id', 'wrapped_key']).execute()) {
    try {
      keys.push(await on.ctx.caseKeys.unwrap(row.id, row.wrapped_key));
    } catch {
      // a sealed case: no server key
    }
  }
  return keys;
}

async function opensWith(key: Uint8Array, context: string, sealed: Uint8Array): Promise<boolean> {
  try {
    await openField(key, context, sealed);
    return true;
  } catch {
    return false;
  }
}

function opensRun(key: Buffer, aad: Buffer, run: Buffer): boolean {
  try {
    const d = createDecipheriv('aes-256-gcm', key, run.subarray(1, 13));
    d.setAAD(aad);
    d.setAuthTag(run.subarray(WRAPPED_LENGTH - 16));
    d.update(run.subarray(13, WRAPPED_LENGTH - 16));
    d.final();
    return true;
  } catch {
    return false;
  }
}

/** Per case id, where in the folder (live rows, dead pages, WAL, any file) a server wrapping of its data key opens with a key the thief holds. */
function openableWrappings(dir: string, caseIds: string[]): Record<string, string[]> {
  const files = listFiles(dir);
  const tries = caseIds.map((id) => ({ id, keys: folderKeys(dir, [id]), aads: [`wb:case-key:${id}`, `wb:case-key2:${id}`].map((x) => Buffer.from(x)) }));
  const found: Record<string, string[]> = Object.fromEntries(caseIds.map((id) => [id, []]));
  const seen = new Uint32Array(256);
  let stamp = 0;
  const runs = new Map<string, string[]>();
  for (const f of files) {
    const bytes = readFileSync(f);
    for (let i = bytes.indexOf(1); i !== -1 && i + WRAPPED_LENGTH <= bytes.length; i = bytes.indexOf(1, i + 1)) {
      // 60 random bytes have at least 36 distinct values (but for about one in 10^15); database structure has far fewer.
      stamp++;
      let distinct = 0;
      for (let j = i + 1; j < i + WRAPPED_LENGTH; j++) if (seen[bytes[j]!] !== stamp) (seen[bytes[j]!] = stamp), distinct++;
      if (distinct < 36) continue;
      const run = bytes.subarray(i, i + WRAPPED_LENGTH);
      // The same run in several places (the template databases' catalogs, a page and its image in the log) is tried once.
      const where = `${path.relative(dir, f)}@${i}`;
      const k = run.toString('latin1');
      const known = runs.get(k);
      if (known) known.push(where);
      else runs.set(k, [where]);
    }
  }
  for (const [k, where] of runs) {
    const run = Buffer.from(k, 'latin1');
    for (const t of tries) for (const aad of t.aads) for (const key of t.keys) if (opensRun(key, aad, run)) found[t.id]!.push(...where);
  }
  return found;
}
