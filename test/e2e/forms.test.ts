/**
 * The report channels in real Chromium against the real server with the built SPA
 * (DIST_DIR). Each journey types a report as a reporter would, sends it, and then
 * reads the case back through the handler API (a handler account created in the
 * server's own database) and compares it with exactly what was typed, files' bytes
 * included. axe runs on the form in its states and with every dialog open. The last
 * journey stops the server before sending, for the failure dialog.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

const read = (area: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms') };
const msg = (key: string, values: Record<string, string | number> = {}) =>
  en[key]!.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k]));

/** As a paste does it: the whole text at once, as \`insertFromPaste\` (react-international-phone reads the country from a pasted + code). */
async function pasteInto(input: import('playwright-core').Locator, text: string) {
  await input.evaluate((el: HTMLInputElement, t) => {
    // The prototype's setter, as the browser's own edit does: React then sees a change.
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(el, t);
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertFromPaste', data: t }));
  }, text);
}

let browser: Browser;
let portal: Portal;
const tokens: Record<string, string> = {};
const opened: OpenedPage[] = [];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-forms-e2e-'));

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal()]);
  tokens.localhost = (await createHandlerAccount(portal.server.ctx.db, 'nordlys-energi', 'E2E Handler')).token;
  tokens.group = (await createHandlerAccount(portal.server.ctx.db, 'fjordgruppen', 'E2E Group Handler')).token;
});

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

async function open(host: string, pathname: string): Promise<OpenedPage> {
  const p = await openPage(browser, { locale: 'en-GB' });
  opened.push(p);
  await p.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url(host, '/').slice(0, -1) });
  await p.page.goto(portal.url(host, pathname));
  await p.page.getByRole('heading', { level: 2 }).first().waitFor();
  return p;
}

async function handler(kind: 'localhost' | 'group', pathname: string) {
  const res = await fetch(`${portal.server.url}${pathname}`, { headers: { authorization: `Bearer ${tokens[kind]}` } });
  expect(res.status, pathname).toBe(200);
  return res;
}
const caseOf = async (kind: 'localhost' | 'group', caseNumber: string) =>
  (await (await handler(kind, `/api/handler/cases/${caseNumber}`)).json()) as any;
const caseNumbers = async (kind: 'localhost' | 'group') =>
  ((await (await handler(kind, '/api/handler/cases')).json()) as { cases: Array<{ caseNumber: string }> }).cases.map((c) => c.caseNumber);

async function expectNoAxeViolations(page: Page, where: string) {
  expect(await axeViolations(page), where).toEqual([]);
}

const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A text field by its whole label (required fields add an asterisk). */
const field = (page: Page, key: string) => page.getByLabel(new RegExp(`^${escape(en[key]!)}\\*?$`));
const step = (page: Page, key: string) => page.locator('section', { has: page.getByRole('heading', { name: en[`forms.step.${key}.title`] }) });

/** The success dialog asks before the case number is gone: confirm. */
async function confirmClose(page: Page) {
  const ask = page.getByRole('alertdialog', { name: en['forms.success.closeConfirm.title'] });
  await ask.waitFor();
  await ask.getByRole('button', { name: en['forms.success.closeConfirm.close'] }).click();
}

async function send(page: Page, channel: 'online' | 'oral' | 'meeting') {
  const button = page.getByRole('button', { name: msg(`forms.send.${channel}`) });
  await expect.poll(() => button.isEnabled()).toBe(true);
  await button.click();
}

function file(name: string, bytes: Buffer): string {
  const p = path.join(tmp, name);
  writeFileSync(p, bytes);
  return p;
}

