/**
 * A sealed case's notification wish changed in the private area (docs/decisions/
 * sealed-reporter-pages.md "The notification address"), driven with the page's own
 * functions (src/private/sealed.ts `putSealedNotify`, which verifies the key log and seals
 * to its mail key) against a real server and a real SMTP server, the clock moved by the
 * test:
 * - on: the box stored in `case_notify` under the current mail key, the sealed read says
 *   so, a handler's message reaches the address; a second address replaces the first, a
 *   news mail already waiting included;
 * - off: the row and the waiting news go, a handler's message mails nobody;
 * - refused, nothing stored: a malformed box (400 BAD_ENVELOPE), a body of the wrong shape
 *   (400 VALIDATION), a stale mail key (409 MAIL_KEY_CHANGED), a server-keyed case (409
 *   CASE_NOT_SEALED), a closed case (409 CASE_CLOSED), no token (401);
 * - no address in clear in any row, ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestSmtp } from '../helpers/smtp.ts';
import { TestClock } from '../../server/clock.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { Browser, signIn, signInWithVerifier } from './identity-flow.ts';
import { certifiedHandler, followedAccount, sendFollowedSealedCase, setKeyAnchor } from '../helpers/sealed-case.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import { createApiClient } from '../../src/api/client.ts';
import { putSealedNotify, verifiedMailKey } from '../../src/private/sealed.ts';
import { fieldContext, keyId, sealField, sealNotifyAddress, toBase64, SEALED_COLUMNS } from '../../core/crypto/index.ts';

const HOST = 'sealednotify.test';
const BATCH_MS = 60_000;
const PASSWORD = 'a long sealed notify password';
const FIRST = 'first.notify-7d1e@example.org';
const SECOND = 'second.notify-7d1e@example.org';
const HANDLER = 'hedda.handler@example.com';

let smtp: TestSmtp;
let server: TestServer;
let clock: TestClock;
let officer: string;
let handler: { id: string; token: string };

const sendMail = () => server.ctx.jobs.runNow(MAIL_JOB);
const pageApi = (token: string) => createApiClient({ baseUrl: server.url, companyHost: HOST, getAccessToken: () => token });
const notifyRows = (caseId: string) => server.ctx.db.selectFrom('case_notify').selectAll().where('case_id', '=', caseId).execute();
const queuedNews = async (caseId: string) => (await server.ctx.db.selectFrom('mail_outbox').select('id').where('coalesce_key', '=', `news:${caseId}`).execute()).length;

/** Every row of every table as text (bytea as latin1 and base64): where an address in clear would show. */
async function databaseText(): Promise<string> {
  const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(server.ctx.db)).rows;
  const out: string[] = [];
  for (const { table_name } of tables) {
    for (const row of (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(server.ctx.db)).rows) {
      for (const v of Object.values(row)) out.push(v instanceof Uint8Array ? Buffer.from(v).toString('latin1') + Buffer.from(v).toString('base64') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
    }
  }
  return out.join('\n');
}

beforeAll(async () => {
  smtp = new TestSmtp();
  await smtp.start();
  clock = new TestClock();
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser', smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@sealednotify.test>', mailBatchMs: BATCH_MS, jobs: false }, { clock });
  officer = (await addCompany(server.ctx.db, { id: 'sealednotify', hosts: [HOST], officers: 1, languages: ['da', 'en', 'de'] })).officerIds[0]!;
  const recovery = await setKeyAnchor(server, 'sealednotify');
  handler = (await certifiedHandler(server, HOST, { companyId: 'sealednotify', name: 'Hedda', officerIds: [officer], certifier: recovery })).account;
  await server.ctx.db.updateTable('handler_account').set({ email: HANDLER }).where('id', '=', handler.id).execute();
});

afterAll(async () => {
  await server?.cleanup();
  await smtp?.stop();
});

