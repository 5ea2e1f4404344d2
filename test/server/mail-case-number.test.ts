/**
 * No mail carries a case number (issue 36, finding 5): the case number is the
 * reporter's sign-in name, and with a password of four characters most of the
 * login. Every mail a handler can get (a new case by form and by phone, a reporter's
 * message, a deadline two days ahead and passed) and the reporter's news, caught by a
 * real SMTP server, is searched for the number in every spelling: plain, spaced,
 * hyphenated, dotted, grouped any other way, in the subject, the text, every header
 * and the raw message; and for the case's internal id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestSmtp, type ReceivedMail } from '../helpers/smtp.ts';
import { TestClock } from '../../server/clock.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, oralDto } from './api.ts';
import { Browser, signIn } from './identity-flow.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import { DEADLINE_JOB } from '../../server/mail/reminders.ts';

const HOST = 'nonumber.test';
const DAY = 24 * 3600_000;
const HANDLER = 'hanne.handler@example.com';
const REPORTER = 'rita.reporter@example.org';

let smtp: TestSmtp;
let server: TestServer;
let clock: TestClock;
let officer: string;
let handlerToken: string;

beforeAll(async () => {
  smtp = new TestSmtp();
  await smtp.start();
  clock = new TestClock();
  server = await startTestServer({ seedDemo: false, smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@nonumber.test>', mailBatchMs: 60_000, jobs: false }, { clock });
  const company = await addCompany(server.ctx.db, { id: 'nonumberco', hosts: [HOST], officers: 1, languages: ['da', 'en', 'de'] });
  officer = company.officerIds[0]!;
  handlerToken = (await createHandlerAccount(server.ctx.db, 'nonumberco', 'Hanne', { email: HANDLER })).token;
});

afterAll(async () => {
  await server?.cleanup();
  await smtp?.stop();
});

const sendMail = () => server.ctx.jobs.runNow(MAIL_JOB);

/** RFC 2047 words in any header, so that a number hidden in an encoded header is found too. */
function decodeHeader(value: string): string {
  return value.replace(/=\?[^?]+\?([QB])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
  );
}

/**
 * The 16 digits in no spelling: with every character that is not a digit taken out,
 * a spaced, hyphenated, dotted or otherwise grouped number would still show as the
 * plain one. Also the common spellings as such, so a failure says which one it was.
 */
function expectNoCaseNumber(mail: ReceivedMail, caseNumber: string, caseId: string) {
  const parts = {
    subject: mail.subject,
    text: mail.text,
    headers: Object.entries(mail.headers).map(([k, v]) => `${k}: ${decodeHeader(v)}`).join('\n'),
    raw: mail.raw,
  };
  const groups = caseNumber.match(/\d{4}/g)!;
  for (const [where, value] of Object.entries(parts)) {
    for (const spelling of [caseNumber, groups.join(' '), groups.join('-'), groups.join('.'), groups.join('\u00a0'), `${caseNumber.slice(0, 8)} ${caseNumber.slice(8)}`]) {
      expect(value, `${where} holds ${spelling}`).not.toContain(spelling);
    }
    expect(value.replace(/\D/g, ''), `${where} holds the case number in some grouping`).not.toContain(caseNumber);
    expect(value.toLowerCase(), `${where} holds the case id`).not.toContain(caseId);
  }
}

async function caseIdOf(caseNumber: string) {
  return (await server.ctx.db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow()).id;
}

describe('mail names no case number', () => {
  it('every handler mail (new case by form and by phone, reporter message, deadline soon and passed) and the reporter news, in subject, text, headers and raw', async () => {
    const whistleblower = { name: 'Rita Reporter', email: REPORTER, notification: true };
    const byForm = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers: { 'accept-language': 'en' }, body: form('caseDto', caseDto(officer, { whistleblower })) });
    expect(byForm.status, JSON.stringify(byForm.data)).toBe(201);
    const caseNumber = byForm.data.caseDto.caseNumber as string;
    const byPhone = await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer) });
    expect(byPhone.status, JSON.stringify(byPhone.data)).toBe(201);
    const phoneNumber = byPhone.data.caseDto.caseNumber as string;
    await sendMail();

    // A reporter's message, and a handler's answer: news for the reporter.
    const tokens = await signIn(new Browser(server, HOST), caseNumber, 'pass1234');
    expect((await call(server, 'POST', '/api/private/case/messages/new', { host: HOST, token: tokens.access_token, body: form('messageDto', { message: 'More evidence.' }) })).status).toBe(201);
    expect((await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages`, { token: handlerToken, body: form('messageDto', { message: 'Thank you.' }) })).status).toBe(201);
    clock.advance(61_000);
    await sendMail();

    // Both deadlines of acknowledgement: two days ahead, then passed.
    clock.advance(5 * DAY + 3600_000);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    clock.advance(2 * DAY);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();

    const toHandler = smtp.to(HANDLER);
    const toReporter = smtp.to(REPORTER);
    expect(toHandler.length).toBeGreaterThan(0);
    const ids = { [caseNumber]: await caseIdOf(caseNumber), [phoneNumber]: await caseIdOf(phoneNumber) };
    for (const mail of [...toHandler, ...toReporter]) {
      for (const [n, id] of Object.entries(ids)) expectNoCaseNumber(mail, n, id);
    }
    const subjects = toHandler.map((m) => m.subject);
    // The company's default language (da): two new cases, a message, and the online
    // case's two reminders (the phone case's clock starts once the reporter has called).
    expect(subjects.filter((s) => s === 'En ny sag venter')).toHaveLength(2);
    expect(subjects.filter((s) => s === 'Whistlebloweren har skrevet')).toHaveLength(1);
    expect(subjects.filter((s) => s.startsWith('En frist den '))).toHaveLength(1);
    expect(subjects.filter((s) => s.startsWith('En frist udløb den '))).toHaveLength(1);
    expect(toReporter).toHaveLength(1);

    // What the handler needs instead: the workspace, where the inbox shows the case.
    for (const mail of toHandler) expect(mail.text).toContain(`https://${HOST}/handler/cases`);
  });
});