describe('online form', () => {
  it('anonymous, not following: the case holds exactly what was typed', async () => {
    const { page } = await open('localhost', '/online-form');
    const before = await caseNumbers('localhost');
    await expectNoAxeViolations(page, 'online form, untouched');
    // One protection officer: chosen for the reporter, shown as who receives the report.
    await expect(page.getByTestId('officer-receiver').textContent()).resolves.toContain('Anne Sørensen');
    expect(await page.locator('[data-step="protectionOfficer"]').getByRole('radio').count()).toBe(0);
    await expect(page.getByRole('heading', { level: 2 }).allTextContents()).resolves.toContain(
      `${en['forms.step.relation.title']}${msg('forms.step.counter', { n: 2, max: 7 })}`,
    );
    await field(page, 'forms.relation.label').fill('Former employee in accounting');
    await field(page, 'forms.describe.violation').selectOption('FRAUD');
    await field(page, 'forms.describe.description').fill('Invoices to a shell company, signed by the CFO.');
    await step(page, 'describeProblem').getByRole('radio', { name: en['forms.no'] }).check();
    await page.getByRole('radio', { name: en['forms.related.company'] }).check();
    await field(page, 'forms.related.unit').fill('Finance department');
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
    await expect(page.getByRole('button', { name: en['forms.send.online'] }).isDisabled()).resolves.toBe(true);
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await expectNoAxeViolations(page, 'online form filled, anonymous');
    await send(page, 'online');

    const dialog = page.getByRole('dialog', { name: en['forms.success.online.title'] });
    await dialog.waitFor();
    await expect(dialog.getByText(en['forms.success.notFollowed']!).isVisible()).resolves.toBe(true);
    // The case number is shown anyway (docs/decisions/reporter-spec-deviations.md).
    await expect(dialog.getByTestId('case-number').textContent()).resolves.toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
    await expectNoAxeViolations(page, 'success dialog, not following');
    await dialog.getByRole('button', { name: en['forms.success.frontPage'] }).click();
    await confirmClose(page);
    await page.waitForURL(portal.url('localhost', '/'));

    const added = (await caseNumbers('localhost')).filter((n) => !before.includes(n));
    expect(added).toHaveLength(1);
    const c = await caseOf('localhost', added[0]!);
    expect(c).toMatchObject({
      submission: { type: 'ONLINE_FORM' },
      whistleblowerRelation: 'Former employee in accounting',
      violation: 'FRAUD',
      description: 'Invoices to a shell company, signed by the CFO.',
      repeatedViolations: false,
      reportedPersons: [],
      reportedUnit: 'Finance department',
      whistleblower: null,
      caseAccount: { follow: false },
      files: [],
    });
    expect(c.protectionOfficer.name).toBe('Anne Sørensen');
  });

  it('identified, following, with 3 files: case number copied, files stored byte for byte', async () => {
    const { page } = await open('localhost', '/online-form');
    const files = [
      { name: 'ledger.pdf', bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 7), Buffer.from('\n%%EOF\n')]) },
      { name: 'notes.txt', bytes: Buffer.from('Met the supplier on 3 March.\nCash in an envelope.\n') },
      { name: 'photo.png', bytes: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2048, 1)]) },
    ];
    await field(page, 'forms.relation.label').fill('Supplier');
    await field(page, 'forms.describe.description').fill('Bribes for contracts.');
    await step(page, 'describeProblem').getByRole('radio', { name: en['forms.yes'] }).check();
    await expect(page.getByText(en['forms.describe.repeatedHint']!).isVisible()).resolves.toBe(true);
    await page.getByRole('radio', { name: en['forms.related.persons'] }).check();
    const add = page.getByRole('button', { name: en['forms.related.add'] });
    await expect(add.isDisabled()).resolves.toBe(true);
    await field(page, 'forms.related.name').fill('Per Hansen');
    await field(page, 'forms.related.jobTitle').fill('Purchasing manager');
    await field(page, 'forms.related.phoneOrEmail').fill('per@example.com');
    await add.click();
    await expect(page.getByRole('list', { name: en['forms.related.added'] }).getByRole('listitem').count()).resolves.toBe(1);

    // The keyboard-reachable picker: the button opens the browser's file chooser.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: en['forms.documents.choose'] }).click()]);
    await chooser.setFiles(files.map((f) => file(f.name, f.bytes)));
    // The form reads a sample of each file's content before it lists them (a moment later).
    await expect.poll(() => page.getByRole('list', { name: msg('forms.documents.list', { count: 3, max: 5 }) }).getByRole('listitem').count()).toBe(3);

    await page.getByRole('radio', { name: en['forms.identity.reveal'] }).check();
    await field(page, 'forms.identity.name').fill('Ida Jensen');
    await field(page, 'forms.identity.email').fill('ida@example.com');
    // The phone starts with the display language's country (spec §5: English → +44).
    const phone = field(page, 'forms.identity.phone');
    // The phone input's module comes just after the form's first screen: wait for it.
    await expect.poll(() => phone.inputValue()).toMatch(/^\+44/);
    // A Danish number pasted with its code: the input takes its country (typing goes
    // after the selected country's code, which cannot be deleted).
    await phone.click();
    await phone.press('Control+A');
    await pasteInto(phone, '+4512345678');
    await expect(phone.inputValue()).resolves.toBe('+45 12 34 56 78');
    await page.getByRole('checkbox', { name: en['forms.identity.notification'] }).check();
    // Notification forces follow, and not-follow is disabled.
    await expect(page.getByRole('radio', { name: en['forms.follow.follow'] }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('radio', { name: en['forms.follow.notFollow'] }).isDisabled()).resolves.toBe(true);
    await field(page, 'forms.follow.password').fill('correct horse battery');
    await expect(page.getByText(en['forms.follow.strength.4']!).isVisible()).resolves.toBe(true);
    await field(page, 'forms.follow.confirm').fill('correct horse battery');
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await expectNoAxeViolations(page, 'online form filled, identified, following');
    // Chromium's own network throttling, so the upload takes a moment and its real progress shows.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 200_000 });
    await send(page, 'online');
    const bar = page.getByRole('progressbar', { name: msg('upload.progress', { name: 'ledger.pdf' }) });
    await bar.waitFor();
    await expect
      .poll(async () => {
        const [value, max] = await Promise.all([bar.getAttribute('value'), bar.getAttribute('max')]);
        return Number(value) > 0 && Number(value) < Number(max);
      })
      .toBe(true);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    const dialog = page.getByRole('dialog', { name: en['forms.success.online.title'] });
    await dialog.waitFor({ timeout: 30_000 });
    const shown = (await dialog.getByTestId('case-number').textContent())!;
    expect(shown).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/);
    const caseNumber = shown.replace(/ /g, '');
    await expectNoAxeViolations(page, 'success dialog, following');
    await dialog.getByRole('button', { name: en['forms.success.copy'] }).click();
    const hint = dialog.getByRole('status');
    await expect.poll(() => hint.textContent()).toBe(en['forms.success.copied']);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(caseNumber);
    await expect.poll(() => hint.textContent(), { timeout: 4000 }).toBe('');
    await dialog.getByRole('button', { name: en['forms.success.close'] }).click();
    await confirmClose(page);
    await page.waitForURL(portal.url('localhost', '/'));

    const c = await caseOf('localhost', caseNumber);
    expect(c).toMatchObject({
      caseNumber,
      submission: { type: 'ONLINE_FORM' },
      whistleblowerRelation: 'Supplier',
      description: 'Bribes for contracts.',
      violation: 'DONT_KNOW',
      repeatedViolations: true,
      reportedPersons: [{ name: 'Per Hansen', jobTitle: 'Purchasing manager', phoneOrEmail: 'per@example.com' }],
      reportedUnit: null,
      whistleblower: { name: 'Ida Jensen', email: 'ida@example.com', phone: '+4512345678', notification: true },
      caseAccount: { follow: true },
    });
    expect(c.files.map((f: any) => [f.name, f.size])).toEqual(files.map((f) => [f.name, f.bytes.length]));
    for (const [i, f] of c.files.entries()) {
      const res = await handler('localhost', `/api/handler/cases/${caseNumber}/files/${f.id}`);
      expect(Buffer.from(await res.arrayBuffer()).equals(files[i]!.bytes), f.name).toBe(true);
    }
  });

  it('leaving the form drops the draft; nothing of it is in storage or the address', async () => {
    const { page } = await open('localhost', '/online-form');
    await field(page, 'forms.relation.label').fill('Night guard');
    await field(page, 'forms.describe.description').fill('Doors left open.');
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
    expect(stored).not.toContain('Night guard');
    expect(stored).not.toContain('Doors left open');
    await page.getByRole('link', { name: en['nav.home'] }).first().click();
    await page.waitForURL(portal.url('localhost', '/'));
    await page.locator('[data-card="online"]').click();
    await field(page, 'forms.relation.label').waitFor();
    await expect(field(page, 'forms.relation.label').inputValue()).resolves.toBe('');
    await expect(field(page, 'forms.describe.description').inputValue()).resolves.toBe('');
  });

  it('dropping files keeps five of the allowed types and names each one not added, with why', async () => {
    const { page } = await open('localhost', '/online-form');
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      const files: Array<[string, string]> = [
        ['a.pdf', 'application/pdf'], ['virus.exe', 'application/x-msdownload'], ['b.png', 'image/png'], ['c.txt', 'text/plain'],
        ['d.csv', 'text/csv'], ['e.mp4', 'video/mp4'], ['f.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      ];
      // Real first bytes: the browser checks a file's content against its name.
      const heads: Record<string, Uint8Array | string> = {
        pdf: '%PDF-1.4\n',
        png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
        txt: 'content',
        csv: 'a;b\n',
        mp4: new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x6d, 0x70, 0x34, 0x32]),
        docx: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]),
        exe: 'MZ',
      };
      for (const [name, type] of files) dt.items.add(new File([heads[name.split('.').pop()!] as BlobPart], name, { type }));
      return dt;
    });
    await page.locator('[data-step="documents"] [data-over]').dispatchEvent('drop', { dataTransfer });
    const list = page.getByRole('list', { name: msg('forms.documents.list', { count: 5, max: 5 }) });
    await list.waitFor();
    expect((await list.getByRole('listitem').allTextContents()).map((x) => x.split(' ')[0])).toEqual(['a.pdf', 'b.png', 'c.txt', 'd.csv', 'e.mp4']);
    const notAdded = page.getByRole('list', { name: en['forms.documents.rejected.list'] });
    expect(await notAdded.getByRole('listitem').allTextContents()).toEqual([
      msg('forms.documents.rejected.type', { name: 'virus.exe' }),
      msg('forms.documents.rejected.tooMany', { name: 'f.docx', max: 5 }),
    ]);
    await expect(page.getByRole('button', { name: en['forms.documents.choose'] }).isDisabled()).resolves.toBe(true);
    await expectNoAxeViolations(page, 'documents full, notice shown');
  });

  it('a file whose content does not fit its type is named at once and not added; a long name never widens the page', async () => {
    const { page } = await open('localhost', '/online-form');
    await page.setViewportSize({ width: 375, height: 800 });
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], 'holiday-photo.pdf', { type: 'application/pdf' }));
      dt.items.add(new File(['%PDF-1.4\n'], `${'minutes-of-the-board-meeting-about-the-supplier-invoices-'.repeat(3)}.pdf`, { type: 'application/pdf' }));
      return dt;
    });
    await page.locator('[data-step="documents"] [data-over]').dispatchEvent('drop', { dataTransfer });
    await page.getByRole('alert').filter({ hasText: msg('forms.documents.refused', { names: 'holiday-photo.pdf' }) }).waitFor();
    const list = page.getByRole('list', { name: msg('forms.documents.list', { count: 1, max: 5 }) });
    await list.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const remove = list.getByRole('button', { name: /minutes-of-the-board/ });
    const box = (await remove.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    expect(box.height).toBeGreaterThanOrEqual(44);
  });

  it('validation dialog: send with a step missing jumps to the first invalid step; discard dialog confirmed and cancelled', async () => {
    const { page } = await open('localhost', '/online-form');
    await field(page, 'forms.describe.description').fill('Something is wrong.');
    await page.getByRole('radio', { name: en['forms.related.persons'] }).check();
    await field(page, 'forms.related.name').fill('Somebody');
    await expectNoAxeViolations(page, 'online form, persons being typed');
    // Switching to company with a person typed asks first; back keeps the choice and the data.
    await page.getByRole('radio', { name: en['forms.related.company'] }).click();
    const discard = page.getByRole('alertdialog', { name: en['dialog.discard.title'] });
    await discard.waitFor();
    await expectNoAxeViolations(page, 'discard dialog');
    await discard.getByRole('button', { name: en['dialog.discard.back'] }).click();
    await expect(page.getByRole('radio', { name: en['forms.related.persons'] }).isChecked()).resolves.toBe(true);
    await expect(field(page, 'forms.related.name').inputValue()).resolves.toBe('Somebody');
    await page.getByRole('radio', { name: en['forms.related.company'] }).click();
    await discard.getByRole('button', { name: en['dialog.discard.continue'] }).click();
    await expect(page.getByRole('radio', { name: en['forms.related.company'] }).isChecked()).resolves.toBe(true);
    await field(page, 'forms.related.unit').fill('Warehouse');

    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await send(page, 'online');
    const validation = page.getByRole('alertdialog', { name: en['dialog.validation.title'] });
    await validation.waitFor();
    await expectNoAxeViolations(page, 'validation dialog');
    await validation.getByRole('button', { name: en['dialog.validation.ok'] }).click();
    // The relation step (step 2) is the first invalid one: focused, in view, its field flagged.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('step-relation-heading');
    await expect
      .poll(() => page.evaluate(() => {
        const r = document.getElementById('step-relation-heading')!.getBoundingClientRect();
        return { top: Math.round(r.top), inView: r.top >= 0 && r.top < window.innerHeight };
      }))
      .toMatchObject({ inView: true });
    await expect(field(page, 'forms.relation.label').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(step(page, 'relation').getByText(en['validation.required']!).isVisible()).resolves.toBe(true);
    await expect(step(page, 'describeProblem').getByText(en['forms.validation.selectOption']!).isVisible()).resolves.toBe(true);
    await expectNoAxeViolations(page, 'form with field errors');
  });
});

