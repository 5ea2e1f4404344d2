/**
 * Mail (issue 15) against a real SMTP server on a loopback port and a clock the
 * test moves: who gets which mail, in which language, with nothing a mailbox may
 * not show; one mail per burst of news; an SMTP outage and a restart delay mail
 * and lose none; deadline reminders; two processes on one PostgreSQL send once.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestSmtp, type ReceivedMail } from '../helpers/smtp.ts';
import { TestClock } from '../../server/clock.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, oralDto } from './api.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import { DEADLINE_JOB } from '../../server/mail/reminders.ts';
import { addMonthsUtc } from '../../server/cases/deadlines.ts';
import { formatCaseNumber } from '../../machines/schema.ts';

const HOST = 'mail.test';
const BATCH_MS = 60_000;
const DAY = 24 * 3600_000;
const REPORTER = 'rita.reporter@example.org';
const DESCRIPTION = 'The warehouse manager sells stock privately.';

let smtp: TestSmtp;
let server: TestServer;
let clock: TestClock;
let officer: string;
let otherOfficer: string;
let handlerToken: string;

const untied = 'ulla.untied@example.com';
const tied = 'tove.tied@example.com';
const elsewhere = 'erik.elsewhere@example.com';

async function sendMail(s: TestServer = server) {
  return s.ctx.jobs.runNow(MAIL_JOB);
}

async function newCase(opts: { language?: string; notification?: boolean; officerId?: string; email?: string } = {}) {
  const whistleblower = opts.notification === undefined ? null : { name: 'Rita Reporter', email: opts.email ?? REPORTER, notification: opts.notification };
  const res = await call(server, 'POST', '/api/public/case/new/by-form', {
    host: HOST,
    headers: opts.language ? { 'accept-language': opts.language } : {},
    body: form('caseDto', caseDto(opts.officerId ?? officer, { description: DESCRIPTION, whistleblower })),
  });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return res.data.caseDto.caseNumber as string;
}

async function handlerMessage(caseNumber: string, text: string, extra: Record<string, unknown> = {}) {
  const res = await call(server, 'POST', `/api/handler/cases/${caseNumber}/messages`, { token: handlerToken, body: form('messageDto', { message: text, ...extra }) });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
}

async function outboxCount(s: TestServer = server) {
  return Number((await s.ctx.db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Nothing a mailbox reader may learn: no case number in any grouping, no report or message text, no status. */
function expectNoCaseContent(mail: ReceivedMail, caseNumber: string, texts: string[]) {
  const all = `${mail.subject}\n${mail.text}\n${mail.raw}`;
  expect(all).not.toContain(caseNumber);
  expect(all).not.toContain(formatCaseNumber(caseNumber));
  expect(all.replace(/\s/g, '')).not.toContain(caseNumber);
  for (const t of texts) expect(all).not.toContain(t);
  for (const status of ['RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED', 'PENDING']) expect(all).not.toContain(status);
}

/** Plain text only, no image, and every address in it is the portal's (a handler's: its workspace). */
function expectOnlyPortalLinks(mail: ReceivedMail, portal: string, allowed = [portal]) {
  expect(mail.headers['content-type']).toMatch(/^text\/plain/);
  expect(mail.raw).not.toMatch(/<img|<html|text\/html/i);
  const urls = mail.text.match(/https?:\/\/[^\s)]+/g) ?? [];
  expect(urls.length).toBeGreaterThan(0);
  for (const u of urls) expect(allowed).toContain(u.replace(/[.,]$/, ''));
}

