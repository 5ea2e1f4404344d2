/**
 * Mail for sealed cases (issue 37 Build 3 and 4; docs/decisions/blind-server.md "Mail for
 * sealed cases"), against a real SMTP server and a clock the test moves: a case sealed in
 * the browser gets the handlers' new-case mail, the reporter-message mail and the
 * deadline reminders exactly as a server-keyed one, and the reporter's news goes to the
 * address the browser sealed to the mail key. No mail names the case or holds content;
 * the address is in no row in clear, not in the identity envelope, and gone after close
 * and after deletion; a malformed notify envelope is refused and nothing stored.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestSmtp, type ReceivedMail } from '../helpers/smtp.ts';
import { TestClock } from '../../server/clock.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addCompany } from './fixtures/company.ts';
import { call, countRows, expectError, form, caseDto } from './api.ts';
import { Browser, signIn } from './identity-flow.ts';
import { sealCase, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import { DEADLINE_JOB } from '../../server/mail/reminders.ts';
import { MAIL_KEY_FILE, makeMailKeyFile } from '../../server/mail/mail-key.ts';
import { rotateMail, settleMailKey } from '../../server/mail/rotate-mail-key.ts';
import { keysDirOf } from '../../server/crypto/case-keys.ts';
import { deleteCase } from '../../server/retention/purge.ts';
import { keepNotifyAddresses } from '../../server/mail/keep-notify.ts';
import { sealEveryCase } from '../../server/keys/retire-master.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import {
  deriveReporterKeys, fieldContext, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openFieldText, openSealedBox, sealField, sealNotifyAddress, signKeyLogEntry, toBase64, unwrapDataKey,
  PBKDF2_DEFAULT, SEALED_COLUMNS, type HandlerKeys, type KeyLogEntry, type MailKey,
} from '../../core/crypto/index.ts';

const HOST = 'sealedmail.test';
const BATCH_MS = 60_000;
const DAY = 24 * 3600_000;
const MARKER = 'MARKER-sealedmail-51c2';
const REPORTER = 'rosa.sealed@example.org';
const HANDLER = 'hilde.handler@example.com';
const PASSWORD = 'a long sealed mail password';

let smtp: TestSmtp;
let server: TestServer;
let clock: TestClock;
let officer: string;
let recovery: HandlerKeys;
let hildeKeys: HandlerKeys;
let hilde: { id: string; token: string };

type KeyLogAnswer = PublicKeyLog & { sealedCases?: string; mailKey?: MailKey };
const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as KeyLogAnswer;
const create = (body: unknown) => call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: body });
const sendMail = () => server.ctx.jobs.runNow(MAIL_JOB);
const notifyRows = async () => server.ctx.db.selectFrom('case_notify').selectAll().execute();

/** Nothing a mailbox reader may learn: no case number in any grouping, no marker, no status. */
function expectNoCaseContent(mail: ReceivedMail, caseNumber: string) {
  const all = `${mail.subject}\n${mail.text}\n${mail.raw}`;
  expect(all).not.toContain(caseNumber);
  expect(all).not.toContain(formatCaseNumber(caseNumber));
  expect(all.replace(/\s/g, '')).not.toContain(caseNumber);
  expect(all).not.toContain(MARKER);
  for (const status of ['RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED', 'PENDING']) expect(all).not.toContain(status);
}

async function followedAccount() {
  const r = await call(server, 'POST', '/api/public/case/reservation', { host: HOST });
  expect(r.status).toBe(201);
  const keys = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password: PASSWORD, salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
  return { caseNumber: r.data.caseNumber as string, reporterKey: keys.reporterKey, caseAccount: { follow: true, reservation: r.data.reservation, verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT } };
}

