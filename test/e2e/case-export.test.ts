/**
 * Exporting a case in real Chromium (issue 38; docs/decisions/case-export.md): the handler
 * blacks out a name, the server records the export, the browser makes the PDF and the zip;
 * the downloaded PDF read back with a real parser (unpdf) has neither the name nor the
 * identity, and has the files' SHA-256; the zip holds the files byte for byte; axe on the
 * dialog; the print style sheet prints the case without the top bar and the composer.
 */
import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { extractText, getDocumentProxy } from 'unpdf';
import { axeViolations } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { solveChallenge } from '../server/api.ts';
import { browserSuite, english, enrolInPage, signInHandler } from '../helpers/sealed-e2e.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'export');
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

const HOST = 'localhost';
const PASSWORD = 'export long passphrase 1';
const NAME = 'Jan Kowalski';
const FILES = [
  { name: 'ledger for Jan Kowalski.txt', bytes: new TextEncoder().encode('Invoice 4711 paid twice; approved by Jan Kowalski.\n') },
  { name: 'minutes.txt', bytes: new TextEncoder().encode(`Minutes ÆØÅ æøå ąęł\n${randomBytes(150_000).toString('hex')}\n`) },
];

const s = browserSuite();
let token: string;

async function newCase(): Promise<string> {
  const { portal } = s;
  const dto = {
    whistleblowerRelation: 'Employee in accounting',
    protectionOfficer: { id: await firstOfficerId(portal) },
    description: `${NAME} approves invoices from Łódź Transport twice; JAN KOWALSKI signs both.`,
    violation: 'FRAUD',
    repeatedViolations: true,
    caseAccount: { follow: true, password: 'reporter-pass-1' },
    reportedPersons: [{ name: NAME, jobTitle: 'Head of purchasing', phoneOrEmail: 'jan.k@example.com' }],
    whistleblower: { name: 'Ann Reporter', email: 'ann.reporter@example.com' },
  };
  const fd = new FormData();
  fd.append('caseDto', JSON.stringify(dto));
  for (const f of FILES) fd.append('files', new Blob([f.bytes as BlobPart], { type: 'text/plain' }), f.name);
  const res = await fetch(`${portal.server.url}/api/public/case/new/by-form`, { method: 'POST', body: fd, headers: { 'x-company-host': HOST, ...(await solveChallenge(portal.server)) } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { caseDto: { caseNumber: string } }).caseDto.caseNumber;
}

describe('case export', () => {
  it('exports a case with a redacted name: the PDF read back has no name, no identity, the hashes; the zip holds the files; the audit trail says so', async () => {
    const { portal } = s;
    const caseNumber = await newCase();
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const account = await createHandlerAccount(portal.server.ctx.db, company.id, 'Erika Export', { email: 'erika@example.org' });
    token = account.token;
    const { page, o: p } = await s.open({ timeout: 20_000 });
    const erika = await enrolInPage(portal, HOST, page, account.enrolmentCode!, { name: 'Erika Export', email: 'erika@example.org', password: PASSWORD });
    await signInHandler(portal, HOST, erika);

    await page.goto(portal.url(HOST, `/handler/cases/${caseNumber}`));
    await page.getByRole('button', { name: msg('export.button') }).click();
    const dialog = page.getByRole('dialog', { name: msg('export.title') });
    await dialog.waitFor();
    // The identity is not ticked at opening: an explicit choice.
    expect(await dialog.getByRole('checkbox', { name: msg('export.part.identity') }).isChecked()).toBe(false);
    expect(await dialog.getByRole('checkbox', { name: msg('export.part.files') }).isChecked()).toBe(true);
    await dialog.getByLabel(msg('export.term')).fill(NAME);
    await dialog.getByLabel(msg('export.term')).press('Enter');
    await dialog.getByRole('button', { name: msg('export.removeTerm', { term: NAME }) }).waitFor();
    expect(await axeViolations(page), 'export dialog').toEqual([]);
    await dialog.getByRole('button', { name: msg('export.start') }).click();
    await dialog.getByText(msg('export.done')).waitFor();
    expect(await axeViolations(page), 'export dialog, done').toEqual([]);

    const [pdfDownload] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadPdf') }).click()]);
    expect(pdfDownload.suggestedFilename()).toBe(`case-${caseNumber}.pdf`);
    const pdf = new Uint8Array(readFileSync((await pdfDownload.path())!));
    const { text } = await extractText(await getDocumentProxy(pdf), { mergePages: true });
    const flat = (text as string).replace(/\s/g, '');
    expect(text).not.toMatch(/kowalski/i);
    expect(Buffer.from(pdf).toString('latin1')).not.toMatch(/kowalski/i);
    expect(text).not.toContain('ann.reporter@example.com');
    expect(text).not.toContain('Ann Reporter');
    expect(text).toContain('This export is redacted');
    expect(text).toContain('Łódź Transport');
    for (const f of FILES) expect(flat).toContain(sha(f.bytes));

    const [zipDownload] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: msg('export.downloadZip') }).click()]);
    const entries = unzipSync(new Uint8Array(readFileSync((await zipDownload.path())!)));
    expect(Object.keys(entries).sort()).toEqual(['ledger for ██████.txt', 'minutes.txt']);
    expect(sha(entries['minutes.txt']!)).toBe(sha(FILES[1]!.bytes));
    expect(sha(entries['ledger for ██████.txt']!)).toBe(sha(FILES[0]!.bytes));

    // The export is in the audit trail, with what was chosen and no content.
    const view = (await (await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { audit: { action: string; detail: Record<string, unknown> }[] };
    expect(view.audit.filter((a) => a.action === 'CASE_EXPORTED').map((a) => a.detail)).toEqual([{ parts: 'report,messages,record,status,audit,files', identity: false, redacted: true, redactedTerms: 1 }]);
    // The font and everything else came from the portal itself.
    expect(p.foreignRequests([new URL(portal.url(HOST, '/')).origin])).toEqual([]);

    // By keyboard: closing returns the focus to the button, Enter opens the dialog again, Escape closes it.
    await dialog.getByRole('button', { name: msg('export.close') }).press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: msg('export.button') }).evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await dialog.getByText(msg('export.noTerms')).isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // Printing prints the case, not the chrome.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('header').first().isVisible()).toBe(false);
    expect(await page.locator('textarea').count()).toBeGreaterThan(0);
    expect(await page.locator('textarea, form, button').evaluateAll((els) => els.filter((e) => (e as HTMLElement).checkVisibility()).map((e) => e.outerHTML.slice(0, 160)))).toEqual([]);
    expect(await page.getByRole('button', { name: msg('export.button') }).isVisible()).toBe(false);
    expect(await page.getByRole('heading', { level: 2, name: msg('handler.case.messages') }).isVisible()).toBe(true);
    expect(await page.getByTestId('audit-trail').isVisible()).toBe(true);
  }, 120_000);
});
