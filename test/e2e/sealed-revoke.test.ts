/**
 * Revoking a colleague's access to a sealed case, in real Chromium against the real
 * server with SEALED_CASES=browser (issue 37; docs/decisions/sealed-cases.md
 * "Revocation and key epochs"). Hanne and Greta of one officer both hold a followed
 * case's key (Greta is certified before it is sealed). Hanne revokes Greta's access
 * through the confirmation (axe on the dialog): her browser makes the next epoch's key
 * and wraps it to herself and the recovery key. The case is opened again, her reply is
 * sealed under the new epoch; Greta's page says her access was revoked (axe); the
 * server holds no wrap of Greta's key, the reply does not open with the first epoch's
 * key Greta had; the reporter's page reaches the new key through her forward link,
 * shows the reply and wraps the new key under her reporter key (the server then keeps
 * no forward link). No marker in any request or response.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { signInThroughProvider } from './reporter.ts';
import { call } from '../server/api.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, certifyColleague, english, enrolHandler, makeRecoveryKey, markersIn, openCaseFromInbox as openCase, signInHandler, textOf, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { fieldContext, keyId, openCaseKeys, openCaseParts, openFieldText, SEALED_COLUMNS } from '../../core/crypto/index.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'keys', 'sealed', 'revoke', 'sealedwork');

const HOST = 'group.localhost';
const MARKERS = { details: 'MARKER-details-5e0a', identity: 'MARKER-identity-61c3', reply: 'MARKER-after-revoke-2f7d' };
const PASSWORDS = { hanne: 'hanne long passphrase 1', greta: 'greta long passphrase 22', otto: 'otto long passphrase 333' };
type Name = keyof typeof PASSWORDS;

/** Every request and response any page saw is recorded, with URLs, headers and bodies. */
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });
const enrol = (name: Name, officer: string) => enrolHandler(s, HOST, { name, password: PASSWORDS[name], officers: [officer] });
const signIn = (h: Awaited<ReturnType<typeof enrol>>) => signInHandler(s.portal, HOST, h);

describe('revoking access to a sealed case in the workspace', () => {
  it('revokes a colleague with a new key epoch through the confirmation; later content is sealed under it and the revoked colleague is refused', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const [officerA] = company.settings.protectionOfficers.map((o) => o.id);
    const hanne = await enrol('hanne', officerA!);
    const greta = await enrol('greta', officerA!);
    await signIn(hanne);
    await makeRecoveryKey(hanne.page);
    await certifyColleague(hanne.page, 'greta');

    const sealed = await sendFollowedSealedCase(portal.server, HOST, {
      password: 'a long reporter password',
      officerId: officerA!,
      details: { description: `Stock went missing ${MARKERS.details}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Store' },
      whistleblower: { name: `Wanda ${MARKERS.identity}` },
    });
    const { caseNumber } = sealed;
    const gretaAccount = await portal.server.ctx.db.selectFrom('handler_account').select('ecdh_spki').where('email', '=', greta.email).executeTakeFirstOrThrow();
    const gretaKeyId = await keyId(new Uint8Array(gretaAccount.ecdh_spki!));
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('recipient_key_id', '=', gretaKeyId).executeTakeFirst()).toEqual({ epoch: 1 });

    // Greta opens it with her own key first.
    await signIn(greta);
    await openCase(greta.page, caseNumber);
    await greta.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();

    // Hanne revokes Greta's access through the confirmation.
    await openCase(hanne.page, caseNumber);
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    const holders = hanne.page.getByTestId('sealed-holders');
    await holders.getByRole('button', { name: msg('revoke.give', { name: 'greta' }) }).click();
    const dialog = hanne.page.getByRole('alertdialog');
    await dialog.getByText(msg('revoke.confirmTitle', { name: 'greta' })).waitFor();
    expect(await axeViolations(hanne.page)).toEqual([]);
    await dialog.getByRole('button', { name: msg('revoke.confirm') }).click();
    await holders.getByText(msg('revoke.done', { name: 'greta' })).waitFor();
    await holders.getByText(msg('revoke.none')).waitFor();
    // The case was opened again under the new epoch: the report still shows.
    await hanne.page.getByTestId('sealed-details').getByText(MARKERS.details, { exact: false }).waitFor();
    // The audit view names the revocation: whose key, and the new key's epoch.
    const revokedRow = hanne.page.getByTestId('audit-trail').locator('tr', { has: hanne.page.locator('[data-action="ACCESS_REVOKED"]') });
    await revokedRow.getByText(msg('sealedwork.audit.detail.revoke', { name: 'greta', epoch: 2 })).waitFor();
    expect(await revokedRow.count()).toBe(1);
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('recipient_key_id', '=', gretaKeyId).execute()).toEqual([]);

    // Hanne's reply is sealed under the second epoch.
    await hanne.page.getByLabel(msg('handler.composer.text'), { exact: true }).fill(`After the revocation ${MARKERS.reply}`);
    await hanne.page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await hanne.page.getByText(msg('handler.composer.sent')).waitFor();
    const reply = await portal.server.ctx.db.selectFrom('case_message').select(['id', 'epoch', 'body_enc']).where('case_id', '=', sealed.caseId).executeTakeFirstOrThrow();
    expect(reply.epoch).toBe(2);
    // The first epoch's key, which Greta's browser had, does not open it.
    await expect(openFieldText(sealed.dataKey, fieldContext(sealed.caseId, SEALED_COLUMNS.messageBody, reply.id), new Uint8Array(reply.body_enc))).rejects.toThrow();

    // Greta's page: her access was revoked, nothing of the case is fetched.
    await openCase(greta.page, caseNumber);
    await greta.page.getByTestId('sealed-revoked').getByText(msg('revoke.revoked')).waitFor();
    expect(await greta.page.getByText(MARKERS.reply, { exact: false }).count()).toBe(0);
    expect(await axeViolations(greta.page)).toEqual([]);

    // The reporter's page, in Chromium: it walks forward from her first-epoch wrap, shows the reply, and wraps the new key under her reporter key.
    expect(await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('kind', '=', 'next').execute()).toEqual([{ epoch: 2 }]);
    const { page, o } = await s.open();
    await signInThroughProvider(portal, page, caseNumber, 'a long reporter password', '/private/messages', { host: HOST, timeout: 60_000 });
    await page.getByText(MARKERS.reply, { exact: false }).waitFor();
    await expect.poll(async () => (await portal.server.ctx.db.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', sealed.caseId).where('kind', 'in', ['next', 'reporter']).execute()).map((w) => w.epoch)).toEqual([2]);

    // Closed, so a request the private area holds open does not keep the recording waiting.
    await o.close();

    // The reporter's key reaches the new epoch by her own wrap of it now.
    const tokens = await reporterSignIn(new ReporterBrowser(portal.server, HOST), caseNumber, 'a long reporter password');
    const mine = await call(portal.server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
    const keys = await openCaseKeys(mine.data, { reporterKey: sealed.reporterKey });
    expect(keys.epoch).toBe(2);
    expect(mine.data.epoch).toBe(2);
    const parts = await openCaseParts(keys, mine.data);
    expect(parts.messages.map((m) => m.text)).toEqual([`After the revocation ${MARKERS.reply}`]);

    const wire = await s.recorded();
    expect(wire.map(textOf).join('\n')).toContain('/key-epochs');
    expect(markersIn(wire, Object.values(MARKERS), { base64: false })).toEqual([]);
  }, 300_000);
});