describe('oral report and book meeting on group.localhost (subsidiaries)', () => {
  it('oral report: 5 steps, phone icon on send, case by phone with the subsidiary', async () => {
    const { page } = await open('group.localhost', '/oral-report');
    const before = await caseNumbers('group');
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
    expect(headings).toHaveLength(5);
    await expectNoAxeViolations(page, 'oral report, untouched');
    expect(headings[0]).toBe(`${en['forms.step.subsidiary.title']}${msg('forms.step.counter', { n: 1, max: 5 })}`);
    await field(page, 'forms.subsidiary.label').selectOption('fjord-seafood');
    await step(page, 'protectionOfficer').getByRole('radio').nth(1).check();
    const officer = (await step(page, 'protectionOfficer').getByRole('radio').nth(1).getAttribute('value'))!;
    await field(page, 'forms.relation.label').fill('Deckhand');
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await expect(page.getByRole('radio', { name: en['forms.follow.notFollow'] }).count()).resolves.toBe(0);
    await field(page, 'forms.follow.password').fill('havet123');
    await field(page, 'forms.follow.confirm').fill('havet123');
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await expect(page.getByRole('button', { name: en['forms.send.oral'] }).locator('svg').count()).resolves.toBe(1);
    await expectNoAxeViolations(page, 'oral report filled');
    await send(page, 'oral');
    const dialog = page.getByRole('dialog', { name: en['forms.success.oral.title'] });
    await dialog.waitFor();
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');
    await expectNoAxeViolations(page, 'oral success dialog');
    await dialog.getByRole('button', { name: en['forms.success.login'] }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/oral-report'));

    expect((await caseNumbers('group')).filter((n) => !before.includes(n))).toEqual([caseNumber]);
    const c = await caseOf('group', caseNumber);
    expect(c).toMatchObject({
      submission: { type: 'PHONE' },
      whistleblowerRelation: 'Deckhand',
      subsidiary: { id: 'fjord-seafood' },
      whistleblower: null,
      caseAccount: { follow: true },
    });
    expect(c.protectionOfficer.id).toBe(officer);
  });

  it('book meeting: identified reporter, case by meeting', async () => {
    const { page } = await open('group.localhost', '/book-meeting');
    await field(page, 'forms.subsidiary.label').selectOption('fjord-shipping');
    await step(page, 'protectionOfficer').getByRole('radio').first().check();
    await field(page, 'forms.relation.label').fill('Customer');
    await page.getByRole('radio', { name: en['forms.identity.reveal'] }).check();
    await field(page, 'forms.identity.name').fill('Ola Nordmann');
    await field(page, 'forms.identity.email').fill('ola@example.no');
    // Anonymous with typed data asks first; back keeps the identity.
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).click();
    const discard = page.getByRole('alertdialog', { name: en['dialog.discard.title'] });
    await discard.waitFor();
    await expectNoAxeViolations(page, 'meeting, discard dialog over the identity');
    await discard.getByRole('button', { name: en['dialog.discard.back'] }).click();
    await expect(field(page, 'forms.identity.name').inputValue()).resolves.toBe('Ola Nordmann');
    await field(page, 'forms.follow.password').fill('fjord');
    await field(page, 'forms.follow.confirm').fill('fjord');
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await expectNoAxeViolations(page, 'meeting filled, identified');
    await send(page, 'meeting');
    const dialog = page.getByRole('dialog', { name: en['forms.success.meeting.title'] });
    await dialog.waitFor();
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');
    await dialog.getByRole('button', { name: en['forms.success.close'] }).click();
    await confirmClose(page);
    await page.waitForURL(portal.url('group.localhost', '/'));
    const c = await caseOf('group', caseNumber);
    expect(c).toMatchObject({
      submission: { type: 'MEETING' },
      whistleblowerRelation: 'Customer',
      subsidiary: { id: 'fjord-shipping' },
      whistleblower: { name: 'Ola Nordmann', email: 'ola@example.no' },
      caseAccount: { follow: true },
    });
  });
});

