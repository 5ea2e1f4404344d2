/**
 * The reporter's pages seal in the browser (issue 37; docs/decisions/blind-server.md
 * "Reporter pages"), in real Chromium against the real server started with
 * SEALED_CASES=browser. The demo company `localhost` gets a recovery key (the anchor)
 * and a certified handler key for its officer, made here as a handler's browser would.
 *
 * (a) A followed, identified online report with marker strings in the description and
 *     the identity goes through the form; the reporter signs in, the private area opens
 *     the case (details, identity, messages) and sends a message with a marker; a
 *     handler's sealed answer shows, and one whose envelope was altered is named as not
 *     opened beside the rest. Every request and response of the browser (URL, headers,
 *     bodies) is recorded: none carries a marker. No row of any table holds one in
 *     clear, the case has no server wrapping, and the handler's key opens what was sent.
 *     Without the reporter key in the tab, the private area says to log in again.
 * (b) The server swaps the handler's public key in its key log: the form refuses to
 *     seal, says why, sends nothing and keeps the draft.
 * (c) axe finds nothing on the new states (the refusal dialog, the sealed case's
 *     pages with a part not opened, the log-in-again page).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { axeViolations } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { call } from '../server/api.ts';
import {
  browserSuite, databaseText, describeProblem, english, fillIdentity, followAndAccept, markersIn, openReportForm, reportSent, sealingCompany, sendReport, SEALED,
} from '../helpers/sealed-e2e.ts';
import { fieldContext, fromBase64, keyId, makeHandlerKeys, openFieldText, openSealedBox, sealField, toBase64, type HandlerKeys, type KeyLogEntry } from '../../core/crypto/index.ts';
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';

const { en, label } = english('common', 'forms', 'private', 'sealing');
const HOST = 'localhost';
const COMPANY = 'nordlys-energi';

const tag = () => randomBytes(5).toString('hex');
const MARKERS = { description: `Descr-${tag()}-marker`, name: `Name-${tag()}-marker`, message: `Msg-${tag()}-marker`, answer: `Ans-${tag()}-marker`, unit: `Unit-${tag()}-marker`, email: `mail-${tag()}@marker.example` };

const s = browserSuite(SEALED);
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };

/** A call to the server as a client of the company at `localhost` makes it (the handler's calls with her API token). */
const api = (method: string, pathname: string, opts: { token?: string; json?: unknown } = {}) => call(s.portal.server, method, pathname, { host: HOST, ...opts });

/** The online form filled: marker description and unit, an identity with a marker name (no notification), followed. */
async function fillReport(page: Page, password: string) {
  await openReportForm(s.portal, HOST, page);
  await describeProblem(page, { relation: 'Employee in accounting', violation: 'FRAUD', description: `Invoices paid twice: ${MARKERS.description}`, unit: MARKERS.unit });
  await fillIdentity(page, { name: MARKERS.name, email: MARKERS.email });
  await followAndAccept(page, password, { choose: true });
}

beforeAll(async () => {
  // The recovery key and Hanne's certified key, made here as a handler's browser would.
  ({ handler: hanne, keys: hanneKeys } = await sealingCompany(s.portal, HOST, { name: 'Hanne Sealed', officerId: await firstOfficerId(s.portal) }));
}, 60_000);