beforeAll(async () => {
  smtp = new TestSmtp();
  await smtp.start();
  clock = new TestClock();
  server = await startTestServer({ seedDemo: false, smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@mail.test>', mailBatchMs: BATCH_MS, jobs: false }, { clock });
  const company = await addCompany(server.ctx.db, { id: 'mailco', hosts: [HOST], officers: 2, languages: ['da', 'en', 'de'] });
  [officer, otherOfficer] = company.officerIds as [string, string];
  handlerToken = (await createHandlerAccount(server.ctx.db, 'mailco', 'Ulla', { email: untied })).token;
  await createHandlerAccount(server.ctx.db, 'mailco', 'Tove', { email: tied, officers: [officer] });
  await createHandlerAccount(server.ctx.db, 'mailco', 'Erik', { email: elsewhere, officers: [otherOfficer] });
  await createHandlerAccount(server.ctx.db, 'mailco', 'No mail');
});

afterAll(async () => {
  await server?.cleanup();
  await smtp?.stop();
});

describe('mail to handlers', () => {
  it('a new case goes to the handlers it concerns (officer ties respected), with no case number and no report text', async () => {
    const before = smtp.mails.length;
    const caseNumber = await newCase();
    expect(await outboxCount()).toBe(2);
    await sendMail();
    const mails = smtp.mails.slice(before);
    expect(mails.flatMap((m) => m.to).sort()).toEqual([tied, untied].sort());
    for (const m of mails) {
      expect(m.from).toBe('no-reply@mail.test');
      // The company's default language (da).
      expect(m.subject).toBe('En ny sag venter');
      expectNoCaseContent(m, caseNumber, [DESCRIPTION, 'John Doe']);
      expect(m.headers['auto-submitted']).toBe('auto-generated');
      expectOnlyPortalLinks(m, 'https://mail.test', ['https://mail.test', 'https://mail.test/handler/cases']);
    }
    expect(await outboxCount()).toBe(0);
  });

  it('a reporter message reaches the handlers, several in a burst as one mail each', async () => {
    const caseNumber = await newCase({ notification: false });
    await sendMail();
    const tokens = await signInToken(caseNumber);
    const before = smtp.mails.length;
    for (const text of ['first', 'second', 'third']) {
      const r = await call(server, 'POST', '/api/private/case/messages/new', { token: tokens, body: form('messageDto', { message: `Reporter says ${text}` }) });
      expect(r.status).toBe(201);
    }
    await sendMail();
    expect(smtp.mails.length).toBe(before); // still in the batch window
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    const mails = smtp.mails.slice(before);
    expect(mails.flatMap((m) => m.to).sort()).toEqual([tied, untied].sort());
    for (const m of mails) {
      expect(m.subject).toBe('Whistlebloweren har skrevet');
      expectNoCaseContent(m, caseNumber, ['Reporter says']);
    }
  });
});

// The private API needs a reporter's access token: the real sign-in flow.
import { Browser, signIn } from './identity-flow.ts';
async function signInToken(caseNumber: string): Promise<string> {
  const b = new Browser(server, HOST);
  return (await signIn(b, caseNumber, 'pass1234')).access_token;
}

describe('mail to the reporter', () => {
  it('one "news in your case" per burst, in the reporter\'s language, with the company and the portal and nothing else', async () => {
    const caseNumber = await newCase({ language: 'de-DE,de;q=0.9,en;q=0.5', notification: true });
    await sendMail();
    const before = smtp.to(REPORTER).length;

    await handlerMessage(caseNumber, 'We have looked at the invoices.');
    await handlerMessage(caseNumber, 'Could you send the delivery note?', { answerWanted: true });
    expect((await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: handlerToken, json: { status: 'BEING_INVESTIGATED' } })).status).toBe(200);
    await handlerMessage(caseNumber, 'Thank you.', { type: 'FEEDBACK' });
    const waiting = await server.ctx.db.selectFrom('mail_outbox').selectAll().where('coalesce_key', 'like', 'news:%').execute();
    expect(waiting).toHaveLength(1);
    // Sealed at rest: the address is not in the row.
    expect(Buffer.from(waiting[0]!.message_enc).toString('latin1')).not.toContain(REPORTER);

    await sendMail();
    expect(smtp.to(REPORTER).length).toBe(before);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    await sendMail();
    const mails = smtp.to(REPORTER).slice(before);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.to).toEqual([REPORTER]);
    expect(mail.subject).toBe('Es gibt Neuigkeiten zu Ihrem Fall');
    expect(mail.text).toContain('mailco Ltd');
    expect(mail.text).toContain('https://mail.test');
    expectNoCaseContent(mail, caseNumber, [DESCRIPTION, 'invoices', 'delivery note', 'Thank you', 'John Doe', 'Investigat', 'untersucht']);
    expectOnlyPortalLinks(mail, 'https://mail.test');
    expect(await outboxCount()).toBe(0);

    // The next news after the mail went starts a new batch.
    await handlerMessage(caseNumber, 'One more thing.');
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to(REPORTER).slice(before)).toHaveLength(2);
  });

  it('the reporter who did not ask, or stays anonymous, gets nothing; the company language is the fallback', async () => {
    const silent = await newCase({ notification: false, email: 'quiet@example.org' });
    const anonymous = await newCase();
    const noLanguage = await newCase({ notification: true, email: 'dansk@example.org' });
    await sendMail();
    for (const c of [silent, anonymous, noLanguage]) await handlerMessage(c, 'News.');
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to('quiet@example.org')).toHaveLength(0);
    const dansk = smtp.to('dansk@example.org');
    expect(dansk).toHaveLength(1);
    expect(dansk[0]!.subject).toBe('Der er nyt i din sag');
  });

  it('a changed address or wish drops the waiting mail; news after it goes to the new address', async () => {
    const caseNumber = await newCase({ language: 'en', notification: true, email: 'old@example.org' });
    await sendMail();
    await handlerMessage(caseNumber, 'News for the old address.');
    const reporter = await signInToken(caseNumber);
    const update = (body: object) => call(server, 'PUT', '/api/private/case/whistleblower/update', { token: reporter, json: { name: 'Rita Reporter', ...body } });
    expect((await update({ email: 'new@example.org', notification: true })).status).toBe(200);
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to('old@example.org')).toHaveLength(0);
    await handlerMessage(caseNumber, 'News for the new address.');
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to('new@example.org')).toHaveLength(1);
    expect(smtp.to('new@example.org')[0]!.subject).toBe('There is news in your case');

    expect((await update({ email: 'new@example.org', notification: false })).status).toBe(200);
    await handlerMessage(caseNumber, 'Nobody is told.');
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    expect(smtp.to('new@example.org')).toHaveLength(1);
  });

  it('an SMTP outage delays the mail; after the server is back it arrives once', async () => {
    const caseNumber = await newCase({ language: 'en', notification: true, email: 'outage@example.org' });
    await sendMail();
    await smtp.stop();
    await handlerMessage(caseNumber, 'While the mail server is down.');
    clock.advance(BATCH_MS + 1000);
    await sendMail();
    const row = await server.ctx.db.selectFrom('mail_outbox').select(['attempts', 'last_error', 'due_at']).where('coalesce_key', 'like', 'news:%').executeTakeFirstOrThrow();
    expect(row.attempts).toBe(1);
    expect(row.last_error).not.toContain('outage@example.org');

    await smtp.start();
    await sendMail(); // back-off: not due yet
    expect(smtp.to('outage@example.org')).toHaveLength(0);
    clock.advance(61_000);
    await sendMail();
    await sendMail();
    expect(smtp.to('outage@example.org')).toHaveLength(1);
    expect(smtp.to('outage@example.org')[0]!.subject).toBe('There is news in your case');
    expect(await outboxCount()).toBe(0);
  });

  it('a queued mail survives a restart of the server', async () => {
    const caseNumber = await newCase({ language: 'pl', notification: true, email: 'restart@example.org' });
    await sendMail();
    await handlerMessage(caseNumber, 'Before the restart.');
    await server.stop();
    const again = await startTestServer(
      { seedDemo: false, dataDir: server.dataDir, databaseUrl: server.config.databaseUrl, smtpUrl: smtp.url, mailBatchMs: BATCH_MS, jobs: false },
      { clock },
    );
    try {
      expect(await outboxCount(again)).toBe(1);
      clock.advance(BATCH_MS + 1000);
      await sendMail(again);
      const mails = smtp.to('restart@example.org');
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('W Twojej sprawie są nowe informacje');
    } finally {
      await again.stop();
    }
    // Later tests use a fresh server on the same data.
    server = await startTestServer(
      { seedDemo: false, dataDir: server.dataDir, databaseUrl: server.config.databaseUrl, smtpUrl: smtp.url, mailFrom: 'Portal <no-reply@mail.test>', mailBatchMs: BATCH_MS, jobs: false },
      { clock },
    );
  });
});