describe('every language', () => {
  const LOCALES = { da: 'da-DK', no: 'nb-NO', se: 'sv-SE', en: 'en-GB', es: 'es-ES', pl: 'pl-PL', de: 'de-DE' } as const;
  // Spec §5: the phone starts with the display language's country (the company's code for it).
  const DIAL = { da: '+45', no: '+47', se: '+46', en: '+44', es: '+34', pl: '+48', de: '+49' } as const;

  it("the online form in each language: its counter, the company's phone country, and axe with the identity open", async () => {
    for (const lang of Object.keys(LOCALES) as Array<keyof typeof LOCALES>) {
      const cat = {
        ...(JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/common/${lang}.json`), 'utf8')) as Record<string, string>),
        ...(JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/forms/${lang}.json`), 'utf8')) as Record<string, string>),
      };
      const p = await openPage(browser, { locale: LOCALES[lang] });
      opened.push(p);
      const { page } = p;
      await page.goto(portal.url('localhost', '/online-form'));
      const counter = cat['forms.step.counter']!.replace('{n}', '1').replace('{max}', '7');
      await page.getByText(counter, { exact: true }).waitFor();
      await page.getByRole('radio', { name: cat['forms.identity.reveal'] }).check();
      const phone = page.getByLabel(cat['forms.identity.phone']!);
      // The phone input loads when the identity is revealed (a disabled field stands in meanwhile);
      // it starts with the page's language's country.
      await expect.poll(() => phone.inputValue(), { message: lang }).toMatch(new RegExp(`^\\${DIAL[lang]}`));
      // Country names in the page's language, not the library's English.
      const country = page.getByRole('combobox', { name: cat['forms.identity.country'] });
      const iso = (await country.getAttribute('data-country'))!.toUpperCase();
      const bcp = LOCALES[lang].split('-')[0] === 'nb' ? 'nb' : LOCALES[lang];
      await expect(country.getAttribute('title'), lang).resolves.toBe(new Intl.DisplayNames([bcp], { type: 'region' }).of(iso));
      expect(await axeViolations(page), lang).toEqual([]);
      await p.close();
    }
  });
});

