/**
 * A reply template on a sealed case, in real Chromium against the real server with
 * SEALED_CASES=browser (issue 38 Build 7, docs/decisions/reply-templates.md): the picker
 * fills the sealing composer with a seeded template, the message is sealed in the
 * handler's browser under the case's data key as any typed reply, the server stores and
 * receives only the envelope, and the reporter key opens it to the template's text. The
 * reporter's language is not known on a sealed case, so the company's default is used
 * and said so.
 */
import { describe, expect, it } from 'vitest';
import { axeViolations } from './harness.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, enrolHandler, makeRecoveryKey, openCaseFromInbox, signInHandler, textOf, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { fieldContext, openFieldText, unwrapDataKey, SEALED_COLUMNS } from '../../core/crypto/index.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { DEMO_TEMPLATES } from '../../server/companies/demo-templates.ts';
import { LANGUAGE_NAMES } from '../../machines/languages.ts';

const { msg } = english('handler', 'keys', 'sealed', 'templates');
const HOST = 'group.localhost';
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

describe('a reply template on a sealed case', () => {
  it("fills the sealing composer with the company's default language; only the envelope leaves the browser", async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officer = company.settings.protectionOfficers[0]!.id;
    const lang = company.settings.defaultLanguage;
    const seeded = DEMO_TEMPLATES[0]!;
    const text = seeded.texts[lang];
    const hanne = await enrolHandler(s, HOST, { name: 'hanne', password: 'hanne long passphrase 1', officers: [officer] });
    await signInHandler(portal, HOST, hanne);
    await makeRecoveryKey(hanne.page);
    const sealed = await sendFollowedSealedCase(portal.server, HOST, {
      password: 'a long reporter password',
      officerId: officer,
      details: { description: 'Invoices to a company that does not exist', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Purchasing' },
    });

    await openCaseFromInbox(hanne.page, sealed.caseNumber);
    await hanne.page.getByTestId('sealed-notice').waitFor();
    const picker = hanne.page.getByTestId('template-picker');
    await picker.getByText(msg('templates.picker.inDefaultLanguage', { language: LANGUAGE_NAMES[lang] })).waitFor();
    await picker.getByLabel(msg('templates.picker.label')).selectOption({ label: seeded.names[lang] });
    await picker.getByRole('button', { name: msg('templates.picker.insert') }).click();
    const box = hanne.page.getByLabel(msg('handler.composer.text'), { exact: true });
    // Nothing was typed: the text goes in without a question.
    expect(await box.inputValue()).toBe(text);
    expect(await hanne.page.getByRole('alertdialog').count()).toBe(0);
    expect(await axeViolations(hanne.page)).toEqual([]);
    await hanne.page.getByRole('button', { name: msg('handler.composer.send'), exact: true }).click();
    await hanne.page.getByText(msg('handler.composer.sent')).waitFor();
    await hanne.page.getByTestId('sealed-thread').getByText(text, { exact: false }).waitFor();

    // The server holds an envelope that the reporter key opens to the template's text.
    const reporterWrap = await portal.server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', sealed.caseId).where('kind', '=', 'reporter').executeTakeFirstOrThrow();
    const dataKey = await unwrapDataKey(sealed.reporterKey, new Uint8Array(reporterWrap.wrap), { caseId: sealed.caseId, epoch: 1 });
    const rows = await portal.server.ctx.db.selectFrom('case_message').select(['id', 'body_enc']).where('case_id', '=', sealed.caseId).execute();
    expect(rows.length).toBe(1);
    expect(Buffer.from(rows[0]!.body_enc).toString('latin1')).not.toContain(text.slice(0, 30));
    expect(await openFieldText(dataKey, fieldContext(sealed.caseId, SEALED_COLUMNS.messageBody, rows[0]!.id), new Uint8Array(rows[0]!.body_enc))).toBe(text);

    // What went over the wire to the case: no template text, in either direction (the templates' own read is company configuration).
    const wire = (await s.recorded()).filter((r) => r.url.includes(`/api/handler/cases/${sealed.caseNumber}`));
    expect(wire.some((r) => r.what === '→ POST' && r.url.endsWith('/messages/sealed'))).toBe(true);
    expect(wire.map(textOf).join('\n')).not.toContain(text.slice(0, 30));
  }, 240_000);
});
