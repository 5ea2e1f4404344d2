/**
 * A sealed case's e-mail notification, turned on and off by the reporter on /private/info
 * (docs/decisions/sealed-reporter-pages.md "The notification address"), in real Chromium
 * against the real server (SEALED_CASES=browser), its OpenID provider and a real SMTP
 * server (smtp-server). The demo company `localhost` gets a recovery key and a certified
 * handler key as a handler's browser would make them; the case is sealed through the API
 * with core/crypto, as the report form seals it, without a notification address.
 *
 * The reporter turns notification on with an address: the page verifies the key log,
 * seals the address to its mail key and sends only the box; a handler's message then
 * leads to a mail at that address. Turned off, the next message mails nobody. The address
 * is in no recorded request or response of the browser (as typed, URL-encoded or in
 * base64), nor in any row; axe finds nothing on each state of the section.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { axeViolations } from './harness.ts';
import { firstOfficerId, signInThroughProvider } from './reporter.ts';
import { call } from '../server/api.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, databaseText, english, markersIn, sealingCompany, SEALED } from '../helpers/sealed-e2e.ts';
import { TestSmtp } from '../helpers/smtp.ts';
import { MAIL_JOB } from '../../server/mail/outbox.ts';
import type { ServerConfig } from '../../server/config.ts';
import { sealMessage } from '../../core/crypto/index.ts';

const { en } = english('common', 'private', 'sealedPrivate');
const HOST = 'localhost';
const ADDRESS = `notify-${randomBytes(5).toString('hex')}@marker.example`;

// The SMTP server starts first (this hook is registered before the suite's), so the portal is started with its address.
const smtp = new TestSmtp();
// mailBatchMs 0: the reporter's news goes at the next mail run, not batched for minutes.
const config: Partial<ServerConfig> = { ...SEALED, mailFrom: 'Portal <no-reply@portal.test>', mailBatchMs: 0 };
beforeAll(async () => {
  await smtp.start();
  config.smtpUrl = smtp.url;
  return () => smtp.stop();
});
const s = browserSuite(config);

let officerId: string;
let hanne: { id: string; token: string };

beforeAll(async () => {
  officerId = await firstOfficerId(s.portal);
  ({ handler: hanne } = await sealingCompany(s.portal, HOST, { name: 'Hanne Notify', officerId }));
}, 60_000);

const runMail = () => s.portal.server.ctx.jobs.runNow(MAIL_JOB);
const notifyRows = (caseId: string) => s.portal.server.ctx.db.selectFrom('case_notify').select('case_id').where('case_id', '=', caseId).execute();
const waitingMails = async (caseId: string) => (await s.portal.server.ctx.db.selectFrom('mail_outbox').select('id').where('case_id', '=', caseId).execute()).length;

describe('e-mail notification on a sealed case, in the private area', () => {
  it('on with an address: a handler message mails it; off: the next one mails nobody; the address never on the wire in clear nor in a row; axe', async () => {
    const password = `Notify-${randomBytes(4).toString('hex')}-pw`;
    const c = await sendFollowedSealedCase(s.portal.server, HOST, {
      password,
      officerId,
      details: { description: 'Overtime not paid', violation: 'FRAUD', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' },
      reservationHeader: true,
    });
    const handlerMessage = async () => {
      const msg = await sealMessage(c.dataKey, c.caseId, 'A question for you.');
      const res = await call(s.portal.server, 'POST', `/api/handler/cases/${c.caseNumber}/messages/sealed`, { token: hanne.token, json: { ...msg, type: 'STANDARD', answerWanted: true } });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
    };

    const { page, wire } = await s.open();
    await signInThroughProvider(s.portal, page, c.caseNumber, password, '/private/info');
    const section = page.getByRole('region', { name: en['sealedPrivate.notify.title'] });
    await section.getByText(en['sealedPrivate.notify.isOff']!).waitFor();
    expect(await axeViolations(page), 'notification off').toEqual([]);

    // On: the address is asked for, checked here, then sealed and sent as a box.
    const wanted = section.getByRole('checkbox', { name: en['sealedPrivate.notify.wanted'] });
    await wanted.check();
    const address = section.getByLabel(new RegExp(`^${en['sealedPrivate.notify.address']}`));
    await address.fill('not-an-address');
    await section.getByRole('button', { name: en['sealedPrivate.notify.save'] }).click();
    await section.getByText(en['sealedPrivate.notify.addressInvalid']!).waitFor();
    expect(await address.getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(page), 'an invalid address').toEqual([]);
    await address.fill(ADDRESS);
    await section.getByRole('button', { name: en['sealedPrivate.notify.save'] }).click();
    await section.getByRole('status').filter({ hasText: en['sealedPrivate.notify.savedOn'] }).waitFor();
    await section.getByText(en['sealedPrivate.notify.isOn']!).waitFor();
    expect(await axeViolations(page), 'notification on').toEqual([]);
    expect(await notifyRows(c.caseId)).toHaveLength(1);

    // A handler's message: "there is news" at the address the page sealed.
    await runMail(); // the handler's new-case mail, if any
    await handlerMessage();
    await expect.poll(async () => (await runMail(), smtp.to(ADDRESS).length), { timeout: 30_000 }).toBe(1);
    expect(smtp.to(ADDRESS)[0]!.subject).toBe('There is news in your case');

    // Read again after a reload: the page says an address is stored (it cannot show it).
    await page.reload();
    await section.getByText(en['sealedPrivate.notify.isOn']!).waitFor();
    await expect.poll(() => wanted.isChecked()).toBe(true);
    await wanted.uncheck();
    expect(await address.count()).toBe(0);
    await section.getByRole('button', { name: en['sealedPrivate.notify.save'] }).click();
    await section.getByRole('status').filter({ hasText: en['sealedPrivate.notify.savedOff'] }).waitFor();
    await section.getByText(en['sealedPrivate.notify.isOff']!).waitFor();
    expect(await axeViolations(page), 'notification turned off').toEqual([]);
    expect(await notifyRows(c.caseId)).toEqual([]);

    // Off: the next message mails nobody.
    await handlerMessage();
    await runMail();
    expect(await waitingMails(c.caseId)).toBe(0);
    expect(smtp.to(ADDRESS)).toHaveLength(1);
    // Nor any mail to anyone that carries the old box (a reporter's news goes only to the sealed address).
    expect(smtp.mails.filter((m) => m.subject === 'There is news in your case')).toHaveLength(1);

    // The wire: the box went on the new route, the address in no request or response in clear.
    const recorded = await wire.all();
    const puts = recorded.filter((x) => x.what === '→ PUT' && x.url.endsWith('/api/private/case/notification/sealed'));
    expect(puts).toHaveLength(1);
    expect(Object.keys(JSON.parse(puts[0]!.body) as object)).toEqual(['notify']);
    expect(recorded.some((x) => x.what === '→ DELETE' && x.url.endsWith('/api/private/case/notification/sealed'))).toBe(true);
    expect(recorded.some((x) => x.what === '→ GET' && x.url.endsWith('/api/public/key-log'))).toBe(true);
    expect(markersIn(recorded, [ADDRESS])).toEqual([]);
    // Nor any row: the address was only ever sealed to the mail key, and that row is gone.
    expect((await databaseText(s.portal)).includes(ADDRESS)).toBe(false);
  });
});