describe('keyboard only', () => {
  /** Presses Tab until the focused element matches, failing after `max` presses. */
  async function tabTo(page: Page, describe: string, matches: () => boolean, max = 80) {
    for (let i = 0; i < max; i++) {
      if (await page.evaluate(matches)) return;
      await page.keyboard.press('Tab');
    }
    throw new Error(`Tab never reached ${describe}`);
  }

  it('the oral report can be filled, sent and its dialog used with the keyboard alone', async () => {
    const { page } = await open('localhost', '/oral-report');
    const before = await caseNumbers('localhost');
    await tabTo(page, 'the relation field', () => document.activeElement?.closest('[data-step="relation"]') !== null && document.activeElement?.tagName === 'INPUT');
    await page.keyboard.type('Cleaner');
    await tabTo(page, 'the identity choice', () => (document.activeElement as HTMLInputElement | null)?.name === 'identity');
    // Arrow keys move within the radio group; the second option is anonymous.
    await page.keyboard.press('ArrowDown');
    await expect(page.getByRole('radio', { name: en['forms.identity.anonymous'] }).isChecked()).resolves.toBe(true);
    await tabTo(page, 'the password', () => (document.activeElement as HTMLInputElement | null)?.type === 'password');
    await page.keyboard.type('mop4');
    // Past the password's show/hide button to the confirmation.
    await tabTo(page, 'the confirmation', () => (document.activeElement as HTMLInputElement | null)?.type === 'password' && (document.activeElement as HTMLInputElement).value === '', 4);
    await page.keyboard.type('mop4');
    await tabTo(page, 'the terms', () => (document.activeElement as HTMLInputElement | null)?.type === 'checkbox');
    await page.keyboard.press('Space');
    await page.evaluate((labels) => Object.assign(window, { __labels: labels }), { send: en['forms.send.oral'], copy: en['forms.success.copy'] });
    await tabTo(page, 'Send', () => document.activeElement?.textContent === (window as any).__labels.send, 20);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: en['forms.success.oral.title'] });
    await dialog.waitFor();
    // Focus is inside the dialog; Tab reaches Copy.
    await tabTo(page, 'Copy', () => document.activeElement?.closest('[role="dialog"]') !== null && document.activeElement?.textContent === (window as any).__labels.copy, 10);
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByRole('status').textContent()).toBe(en['forms.success.copied']);
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');
    // Escape closes the success dialog like its close button: it asks first, then draft reset, front page.
    await page.keyboard.press('Escape');
    await page.getByRole('alertdialog', { name: en['forms.success.closeConfirm.title'] }).waitFor();
    for (let i = 0; i < 4 && (await page.evaluate(() => document.activeElement?.textContent)) !== en['forms.success.closeConfirm.close']; i++) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.waitForURL(portal.url('localhost', '/'));
    expect((await caseNumbers('localhost')).filter((n) => !before.includes(n))).toEqual([caseNumber]);
    expect(await caseOf('localhost', caseNumber)).toMatchObject({ submission: { type: 'PHONE' }, whistleblowerRelation: 'Cleaner', whistleblower: null });
  });
});