describe("the reporter's pages seal in the browser", () => {
  it('(a) a followed report, its private area and a message: no marker on the wire or in any row; parts that do not open are named', async () => {
    expect((await api('GET', '/api/public/key-log')).data.sealedCases).toBe('browser');
    const password = `Sealed-${tag()}-pw`;
    const { page, wire: traffic, o } = await s.open();
    await fillReport(page, password);
    await sendReport(page);
    const { dialog, caseNumber } = await reportSent(page);
    // The device keeps no trace of the sealing: nothing of the key log, nothing of the report, in either storage.
    const onDevice = await page.evaluate(() => ({ local: { ...localStorage }, session: { ...sessionStorage } }));
    expect(Object.keys(onDevice.local).filter((k) => k.startsWith('wb:key-log'))).toEqual([]);
    expect(Object.keys(onDevice.session).filter((k) => k.startsWith('wb:key-log'))).toEqual([]);
    for (const m of Object.values(MARKERS)) expect(JSON.stringify(onDevice)).not.toContain(m);

    // The server holds it sealed: no server wrapping, wraps for the handler, the recovery key and the reporter.
    const row = await s.portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(true);
    expect(row.wrapped_key).toBeNull();
    const kinds = (await s.portal.server.ctx.db.selectFrom('case_key_wrap').select('kind').where('case_id', '=', row.id).execute()).map((w) => w.kind).sort();
    expect(kinds).toEqual(['handler', 'recovery', 'reporter']);

    // Sign-in on the provider's page; the private area opens the case here.
    await dialog.getByRole('button', { name: en['forms.success.login'] }).click();
    await page.waitForSelector('#caseNumber');
    await page.fill('#password', password);
    await page.press('#password', 'Enter');
    await page.waitForURL((u) => u.pathname.startsWith('/private/'), { timeout: 60_000 });
    await page.getByRole('navigation', { name: en['private.nav.label'] }).waitFor();
    await page.getByRole('link', { name: en['private.nav.report'] }).first().click();
    await page.getByText(MARKERS.description, { exact: false }).waitFor();
    await page.getByText(MARKERS.unit).waitFor();
    await page.getByRole('link', { name: en['private.nav.info'] }).first().click();
    await expect.poll(() => page.getByLabel(/First and last name/).inputValue()).toBe(MARKERS.name);

    // A message, sealed here.
    await page.getByRole('link', { name: en['private.nav.messages'] }).first().click();
    await page.getByLabel(en['private.messages.label']!).fill(`About the invoices: ${MARKERS.message}`);
    await page.getByRole('button', { name: en['private.messages.send'] }).click();
    await page.getByText(MARKERS.message, { exact: false }).waitFor();

    // The handler's key opens what the browser sent; her answer is sealed by her (here), and one copy of it is altered on the server.
    const view = await api('GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token });
    expect(view.status).toBe(200);
    const hanneId = await keyId(hanneKeys.ecdhSpki);
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { caseId: row.id, epoch: view.data.epoch, recipientKeyId: hanneId });
    const details = JSON.parse(await openFieldText(dk, fieldContext(row.id, 'report_case.details_enc'), fromBase64(view.data.envelopes.details)));
    expect(details.description).toContain(MARKERS.description);
    const mine = view.data.messages.at(-1);
    expect(await openFieldText(dk, fieldContext(row.id, 'case_message.body_enc', mine.id), fromBase64(mine.body))).toContain(MARKERS.message);
    const answer = async (text: string) => {
      const id = crypto.randomUUID();
      const body = toBase64(await sealField(dk, fieldContext(row.id, 'case_message.body_enc', id), text));
      expect((await api('POST', `/api/handler/cases/${caseNumber}/messages/sealed`, { token: hanne.token, json: { id, body, type: 'STANDARD' } })).status).toBe(201);
      return id;
    };
    await answer(`We read it: ${MARKERS.answer}`);
    const altered = await answer('This one will be altered.');
    const stored = await s.portal.server.ctx.db.selectFrom('case_message').select('body_enc').where('id', '=', altered).executeTakeFirstOrThrow();
    const flipped = Buffer.from(stored.body_enc);
    flipped[flipped.length - 1]! ^= 1;
    await s.portal.server.ctx.db.updateTable('case_message').set({ body_enc: flipped }).where('id', '=', altered).execute();

    await page.reload();
    await page.getByText(MARKERS.answer, { exact: false }).waitFor();
    await page.getByText(en['sealing.messageUnopened']!).waitFor();
    await expect(page.getByText(MARKERS.message, { exact: false }).count()).resolves.toBe(1);
    // (c) axe on a sealed case's messages with a part not opened.
    expect(await axeViolations(page), 'sealed messages').toEqual([]);

    // The details altered too: named, the rest of the report page still shows.
    const caseRow = await s.portal.server.ctx.db.selectFrom('report_case').select('details_enc').where('id', '=', row.id).executeTakeFirstOrThrow();
    const good = Buffer.from(caseRow.details_enc);
    const bad = Buffer.from(good);
    bad[bad.length - 1]! ^= 1;
    await s.portal.server.ctx.db.updateTable('report_case').set({ details_enc: bad }).where('id', '=', row.id).execute();
    await page.getByRole('link', { name: en['private.nav.report'] }).first().click();
    await page.getByText(en['sealing.unopened']!).waitFor();
    await expect(page.getByText(MARKERS.description, { exact: false }).count()).resolves.toBe(0);
    await page.getByText(en['private.report.created']!).waitFor();
    expect(await axeViolations(page), 'sealed report, details not opened').toEqual([]);
    await s.portal.server.ctx.db.updateTable('report_case').set({ details_enc: good }).where('id', '=', row.id).execute();

    // No reporter key in this tab (the handed-over key gone): log in again, never a crash.
    await page.evaluate((k) => sessionStorage.removeItem(k), REPORTER_KEY_HANDOVER);
    await page.reload();
    await page.getByTestId('key-missing').waitFor();
    await page.getByRole('heading', { level: 1, name: en['sealing.keyMissing.title'] }).waitFor();
    await expect(page.getByText(MARKERS.description, { exact: false }).count()).resolves.toBe(0);
    expect(await axeViolations(page), 'log in again').toEqual([]);

    // The recording: nothing of the report, the identity or the messages went in clear.
    const recorded = await traffic.all();
    // The only bodies not read are the early case reads' 409 refusals (an error code, no case data).
    expect(recorded.filter((r) => r.what.includes('unread')).map((r) => `${r.what} ${new URL(r.url).pathname}`).filter((x) => x !== '← 409 (unread) /api/private/case/my-case')).toEqual([]);
    expect(recorded.some((r) => r.url.endsWith('/api/public/case/new/sealed') && r.what === '→ POST')).toBe(true);
    expect(recorded.some((r) => r.url.endsWith('/api/private/case/messages/sealed') && r.what === '→ POST')).toBe(true);
    expect(recorded.some((r) => /\/api\/public\/case\/new\/by-form|\/api\/private\/case\/messages\/new/.test(r.url))).toBe(false);
    expect(markersIn(recorded, Object.values(MARKERS))).toEqual([]);
    // Nor any row of the database.
    const rows = await databaseText(s.portal);
    expect(Object.values(MARKERS).filter((m) => rows.includes(m))).toEqual([]);
    await o.close();
  }, 240_000);

  it('(b) a handler key swapped on the server: the form refuses to seal, says why, sends nothing, keeps the draft; (c) axe', async () => {
    const casesBefore = Number((await s.portal.server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    // The server serves another ECDH key in Hanne's entry: its own, whose private half it holds.
    const evil = await makeHandlerKeys();
    const entries = await s.portal.server.ctx.db.selectFrom('key_log_entry').select(['seq', 'entry']).where('company_id', '=', COMPANY).orderBy('seq').execute();
    const first = entries[0]!;
    const swapped = { ...(JSON.parse(first.entry) as KeyLogEntry), ecdhSpki: toBase64(evil.ecdhSpki) };
    await s.portal.server.ctx.db.updateTable('key_log_entry').set({ entry: JSON.stringify(swapped) }).where('company_id', '=', COMPANY).where('seq', '=', first.seq).execute();
    try {
      const password = `Swap-${tag()}-pw`;
      const { page, wire: traffic } = await s.open();
      await fillReport(page, password);
      await sendReport(page);
      const refusal = page.getByRole('alertdialog', { name: en['sealing.refused.title'] });
      await refusal.waitFor({ timeout: 60_000 });
      await expect(refusal.getByTestId('keys-refused').getAttribute('data-reason')).resolves.toBe('signature');
      await refusal.getByText(en['sealing.refused.signature']!).waitFor();
      await refusal.getByText(en['sealing.refused.kept']!).waitFor();
      expect(await axeViolations(page), 'keys refused').toEqual([]);
      await refusal.getByRole('button', { name: en['sealing.refused.close'] }).click();
      await refusal.waitFor({ state: 'hidden' });
      // The whole draft is kept.
      await expect(page.getByLabel(label('forms.describe.description')).inputValue()).resolves.toContain(MARKERS.description);
      await expect(page.getByLabel(label('forms.identity.name')).inputValue()).resolves.toBe(MARKERS.name);
      await expect(page.getByLabel(label('forms.follow.password')).inputValue()).resolves.toBe(password);
      // Nothing was sent: no case, and no creation request of either kind.
      const recorded = await traffic.all();
      expect(recorded.some((r) => r.what === '→ POST' && /\/api\/public\/case\/new\//.test(r.url))).toBe(false);
      expect(markersIn(recorded, Object.values(MARKERS))).toEqual([]);
      expect(Number((await s.portal.server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(casesBefore);
    } finally {
      await s.portal.server.ctx.db.updateTable('key_log_entry').set({ entry: first.entry }).where('company_id', '=', COMPANY).where('seq', '=', first.seq).execute();
    }
  }, 240_000);
});