/** A followed sealed case sent without a notification address, its reporter signed in. */
async function sealedCase() {
  const c = await sendFollowedSealedCase(server, HOST, { password: PASSWORD, officerId: officer, details: { description: 'notify', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' } });
  const tokens = await signIn(new Browser(server, HOST), c.caseNumber, PASSWORD);
  return { ...c, token: tokens.access_token as string, me: { host: HOST, token: tokens.access_token as string } };
}

async function handlerMessage(c: { caseNumber: string; caseId: string; dataKey: Uint8Array }) {
  const id = crypto.randomUUID();
  const body = toBase64(await sealField(c.dataKey, fieldContext(c.caseId, SEALED_COLUMNS.messageBody, id), 'We have a question'));
  const res = await call(server, 'POST', `/api/handler/cases/${c.caseNumber}/messages/sealed`, { token: handler.token, json: { id, body, answerWanted: true } });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
}

/** The reporter's mails the worker sends after the batch window. */
async function reporterMailsAfterBatch(): Promise<string[][]> {
  const before = smtp.mails.length;
  clock.advance(BATCH_MS + 1000);
  await sendMail();
  return smtp.mails.slice(before).map((m) => m.to).filter((to) => !to.includes(HANDLER));
}

describe('the notification wish of a sealed case, changed in the private area', () => {
  it('on: sealed to the mail key and stored apart; the news reaches the address, a second one replaces it, off mails nobody; no address in clear', async () => {
    const c = await sealedCase();
    await sendMail(); // the handler's new-case mail
    expect(await notifyRows(c.caseId)).toEqual([]);
    expect((await call(server, 'GET', '/api/private/case/my-case/sealed', c.me)).data.notify).toBe(false);

    // On, the page's way: the key log verified, the address sealed to its mail key, only the box sent.
    const res = await putSealedNotify(pageApi(c.token), c.caseId, { on: true, address: FIRST, language: 'de' });
    expect(await res.json()).toEqual({ notify: true });
    const [row] = await notifyRows(c.caseId);
    expect(row?.mail_key_id).toBe((await verifiedMailKey(pageApi(c.token))).keyId);
    expect((await call(server, 'GET', '/api/private/case/my-case/sealed', c.me)).data.notify).toBe(true);
    expect(await databaseText()).not.toContain(FIRST);

    await handlerMessage(c);
    expect(await reporterMailsAfterBatch()).toEqual([[FIRST]]);
    expect(smtp.to(FIRST).at(-1)!.subject).toBe('Es gibt Neuigkeiten zu Ihrem Fall');

    // A second address while news waits: the waiting mail goes to the new one, not the old.
    await handlerMessage(c);
    expect(await queuedNews(c.caseId)).toBe(1);
    expect((await putSealedNotify(pageApi(c.token), c.caseId, { on: true, address: SECOND, language: 'en' })).status).toBe(200);
    expect(await notifyRows(c.caseId)).toHaveLength(1);
    expect(await queuedNews(c.caseId)).toBe(1);
    expect(await databaseText()).not.toContain(SECOND);
    expect(await reporterMailsAfterBatch()).toEqual([[SECOND]]);
    expect(smtp.to(FIRST)).toHaveLength(1);

    // Off while news waits: the address and the waiting mail are gone; no one is told.
    await handlerMessage(c);
    expect(await queuedNews(c.caseId)).toBe(1);
    expect(await (await putSealedNotify(pageApi(c.token), c.caseId, { on: false, address: '' })).json()).toEqual({ notify: false });
    expect(await notifyRows(c.caseId)).toEqual([]);
    expect(await queuedNews(c.caseId)).toBe(0);
    expect(await reporterMailsAfterBatch()).toEqual([]);
    await handlerMessage(c);
    expect(await reporterMailsAfterBatch()).toEqual([]);
    expect((await call(server, 'GET', '/api/private/case/my-case/sealed', c.me)).data.notify).toBe(false);
    // Off again changes nothing and is no error.
    expect((await call(server, 'DELETE', '/api/private/case/notification/sealed', c.me)).status).toBe(200);
    expect([smtp.to(FIRST).length, smtp.to(SECOND).length]).toEqual([1, 1]);
    expect(await databaseText()).not.toMatch(/notify-7d1e/);
  });

  it('refuses a malformed box, a body of the wrong shape and a stale mail key, storing nothing', async () => {
    const c = await sealedCase();
    const mailKey = await verifiedMailKey(pageApi(c.token));
    const put = (json: unknown) => call(server, 'PUT', '/api/private/case/notification/sealed', { ...c.me, json });
    expectError(await put({ notify: { keyId: mailKey.keyId, box: toBase64(Uint8Array.of(2, 1, 2, 3)) } }), 400, 'BAD_ENVELOPE', 'notify.box');
    expectError(await put({ notify: { keyId: mailKey.keyId, box: toBase64(new Uint8Array(200).fill(9)) } }), 400, 'BAD_ENVELOPE', 'notify.box');
    expectError(await put({ notify: { keyId: mailKey.keyId, box: 'not base64!' } }), 400, 'VALIDATION');
    expectError(await put({ notify: { keyId: 'abc', box: 'AAAA' } }), 400, 'VALIDATION');
    expect((await put({})).status).toBe(400);
    // An address sealed to another key (as after a rotation): read the log again.
    const other = new Uint8Array(await crypto.subtle.exportKey('spki', (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])).publicKey));
    const stale = await sealNotifyAddress({ spki: toBase64(other), keyId: await keyId(other) }, c.caseId, FIRST);
    expectError(await put({ notify: stale }), 409, 'MAIL_KEY_CHANGED', 'notify.keyId');
    // No token: no case.
    expect((await call(server, 'PUT', '/api/private/case/notification/sealed', { host: HOST, json: { notify: await sealNotifyAddress(mailKey, c.caseId, FIRST) } })).status).toBe(401);
    expect(await notifyRows(c.caseId)).toEqual([]);
    expect(await databaseText()).not.toContain(FIRST);
  });

  it('refuses a closed case, whose address the close deleted', async () => {
    const c = await sealedCase();
    expect((await putSealedNotify(pageApi(c.token), c.caseId, { on: true, address: FIRST })).status).toBe(200);
    expect((await call(server, 'PUT', `/api/handler/cases/${c.caseNumber}/status`, { token: handler.token, json: { status: 'CLOSED' } })).status).toBe(200);
    expect(await notifyRows(c.caseId)).toEqual([]);
    const mailKey = await verifiedMailKey(pageApi(c.token));
    expectError(await call(server, 'PUT', '/api/private/case/notification/sealed', { ...c.me, json: { notify: await sealNotifyAddress(mailKey, c.caseId, SECOND) } }), 409, 'CASE_CLOSED');
    expectError(await call(server, 'DELETE', '/api/private/case/notification/sealed', c.me), 409, 'CASE_CLOSED');
    expect(await notifyRows(c.caseId)).toEqual([]);
    await sendMail();
    expect(await databaseText()).not.toContain(SECOND);
  });

  it('refuses a server-keyed case (its wish is in the identity, on the usual path)', async () => {
    const account = await followedAccount(server, HOST, PASSWORD);
    const res = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers: { 'x-case-reservation': account.reservation }, body: form('caseDto', caseDto(officer, { caseAccount: account.caseAccount })) });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const row = await server.ctx.db.selectFrom('report_case').select(['id', 'sealed']).where('case_number', '=', account.caseNumber).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(false);
    const tokens = (await signInWithVerifier(new Browser(server, HOST), account.caseNumber, PASSWORD)).tokens!;
    const me = { host: HOST, token: tokens.access_token };
    const mailKey = await verifiedMailKey(pageApi(tokens.access_token));
    expectError(await call(server, 'PUT', '/api/private/case/notification/sealed', { ...me, json: { notify: await sealNotifyAddress(mailKey, row.id, FIRST) } }), 409, 'CASE_NOT_SEALED');
    expectError(await call(server, 'DELETE', '/api/private/case/notification/sealed', me), 409, 'CASE_NOT_SEALED');
    expect(await notifyRows(row.id)).toEqual([]);
  });
});