describe('too many reports from one connection', () => {
  it('the proof-of-work is solved while typing; past the budget the form says to wait (429) and keeps the draft', async () => {
    // A realistic work factor (POW_DIFFICULTY) and a budget of one report.
    const strict = await startPortal({ submitRateLimit: { max: 1, windowSeconds: 600 }, powDifficulty: 14 });
    try {
      // Its own page: this portal has its own port, so the shared foreign-request check would count it.
      const p = await openPage(browser, { locale: 'en-GB' });
      const { page } = p;
      const challenges: number[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/api/public/pow/challenge')) challenges.push(Date.now());
      });
      const fill = async () => {
        await page.getByRole('heading', { level: 2 }).first().waitFor();
        await field(page, 'forms.relation.label').fill('Cleaner');
        await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
        await field(page, 'forms.follow.password').fill('mop4');
        await field(page, 'forms.follow.confirm').fill('mop4');
        await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
      };
      await page.goto(strict.url('localhost', '/oral-report'));
      // The challenge is fetched when the form opens, before anything is typed.
      await expect.poll(() => challenges.length).toBe(1);
      await fill();
      await send(page, 'oral');
      const success = page.getByRole('dialog', { name: en['forms.success.oral.title'] });
      await success.waitFor();
      await page.keyboard.press('Escape');
      await page.goto(strict.url('localhost', '/oral-report'));
      await fill();
      await send(page, 'oral');
      const wait = page.getByRole('alertdialog', { name: en['forms.rateLimited.title'] });
      await wait.waitFor();
      await expect(wait.textContent()).resolves.toMatch(/Too many reports .* try again in \d+ minutes/);
      await expectNoAxeViolations(page, 'rate-limit dialog');
      await wait.getByRole('button', { name: en['forms.rateLimited.close'] }).click();
      await expect(field(page, 'forms.relation.label').inputValue()).resolves.toBe('Cleaner');
      await expect(field(page, 'forms.follow.password').inputValue()).resolves.toBe('mop4');
      await expect(page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).isChecked()).resolves.toBe(true);
      const cases = await strict.server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(cases.n)).toBe(1);
      expect(p.foreignRequests([strict.url('localhost', '/').slice(0, -1)])).toEqual([]);
      await p.close();
    } finally {
      await strict.server.cleanup();
    }
  });
});