describe('deadline reminders', () => {
  it('acknowledgement and feedback: two days before and once passed, to the handlers of the case, each once; met clocks and closed cases stay quiet', async () => {
    const caseNumber = await newCase({ officerId: otherOfficer });
    await sendMail();
    const received = new Date((await server.ctx.db.selectFrom('report_case').select('created_at').where('case_number', '=', caseNumber).executeTakeFirstOrThrow()).created_at);
    const ackDue = new Date(received.getTime() + 7 * DAY).toISOString().slice(0, 10);
    // The mails name no case: this one's reminders are the ones to Erik, the only
    // handler tied to its officer (Ulla, untied, gets every case's).
    const forCase = () => smtp.mails.filter((m) => m.to.includes(elsewhere) && m.subject !== 'En ny sag venter');

    clock.advance(5 * DAY + 3600_000);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    let mails = forCase();
    expect(mails).toHaveLength(1);
    expect(smtp.to(untied).filter((m) => m.subject === mails[0]!.subject).length).toBeGreaterThan(0);
    expect(mails[0]!.subject).toBe(`En frist den ${ackDue}`);
    expect(mails[0]!.text).toContain('kvittering for modtagelse');
    expectNoCaseContent(mails[0]!, caseNumber, [DESCRIPTION]);

    clock.advance(2 * DAY);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    mails = forCase();
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toBe(`En frist udløb den ${ackDue}`);
    expectNoCaseContent(mails[1]!, caseNumber, [DESCRIPTION]);

    // Acknowledged now: no more acknowledgement reminders; feedback is months away.
    await handlerMessage(caseNumber, 'We have your report.', { type: 'CONFIRMATION' });
    clock.advance(DAY);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    expect(forCase()).toHaveLength(2);

    // Feedback: 3 months after the acknowledgement (stamped with the real time, inside the 7 days here).
    const ackAt = new Date((await server.ctx.db.selectFrom('case_message').select('created_at').where('type', '=', 'CONFIRMATION').orderBy('created_at', 'desc').executeTakeFirstOrThrow()).created_at);
    const feedbackDue = addMonthsUtc(ackAt < new Date(received.getTime() + 7 * DAY) ? ackAt : new Date(received.getTime() + 7 * DAY), 3);
    clock.advance(feedbackDue.getTime() - 1.5 * DAY - clock.now().getTime());
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    mails = forCase();
    expect(mails).toHaveLength(3);
    expect(mails[2]!.subject).toBe(`En frist den ${feedbackDue.toISOString().slice(0, 10)}`);
    expect(mails[2]!.text).toContain('tilbagemelding til whistlebloweren');

    // Closed: no reminder for the passed feedback deadline.
    expect((await call(server, 'PUT', `/api/handler/cases/${caseNumber}/status`, { token: handlerToken, json: { status: 'CLOSED' } })).status).toBe(200);
    clock.advance(3 * DAY);
    await server.ctx.jobs.runNow(DEADLINE_JOB);
    await sendMail();
    expect(forCase()).toHaveLength(3);
  });
});