/** A followed sealed case whose reporter gave `address` for notifications, sealed to the mail key as the report form does (not in the identity envelope). */
async function sealedCaseWithNotify(address: string | null, language = 'de') {
  const read = await log();
  const account = await followedAccount();
  const sealed = await sealCase(read, { officerId: officer, details: { description: `Stock sold privately ${MARKER}` }, whistleblower: { name: `Rosa ${MARKER}`, notification: !!address }, account });
  const notify = address ? await sealNotifyAddress(read.mailKey!, sealed.caseId, address, language) : null;
  const res = await create({ ...sealed.body, ...(notify ? { notify } : {}) });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return { ...sealed, caseNumber: account.caseNumber, reporterKey: account.reporterKey };
}

async function sealedMessage(caseId: string, dataKey: Uint8Array, text: string) {
  const id = crypto.randomUUID();
  return { id, body: toBase64(await sealField(dataKey, fieldContext(caseId, SEALED_COLUMNS.messageBody, id), text)) };
}

/** Every stored byte the server keeps for cases and mail, as text (utf-8 and base64 of bytea). */
async function dump(): Promise<string> {
  const db = server.ctx.db;
  const rows = [
    ...(await db.selectFrom('report_case').selectAll().execute()),
    ...(await db.selectFrom('case_notify').selectAll().execute()),
    ...(await db.selectFrom('mail_outbox').selectAll().execute()),
    ...(await db.selectFrom('case_message').selectAll().execute()),
    ...(await db.selectFrom('case_key_wrap').selectAll().execute()),
  ];
  return rows.map((r) => Object.values(r).map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') + Buffer.from(v).toString('base64') : String(v))).join('|')).join('\n');
}

beforeAll(async () => {
  smtp = new TestSmtp();
  await smtp.start();
  clock = new TestClock();
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser', smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@sealedmail.test>', mailBatchMs: BATCH_MS, jobs: false }, { clock });
  officer = (await addCompany(server.ctx.db, { id: 'sealedmail', hosts: [HOST], officers: 1, languages: ['da', 'en', 'de'] })).officerIds[0]!;
  recovery = await makeHandlerKeys();
  expect((await call(server, 'PUT', '/api/admin/companies/sealedmail/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } })).status).toBe(201);
  hilde = await createHandlerAccount(server.ctx.db, 'sealedmail', 'Hilde', { email: HANDLER, officers: [officer] });
  hildeKeys = await makeHandlerKeys();
  const { entries } = (await log()) as unknown as { entries: KeyLogEntry[] };
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: entries.length + 1, handlerId: hilde.id, ecdhSpki: toBase64(hildeKeys.ecdhSpki), ecdsaSpki: toBase64(hildeKeys.ecdsaSpki), officerIds: [officer],
    addedAt: new Date().toISOString(), action: 'add', prevHash: entries.at(-1) ? await hashKeyLogEntry(entries.at(-1)!) : '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hilde.token, json: entry })).status).toBe(201);
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hildeKeys.ecdhSpki), ecdsa_spki: Buffer.from(hildeKeys.ecdsaSpki) }).where('id', '=', hilde.id).execute();
});

afterAll(async () => {
  await server?.cleanup();
  await smtp?.stop();
});

describe('the mail key', () => {
  it('is served with the key log and kept in the keys folder as a 0600 file of its own', async () => {
    const read = await log();
    expect(read.sealedCases).toBe('browser');
    expect(read.mailKey!.keyId).toBe(await keyId(fromBase64(read.mailKey!.spki)));
    const file = path.join(keysDirOf(server.config), MAIL_KEY_FILE);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The same key on every read: browsers and the worker agree on one.
    expect((await log()).mailKey).toEqual(read.mailKey);
  });
});

