/**
 * A sealed case in the handlers' workspace, in real Chromium against the real server
 * with SEALED_CASES=browser (issue 37; docs/decisions/blind-server.md "Handler pages and
 * grants"). Three handlers of one company enrol in their browsers: Hanne and Greta of
 * officer A, Otto of officer B. Hanne makes the recovery key and is certified; a
 * followed case for officer A is sealed as the reporter's browser seals it
 * (test/helpers/sealed-case.ts), so only Hanne and the recovery key hold its key. Greta
 * is certified afterwards and has no key for it.
 *
 * Hanne opens it in her browser (details, identity, the reporter's message), replies
 * sealed (the reply opens with the reporter key here), and after a reload opens it again
 * once her keys are unlocked. Greta sees the "no key" message; Hanne grants her the key
 * through the confirmation; Greta then opens it. Otto gets no case. axe finds nothing on
 * these states, and no marker is in any request or response any of the browsers saw.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { call } from '../server/api.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import {
  browserSuite, certifyColleague, caseLinkName, english, enrolHandler, makeRecoveryKey, markersIn, openCaseFromInbox as openCase, signInHandler, textOf, NO_THROTTLE, SEALED,
} from '../helpers/sealed-e2e.ts';
import { fieldContext, keyId, openFieldText, sealMessage, unwrapDataKey, SEALED_COLUMNS } from '../../core/crypto/index.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'keys', 'sealed');

const HOST = 'group.localhost';
const MARKERS = { details: 'MARKER-details-c41e', identity: 'MARKER-identity-9d02', fromReporter: 'MARKER-reporter-msg-77aa', reply: 'MARKER-reply-3be5' };
const PASSWORDS = { hanne: 'hanne long passphrase 1', greta: 'greta long passphrase 22', otto: 'otto long passphrase 333' };
type Name = keyof typeof PASSWORDS;

/** Every request and response any page saw is recorded, with URLs, headers and bodies. */
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });
const enrol = (name: Name, officer: string) => enrolHandler(s, HOST, { name, password: PASSWORDS[name], officers: [officer] });
const signIn = (h: Awaited<ReturnType<typeof enrol>>) => signInHandler(s.portal, HOST, h);