describe('server failure', () => {
  it('the server stopped before sending: failure dialog, and the draft is kept', async () => {
    const { page } = await open('localhost', '/online-form');
    await field(page, 'forms.relation.label').fill('Temp worker');
    await field(page, 'forms.describe.description').fill('Safety rules ignored.');
    await step(page, 'describeProblem').getByRole('radio', { name: en['forms.no'] }).check();
    await page.getByRole('radio', { name: en['forms.related.company'] }).check();
    await field(page, 'forms.related.unit').fill('Site B');
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByRole('radio', { name: en['forms.follow.notFollow'] }).check();
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    await portal.server.stop();
    await send(page, 'online');
    const failure = page.getByRole('alertdialog', { name: en['dialog.failure.title'] });
    await failure.waitFor();
    // No answer at all: not "complete the form" (issue 42), but that the report did not reach us.
    await expect(failure.getByText(en['forms.failure.unreachable.text']!).isVisible()).resolves.toBe(true);
    await expectNoAxeViolations(page, 'failure dialog');
    await failure.getByRole('button', { name: en['dialog.failure.close'] }).click();
    await expect(field(page, 'forms.relation.label').inputValue()).resolves.toBe('Temp worker');
    await expect(field(page, 'forms.describe.description').inputValue()).resolves.toBe('Safety rules ignored.');
    await expect(field(page, 'forms.related.unit').inputValue()).resolves.toBe('Site B');
    await expect(page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: en['forms.send.online'] }).isEnabled()).resolves.toBe(true);
  });

  it('no page of the journeys made a request to another host', () => {
    for (const p of opened) {
      const origins = [portal.url('localhost', '/').slice(0, -1), portal.url('group.localhost', '/').slice(0, -1)];
      expect(p.foreignRequests(origins)).toEqual([]);
    }
  });
});