describe('without SMTP_URL', () => {
  it('says so once at start-up and queues nothing', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        cb();
      },
    });
    const bare = await startTestServer({ seedDemo: false, logLevel: 'info', jobs: true }, { logStream: sink });
    try {
      const officerId = (await addCompany(bare.ctx.db, { id: 'nomail', hosts: ['nomail.test'] })).officerIds[0]!;
      await createHandlerAccount(bare.ctx.db, 'nomail', 'H', { email: 'h@nomail.test' });
      const res = await call(bare, 'POST', '/api/public/case/new/by-form', {
        host: 'nomail.test',
        body: form('caseDto', caseDto(officerId, { whistleblower: { name: 'R', email: 'r@nomail.test', notification: true } })),
      });
      expect(res.status).toBe(201);
      expect(await outboxCount(bare)).toBe(0);
      expect(await bare.ctx.jobs.runNow(MAIL_JOB)).toBe(true);
    } finally {
      await bare.cleanup();
    }
    expect(lines.filter((l) => l.includes('SMTP_URL is not set'))).toHaveLength(1);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('two processes on one PostgreSQL database', () => {
  it('send each mail once', async () => {
    // Processes share the data folder (keys, files) and the database, as in production.
    const second = await startTestServer({ seedDemo: false, dataDir: server.dataDir, databaseUrl: server.config.databaseUrl, smtpUrl: smtp.url, mailBatchMs: BATCH_MS, jobs: false }, { clock });
    try {
      const before = smtp.mails.length;
      const numbers: string[] = [];
      for (let i = 0; i < 6; i++) numbers.push(await newCase({ notification: true, email: `twice${i}@example.org` }));
      await Promise.all([sendMail(), sendMail(second), sendMail(), sendMail(second)]);
      for (const n of numbers) await handlerMessage(n, 'News for both.');
      clock.advance(BATCH_MS + 1000);
      await Promise.all([sendMail(), sendMail(second), sendMail(second), sendMail()]);
      await Promise.all([sendMail(), sendMail(second)]);
      for (let i = 0; i < 6; i++) expect(smtp.to(`twice${i}@example.org`)).toHaveLength(1);
      // 6 new-case mails to two handlers each, and 6 news mails.
      expect(smtp.mails.length - before).toBe(18);
    } finally {
      await second.stop();
    }
  });
});