describe('a sealed case in the handlers\' workspace', () => {
  it('opens in the browser, replies sealed, grants a colleague of the same officer, and stays closed to another officer; no marker on the wire', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const [officerA, officerB] = company.settings.protectionOfficers.map((o) => o.id);
    const hanne = await enrol('hanne', officerA!);
    const greta = await enrol('greta', officerA!);
    const otto = await enrol('otto', officerB!);

    // Hanne makes the company's recovery key; it certifies her key.
    await signIn(hanne);
    await makeRecoveryKey(hanne.page);

    // A followed case for officer A, sealed as the reporter's browser seals it: to Hanne, the recovery key and the reporter key.
    const sealed = await sendFollowedSealedCase(portal.server, HOST, {
      password: 'a long reporter password',
      officerId: officerA!,
      details: { description: `The till was emptied ${MARKERS.details}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Shop' },
      whistleblower: { name: `Wanda ${MARKERS.identity}`, email: 'wanda@example.org' },
    });
    const { caseNumber, reporterKey } = sealed;
    // The reporter writes once (sealed, as the private area does).
    const tokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), caseNumber, 'a long reporter password');
    const fromReporter = await call(portal.server, 'POST', '/api/private/case/messages/sealed', { host: HOST, token: tokens.access_token, json: await sealMessage(sealed.dataKey, sealed.caseId, `More details ${MARKERS.fromReporter}`) });
    expect(fromReporter.status, JSON.stringify(fromReporter.data)).toBe(201);

    // Greta joins later: certified after the case was sealed, so no key for it is hers.
    await certifyColleague(hanne.page, 'greta');

    // Hanne opens it: details, identity and the reporter's message, opened in her browser.
    await openCase(hanne.page, caseNumber);
    await hanne.page.getByTestId('sealed-notice').waitFor();
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    await hanne.page.getByTestId('sealed-identity').getByText(MARKERS.identity, { exact: false }).waitFor();
    const thread = hanne.page.getByTestId('sealed-thread');
    await thread.getByText(MARKERS.fromReporter, { exact: false }).waitFor();
    await thread.getByText(msg('handler.case.fromReporter'), { exact: true }).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);

    // She replies: sealed in her browser, shown in the thread as hers.
    await hanne.page.getByLabel(msg('handler.composer.text'), { exact: true }).fill(`Thank you ${MARKERS.reply}`);
    await hanne.page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await hanne.page.getByText(msg('handler.composer.sent')).waitFor();
    await thread.locator('li', { hasText: MARKERS.reply }).getByText(msg('sealed.from.you'), { exact: true }).waitFor();
    // The reply opens with the reporter key (the reporter's wrap, the reply's row id).
    const reporterWrap = await portal.server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', sealed.caseId).where('kind', '=', 'reporter').executeTakeFirstOrThrow();
    const reporterDk = await unwrapDataKey(reporterKey, new Uint8Array(reporterWrap.wrap), { caseId: sealed.caseId, epoch: 1 });
    const rows = await portal.server.ctx.db.selectFrom('case_message').select(['id', 'body_enc', 'created_by']).where('case_id', '=', sealed.caseId).execute();
    const texts = await Promise.all(rows.map((r) => openFieldText(reporterDk, fieldContext(sealed.caseId, SEALED_COLUMNS.messageBody, r.id), new Uint8Array(r.body_enc))));
    expect(texts).toContain(`Thank you ${MARKERS.reply}`);

    // A reload locks her keys: the page asks for them, and opens the case once they are unlocked.
    await hanne.page.reload();
    await hanne.page.getByTestId('sealed-locked').waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await hanne.page.getByLabel(msg('keys.unlock.secret')).fill(PASSWORDS.hanne);
    await hanne.page.getByRole('button', { name: msg('keys.unlock.submit') }).click();
    await thread.getByText(MARKERS.reply, { exact: false }).waitFor();

    // Greta: the same officer, no key yet: a plain message, no crash.
    await signIn(greta);
    await openCase(greta.page, caseNumber);
    await greta.page.getByText(msg('sealed.noKey')).waitFor();
    expect(await greta.page.getByText(MARKERS.details, { exact: false }).count()).toBe(0);
    expect(await axeViolations(greta.page)).toEqual([]);

    // Hanne gives her access, through the confirmation.
    const grants = hanne.page.getByTestId('sealed-grants');
    await grants.getByRole('button', { name: msg('sealed.grants.give', { name: 'greta' }) }).click();
    const dialog = hanne.page.getByRole('alertdialog');
    await dialog.getByText(msg('sealed.grants.confirmTitle', { name: 'greta' })).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('sealed.grants.confirm') }).click();
    await grants.getByText(msg('sealed.grants.granted', { name: 'greta' })).waitFor();
    await grants.getByText(msg('sealed.grants.none')).waitFor();

    // Greta tries again and opens it with her own key; the reply is named as Hanne's.
    await greta.page.getByRole('button', { name: msg('handler.retry') }).click();
    await greta.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    await greta.page.getByTestId('sealed-thread').locator('li', { hasText: MARKERS.reply }).getByText('hanne', { exact: true }).waitFor();

    // Otto (officer B) has no case and no key: the inbox does not list it, its address says it does not exist.
    await signIn(otto);
    await otto.page.locator(`[data-case], :text("${msg('handler.inbox.empty')}")`).first().waitFor();
    expect(await otto.page.getByRole('link', { name: caseLinkName(caseNumber) }).count()).toBe(0);
    await otto.page.goto(portal.url(HOST, `/handler/cases/${caseNumber}`));
    await otto.page.getByText(msg('handler.case.notFound')).waitFor();
    const ottoAccount = await portal.server.ctx.db.selectFrom('handler_account').select('ecdh_spki').where('email', '=', otto.email).executeTakeFirstOrThrow();
    const ottoKeyId = await keyId(new Uint8Array(ottoAccount.ecdh_spki!));
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('recipient_key_id').where('case_id', '=', sealed.caseId).where('recipient_key_id', '=', ottoKeyId).executeTakeFirst()).toBeUndefined();

    // No marker in any request or response body, header or URL of the three browsers.
    const wire = await s.recorded();
    expect(wire.filter((r) => r.read).length).toBeGreaterThan(50);
    const recorded = wire.map(textOf).join('\n');
    expect(recorded).toContain('/api/handler/cases/');
    // The recording holds the bodies both ways: the sealed view's envelope came back, the sealed reply went out.
    expect(recorded).toContain(sealed.body.envelopes.details);
    expect(recorded).toMatch(/"body":"[A-Za-z0-9+/]{40,}/);
    expect(markersIn(wire, Object.values(MARKERS), { base64: false })).toEqual([]);
  }, 300_000);
});