describe('a sealed case with a notification address', () => {
  it('the handler gets the new-case mail, the reporter the news at the sealed address, the handler the reporter-message mail; none names the case or holds content; the address is nowhere in clear and gone after close', async () => {
    const before = smtp.mails.length;
    const c = await sealedCaseWithNotify(REPORTER);
    await sendMail();
    const newCase = smtp.mails.slice(before);
    expect(newCase.map((m) => m.to)).toEqual([[HANDLER]]);
    expect(newCase[0]!.subject).toBe('En ny sag venter'); // the company's default language (da), as for a server-keyed case
    expectNoCaseContent(newCase[0]!, c.caseNumber);

    // The address: one row apart from the identity, sealed to the mail key; in clear nowhere.
    const rows = await notifyRows();
    expect(rows.map((r) => r.case_id)).toEqual([c.caseId]);
    expect(rows[0]!.mail_key_id).toBe((await log()).mailKey!.keyId);
    expect(await dump()).not.toContain(REPORTER);
    expect(await dump()).not.toContain(MARKER);
    // The identity envelope opens with the case's key (Hilde's wrap) and holds no address; the notify box is not it.
    const wrap = (await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', c.caseId).where('recipient_key_id', '=', await keyId(hildeKeys.ecdhSpki)).executeTakeFirstOrThrow()).wrap;
    const dataKey = await openSealedBox(hildeKeys.ecdh, new Uint8Array(wrap), { caseId: c.caseId, epoch: 1, recipientKeyId: await keyId(hildeKeys.ecdhSpki) });
    const stored = await server.ctx.db.selectFrom('report_case').select(['whistleblower_enc', 'wrapped_key', 'language_enc']).where('id', '=', c.caseId).executeTakeFirstOrThrow();
    expect(stored.wrapped_key).toBeNull();
    expect(Buffer.from(stored.whistleblower_enc!).equals(Buffer.from(rows[0]!.box))).toBe(false);
    const identity = await openFieldText(dataKey, fieldContext(c.caseId, SEALED_COLUMNS.whistleblower), new Uint8Array(stored.whistleblower_enc!));
    expect(identity).toContain(MARKER);
    expect(identity).not.toContain(REPORTER);
    // No key the server holds for cases opens the box as a wrap: it is bound to the mail purpose.
    await expect(openSealedBox(hildeKeys.ecdh, new Uint8Array(rows[0]!.box), { caseId: c.caseId, epoch: 1, recipientKeyId: await keyId(hildeKeys.ecdhSpki) })).rejects.toThrow();

    // A handler's message: "there is news" to the sealed address, in the language the browser sealed beside it.
    const atNews = smtp.mails.length;
    const sent = await call(server, 'POST', `/api/handler/cases/${c.caseNumber}/messages/sealed`, { token: hilde.token, json: { ...(await sealedMessage(c.caseId, dataKey, `We look into it ${MARKER}`)), answerWanted: true } });
    expect(sent.status, JSON.stringify(sent.data)).toBe(201);
    expect(await dump()).not.toContain(REPORTER);
    await sendMail();
    expect(smtp.mails.length).toBe(atNews); // the batch window
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    const news = smtp.mails.slice(atNews);
    expect(news.map((m) => m.to)).toEqual([[REPORTER]]);
    expect(news[0]!.subject).toBe('Es gibt Neuigkeiten zu Ihrem Fall');
    expectNoCaseContent(news[0]!, c.caseNumber);

    // The reporter answers: "a reporter has written" to the handler.
    const tokens = await signIn(new Browser(server, HOST), c.caseNumber, PASSWORD);
    const atAnswer = smtp.mails.length;
    const answer = await call(server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: await sealedMessage(c.caseId, c.dataKey, `Here is more ${MARKER}`) });
    expect(answer.status, JSON.stringify(answer.data)).toBe(201);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    const written = smtp.mails.slice(atAnswer);
    expect(written.map((m) => m.to)).toEqual([[HANDLER]]);
    expect(written[0]!.subject).toBe('Whistlebloweren har skrevet');
    expectNoCaseContent(written[0]!, c.caseNumber);

    // Closed: the news of the close goes once, then the address is gone (row and outbox).
    const atClose = smtp.mails.length;
    const closed = await call(server, 'PUT', `/api/handler/cases/${c.caseNumber}/status`, { token: hilde.token, json: { status: 'CLOSED' } });
    expect(closed.status, JSON.stringify(closed.data)).toBe(200);
    expect(closed.data.status).toBe('CLOSED');
    expect(await notifyRows()).toEqual([]);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.mails.slice(atClose).map((m) => m.to)).toEqual([[REPORTER]]);
    expect(Number((await server.ctx.db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll().as('n')).where('case_id', '=', c.caseId).executeTakeFirstOrThrow()).n)).toBe(0);
    // Reopened: no address any more, so no news mail.
    expect((await call(server, 'PUT', `/api/handler/cases/${c.caseNumber}/status`, { token: hilde.token, json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to(REPORTER).length).toBe(2);
    // Closed again, so the reminders below are only the next case's (the mails name no case to tell them apart).
    expect((await call(server, 'PUT', `/api/handler/cases/${c.caseNumber}/status`, { token: hilde.token, json: { status: 'CLOSED' } })).status).toBe(200);
    await sendMail();
    // The reporter's unwrap still works: mail changed nothing of the case's keys.
    const reporterWrap = (await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', c.caseId).where('recipient_key_id', '=', 'reporter').executeTakeFirstOrThrow()).wrap;
    expect(Buffer.from(await unwrapDataKey(c.reporterKey, new Uint8Array(reporterWrap), { caseId: c.caseId, epoch: 1 })).equals(Buffer.from(c.dataKey))).toBe(true);
  });

  it('the deadline reminders go to the handler, two days before and once passed, naming no case', async () => {
    const c = await sealedCaseWithNotify(null);
    await sendMail();
    const received = new Date((await server.ctx.db.selectFrom('report_case').select('created_at').where('id', '=', c.caseId).executeTakeFirstOrThrow()).created_at);
    const ackDue = new Date(received.getTime() + 7 * DAY).toISOString().slice(0, 10);
    const reminders = () => smtp.to(HANDLER).filter((m) => m.subject.includes(ackDue));
    clock.advance(5 * DAY + 3600_000);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    expect(reminders().map((m) => m.subject)).toEqual([`En frist den ${ackDue}`]);
    clock.advance(2 * DAY);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    expect(reminders().map((m) => m.subject)).toEqual([`En frist den ${ackDue}`, `En frist udløb den ${ackDue}`]);
    for (const m of reminders()) expectNoCaseContent(m, c.caseNumber);
  });

  it('a rotation of the mail key seals the stored address and the queued news to the new key; the news still reaches the reporter', async () => {
    const address = 'rune.rotated@example.org';
    const c = await sealedCaseWithNotify(address, 'en');
    await sendMail();
    const oldKey = (await log()).mailKey!;
    const wrap = (await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', c.caseId).where('recipient_key_id', '=', await keyId(hildeKeys.ecdhSpki)).executeTakeFirstOrThrow()).wrap;
    const dataKey = await openSealedBox(hildeKeys.ecdh, new Uint8Array(wrap), { caseId: c.caseId, epoch: 1, recipientKeyId: await keyId(hildeKeys.ecdhSpki) });
    expect((await call(server, 'POST', `/api/handler/cases/${c.caseNumber}/messages/sealed`, { token: hilde.token, json: await sealedMessage(c.caseId, dataKey, 'news') })).status).toBe(201);
    const oldBox = (await notifyRows()).find((r) => r.case_id === c.caseId)!.box;
    const done = await rotateMail(server.ctx.db, server.ctx.mailKeys.file);
    expect(done.boxes).toBeGreaterThanOrEqual(2); // this case's address and its queued news mail
    server.ctx.mailKeys.reset();
    const newKey = (await log()).mailKey!;
    expect(newKey.keyId).toBe(done.keyId);
    expect(newKey.keyId).not.toBe(oldKey.keyId);
    const row = (await notifyRows()).find((r) => r.case_id === c.caseId)!;
    expect(row.mail_key_id).toBe(newKey.keyId);
    expect(Buffer.from(row.box).equals(Buffer.from(oldBox))).toBe(false);
    // The old box no longer opens: its private key is gone from the keys folder.
    await expect(server.ctx.mailKeys.openNotify(c.caseId, oldBox)).rejects.toThrow();
    expect(await dump()).not.toContain(address);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to(address).map((m) => m.subject)).toEqual(['There is news in your case']);
    // A browser that read the old key before the rotation is told to read the log again.
    const read = await log();
    const account = await followedAccount();
    const late = await sealCase(read, { officerId: officer, details: { description: 'x' }, account });
    expectError(await create({ ...late.body, notify: await sealNotifyAddress(oldKey, late.caseId, address) }), 409, 'MAIL_KEY_CHANGED', 'notify.keyId');

    // A crash after a rotation's commit and before its rename: the rows are under mail.key.next.
    const file = server.ctx.mailKeys.file;
    const current = readFileSync(file, 'utf8');
    writeFileSync(`${file}.next`, current, { mode: 0o600 });
    writeFileSync(file, await makeMailKeyFile(), { mode: 0o600 });
    server.ctx.mailKeys.reset();
    expect(await server.ctx.mailKeys.openNotify(c.caseId, row.box)).toEqual({ address, language: 'en' }); // tried with the pair left beside
    expect(await settleMailKey(server.ctx.db, file)).toBe('finished');
    expect(readFileSync(file, 'utf8')).toBe(current);
    expect(existsSync(`${file}.next`)).toBe(false);
    // A crash before the commit: the rows are under mail.key, the leftover is dropped.
    writeFileSync(`${file}.next`, await makeMailKeyFile(), { mode: 0o600 });
    expect(await settleMailKey(server.ctx.db, file)).toBe('dropped');
    expect(readFileSync(file, 'utf8')).toBe(current);
    server.ctx.mailKeys.reset();

    expect((await call(server, 'PUT', `/api/handler/cases/${c.caseNumber}/status`, { token: hilde.token, json: { status: 'CLOSED' } })).status).toBe(200);
    await sendMail();
  });

  it('the address goes with the case when it is deleted', async () => {
    const c = await sealedCaseWithNotify('dora.deleted@example.org');
    expect((await notifyRows()).map((r) => r.case_id)).toContain(c.caseId);
    expect(await deleteCase(server.ctx, c.caseId, 'CLOSED', clock.now())).toBe(true);
    expect((await notifyRows()).map((r) => r.case_id)).not.toContain(c.caseId);
    expect(await dump()).not.toContain('dora.deleted@example.org');
  });

  it('a sealed on arrival case (the plain path) has its address sealed to the mail key the same way', async () => {
    const before = smtp.mails.length;
    const res = await call(server, 'POST', '/api/public/case/new/by-form', {
      host: HOST,
      headers: { 'accept-language': 'en' },
      body: form('caseDto', caseDto(officer, { description: `Plain ${MARKER}`, whistleblower: { name: 'Paula', email: 'paula.plain@example.org', notification: true } })),
    });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const caseNumber = res.data.caseDto.caseNumber as string;
    const row = await server.ctx.db.selectFrom('report_case').select(['id', 'sealed']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(true);
    expect((await notifyRows()).map((r) => r.case_id)).toContain(row.id);
    expect(await dump()).not.toContain('paula.plain@example.org');
    await sendMail();
    expect(smtp.mails.slice(before).map((m) => m.to)).toEqual([[HANDLER]]);
    expect((await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: hilde.token, json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    const news = smtp.to('paula.plain@example.org');
    expect(news.map((m) => m.subject)).toEqual(['There is news in your case']);
    expectNoCaseContent(news[0]!, caseNumber);
  });

  it('retire-master seals an open server-keyed case\'s notification address to the mail key before it seals the case: its news still reaches the reporter', async () => {
    await addCompany(server.ctx.db, { id: 'plainmail', hosts: ['plainmail.test'], officers: 1, languages: ['en'] });
    const plainOfficer = (await server.ctx.db.selectFrom('company').select('settings').where('id', '=', 'plainmail').executeTakeFirstOrThrow()).settings as { protectionOfficers: { id: string }[] };
    const gunnar = await createHandlerAccount(server.ctx.db, 'plainmail', 'Gunnar', { email: 'gunnar@example.com' });
    const address = 'olga.old@example.org';
    const made = async (notification: boolean, email: string) => {
      const r = await call(server, 'POST', '/api/public/case/new/by-form', { host: 'plainmail.test', headers: { 'accept-language': 'en' }, body: form('caseDto', caseDto(plainOfficer.protectionOfficers[0]!.id, { whistleblower: { name: 'Olga', email, notification } })) });
      expect(r.status, JSON.stringify(r.data)).toBe(201);
      return r.data.caseDto.caseNumber as string;
    };
    const caseNumber = await made(true, address);
    await made(false, 'no.mail@example.org'); // asked for no mail: no address is kept
    const id = (await server.ctx.db.selectFrom('report_case').select(['id', 'sealed']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow());
    expect(id.sealed).toBe(false);
    await sendMail();
    expect(await keepNotifyAddresses(server.ctx.db, server.ctx.crypto, server.ctx.caseKeys, server.ctx.mailKeys)).toBe(1);
    expect((await notifyRows()).filter((r) => r.case_id === id.id)).toHaveLength(1);
    expect(await dump()).not.toContain(address);
    expect(await sealEveryCase(server.ctx.db)).toContain(id.id);
    expect((await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: gunnar.token, json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to(address).map((m) => m.subject)).toEqual(['There is news in your case']);
    expectNoCaseContent(smtp.to(address)[0]!, caseNumber);
    expect(smtp.to('no.mail@example.org')).toEqual([]);
  });

  it('refuses a malformed notify envelope (400), one on an unfollowed case, and one to another mail key (409), and stores nothing', async () => {
    const read = await log();
    const account = await followedAccount();
    const sealed = await sealCase(read, { officerId: officer, details: { description: 'x' }, account });
    const good = await sealNotifyAddress(read.mailKey!, sealed.caseId, REPORTER);
    const before = { rows: await countRows(server), notify: (await notifyRows()).length };
    const goodBox = fromBase64(good.box);
    const badVersion = Uint8Array.from(goodBox);
    badVersion[0] = 1;
    expectError(await create({ ...sealed.body, notify: { ...good, box: toBase64(badVersion) } }), 400, 'BAD_ENVELOPE', 'notify.box');
    expectError(await create({ ...sealed.body, notify: { ...good, box: toBase64(goodBox.subarray(0, 40)) } }), 400, 'BAD_ENVELOPE', 'notify.box');
    expectError(await create({ ...sealed.body, notify: { ...good, box: 'not base64!' } }), 400, 'VALIDATION');
    expectError(await create({ ...sealed.body, notify: { keyId: 'abc', box: good.box } }), 400, 'VALIDATION');
    expectError(await create({ ...sealed.body, notify: { ...good, keyId: 'f'.repeat(64) } }), 409, 'MAIL_KEY_CHANGED', 'notify.keyId');
    const unfollowed = await sealCase(read, { officerId: officer, details: { description: 'x' } });
    expectError(await create({ ...unfollowed.body, notify: await sealNotifyAddress(read.mailKey!, unfollowed.caseId, REPORTER) }), 400, 'NOTIFY_UNEXPECTED', 'notify');
    expect(await countRows(server)).toEqual(before.rows);
    expect((await notifyRows()).length).toBe(before.notify);
    // The same body with the good envelope is taken.
    expect((await create({ ...sealed.body, notify: good })).status).toBe(201);
  });
});

describe('with SEALED_CASES=off', () => {
  it('the key-log answer is as before, and no mail key is made', async () => {
    const off = await startTestServer({ sealedCases: 'off' });
    try {
      const answer = await call(off, 'GET', '/api/public/key-log', { host: 'localhost' });
      expect(Object.keys(answer.data).sort()).toEqual(['anchor', 'entries']);
      expect(existsSync(path.join(keysDirOf(off.config), MAIL_KEY_FILE))).toBe(false);
    } finally {
      await off.cleanup();
    }
  });
});
