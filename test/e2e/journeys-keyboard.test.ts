/**
 * The whole online form by keyboard alone (issue 7 item 4), in real Chromium against
 * the real server: no mouse event at all. Every stop of the Tab key, in the page and
 * in every dialog (validation, discard, success), must show a visible focus ring,
 * be on screen, and, while a dialog is open, be inside that dialog. The journey
 * touches every step, opens every dialog the online form has on the way, picks a
 * file through the keyboard-opened file chooser, and ends with a stored case.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, FileChooser, Page } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';

const I18N = path.resolve(import.meta.dirname, '../../src/i18n');
const read = (area: string) => JSON.parse(readFileSync(path.join(I18N, area, 'en.json'), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms') };
const msg = (key: string) => {
  const m = en[key];
  if (m === undefined) throw new Error(`no message ${key}`);
  return m;
};

let browser: Browser;
let portal: Portal;
let opened: OpenedPage | undefined;

beforeAll(async () => {
  portal = await startPortal();
  browser = await launchBrowser();
});
afterAll(async () => {
  await opened?.close().catch(() => {});
  await browser?.close();
  await portal?.server.cleanup();
});

interface FocusStop {
  what: string;
  ring: boolean;
  onScreen: boolean;
  inDialog: boolean | null; // null: no dialog open
}

/** What has the focus now, and whether a sighted keyboard user can see it. */
async function focusStop(page: Page): Promise<FocusStop> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { what: 'body', ring: false, onScreen: false, inDialog: null };
    const style = getComputedStyle(el);
    const transparent = (c: string) => /rgba\([^)]*,\s*0\)$/.test(c) || c === 'transparent';
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 && !transparent(style.outlineColor);
    const shadow = style.boxShadow !== 'none' && style.boxShadow !== '';
    const r = el.getBoundingClientRect();
    const onScreen = r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
    // The topmost open dialog: a confirmation stacked over another dialog is the one that holds the focus.
    const open = document.querySelectorAll('[role="dialog"][data-state="open"], [role="alertdialog"][data-state="open"]');
    const dialog = open.length ? open[open.length - 1]! : null;
    const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? '';
    const what = `${el.tagName.toLowerCase()}${el.getAttribute('type') ? `[type=${el.getAttribute('type')}]` : ''}${el.getAttribute('name') ? `[name=${el.getAttribute('name')}]` : ''} "${name}"`;
    return { what, ring: outline || shadow, onScreen, inDialog: dialog ? dialog.contains(el) : null };
  });
}

/** The keyboard, with every focus stop checked and recorded. */
function keyboard(page: Page) {
  const stops: FocusStop[] = [];
  const problems: string[] = [];
  const check = async (after: string) => {
    let stop = await focusStop(page);
    // A smooth scroll (to the first invalid step) may still be under way: looked at
    // again each frame, for up to a second, until the focus is on screen.
    for (const until = Date.now() + 1000; !stop.onScreen && Date.now() < until; ) {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
      stop = await focusStop(page);
    }
    stops.push(stop);
    if (stop.what === 'body') return; // Tab past the last element goes to the browser chrome
    if (!stop.ring) problems.push(`no visible focus on ${stop.what} (after ${after})`);
    if (!stop.onScreen) problems.push(`focus off screen on ${stop.what} (after ${after})`);
    if (stop.inDialog === false) problems.push(`focus left the open dialog for ${stop.what} (after ${after})`);
  };
  return {
    stops,
    problems,
    async press(key: string) {
      await page.keyboard.press(key);
      await check(key);
    },
    async type(text: string) {
      await page.keyboard.type(text);
    },
    /** Tab (or Shift+Tab) until `matches` holds for the focused element. */
    async tabTo(describe: string, matches: (el: HTMLElement) => boolean, opts: { back?: boolean; max?: number } = {}) {
      const key = opts.back ? 'Shift+Tab' : 'Tab';
      for (let i = 0; i < (opts.max ?? 60); i++) {
        const ok = await page.evaluate(`(${matches.toString()})(document.activeElement)`);
        if (ok) return;
        await this.press(key);
      }
      throw new Error(`${key} never reached ${describe}`);
    },
  };
}

const byLabel = (label: string) => {
  // Serialised into the page: the label text must be inlined.
  return new Function(
    'el',
    `const id = el && el.id; if (!id) return false; const l = document.querySelector('label[for="' + CSS.escape(id) + '"]'); return !!l && l.textContent.replace(/\\*$/, '').trim() === ${JSON.stringify(label)};`,
  ) as (el: HTMLElement) => boolean;
};
const byText = (text: string, tag = 'BUTTON') =>
  new Function('el', `return !!el && el.tagName === ${JSON.stringify(tag)} && el.textContent.trim() === ${JSON.stringify(text)};`) as (
    el: HTMLElement,
  ) => boolean;
const radioIn = (name: string) =>
  new Function('el', `return !!el && el.tagName === 'INPUT' && el.type === 'radio' && el.name === ${JSON.stringify(name)};`) as (
    el: HTMLElement,
  ) => boolean;
const checkboxNamed = (text: string) =>
  new Function(
    'el',
    `return !!el && el.type === 'checkbox' && !!el.closest('label') && el.closest('label').textContent.includes(${JSON.stringify(text)});`,
  ) as (el: HTMLElement) => boolean;

async function countCases(): Promise<number> {
  const row = await portal.server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('the online form by keyboard alone', () => {
  it('fills every step, opens every dialog, sends, with visible focus at every stop', async () => {
    opened = await openPage(browser, { locale: 'en-GB' });
    const { page } = opened;
    page.setDefaultTimeout(10_000);
    // Listening from the start: Playwright turns on file-chooser interception when a
    // listener is added, asynchronously, and a listener added just before the key
    // press could lose that race and miss the chooser.
    const choosers: FileChooser[] = [];
    page.on('filechooser', (c) => choosers.push(c));
    // Any mouse event on the page fails the journey.
    await page.addInitScript(() => {
      for (const type of ['mousedown', 'mouseup', 'click', 'pointerdown']) {
        window.addEventListener(
          type,
          (e) => {
            if ((e as PointerEvent).pointerType === 'mouse' || (e as MouseEvent).detail > 0) (window as any).__mouse = ((window as any).__mouse ?? 0) + 1;
          },
          true,
        );
      }
    });
    const casesBefore = await countCases();
    await page.goto(portal.url('group.localhost', '/online-form'));
    await page.locator('section[data-step]').first().waitFor();
    const kb = keyboard(page);

    // 1. Straight to Send with everything empty: terms first, then the validation dialog.
    await kb.tabTo('the follow choice', radioIn('follow'));
    await kb.press('Space'); // the first option: follow
    await kb.tabTo('the terms', checkboxNamed(msg('forms.terms.accept')));
    await kb.press('Space');
    await kb.tabTo('the password', byLabel(msg('forms.follow.password')));
    await kb.type('Keyboard-only-42');
    await kb.tabTo('the confirmation', byLabel(msg('forms.follow.confirm')));
    await kb.type('Keyboard-only-42');
    await kb.tabTo('Send', byText(msg('forms.send.online')));
    await kb.press('Enter');
    const validation = page.getByRole('alertdialog', { name: msg('dialog.validation.title') });
    await validation.waitFor();
    await kb.tabTo('OK in the validation dialog', byText(msg('dialog.validation.ok')), { max: 5 });
    await kb.press('Enter');
    await validation.waitFor({ state: 'detached' });
    // Spec §4: the focus goes to the first invalid step.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('step-protectionOfficer-heading');

    // 2. The steps, in order, forward from the first invalid one.
    await kb.tabTo('the officers', radioIn('protectionOfficer'));
    await kb.press('ArrowDown'); // the second officer
    await kb.tabTo('the relation', byLabel(msg('forms.relation.label')));
    await kb.type('Employee in finance');
    await kb.tabTo('the description', byLabel(msg('forms.describe.description')));
    await kb.type('Invoices were forged in the third quarter.');
    await kb.tabTo('repeated', radioIn('repeatedViolations'));
    await kb.press('Space');
    await kb.tabTo('concerns', radioIn('concerns'));
    await kb.press('Space'); // persons
    await kb.tabTo('the person name', byLabel(msg('forms.related.name')));
    await kb.type('Per Hansen');
    await kb.press('Tab');
    await kb.type('Finance director');
    await kb.press('Tab');
    await kb.type('per@example.com');
    await kb.tabTo('Add person', byText(msg('forms.related.add')));
    await kb.press('Enter');
    await page.getByRole('list', { name: msg('forms.related.added') }).waitFor();

    // 3. The discard dialog: switching to a company would drop the person.
    await kb.tabTo('concerns again', radioIn('concerns'), { back: true });
    await kb.press('ArrowDown');
    const discard = page.getByRole('alertdialog', { name: msg('dialog.discard.title') });
    await discard.waitFor();
    await kb.tabTo('Back in the discard dialog', byText(msg('dialog.discard.back')), { max: 5 });
    await kb.press('Enter');
    await discard.waitFor({ state: 'detached' });
    await expect(page.getByRole('radio', { name: msg('forms.related.persons') }).isChecked()).resolves.toBe(true);
    // The dialog hands the focus back to what had it (the radio the arrow key moved
    // to), not to <body>: the keyboard user goes on from where they were.
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type))
      .toBe('radio');

    // 4. A document through the file chooser the keyboard opens.
    await kb.tabTo('Choose files', byText(msg('forms.documents.choose')));
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe(msg('forms.documents.choose'));
    await kb.press('Enter');
    await expect.poll(() => choosers.length).toBe(1);
    await choosers[0]!.setFiles({ name: 'ledger.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n% keyboard journey\n') });
    await page.getByRole('button', { name: msg('forms.documents.remove').replace('{name}', 'ledger.pdf') }).waitFor();

    // 5. Identity: revealed, name and e-mail.
    await kb.tabTo('identity', radioIn('identity'));
    await kb.press('Space'); // reveal
    await kb.tabTo('the name', byLabel(msg('forms.identity.name')));
    await kb.type('Ida Jensen');
    await kb.tabTo('the e-mail', byLabel(msg('forms.identity.email')));
    await kb.type('ida@example.com');

    // 6. Send, and the success dialog: copy the case number, then leave with Escape.
    await kb.tabTo('Send', byText(msg('forms.send.online')));
    await kb.press('Enter');
    const success = page.getByRole('dialog', { name: msg('forms.success.online.title') });
    await success.waitFor();
    await kb.tabTo('Copy in the success dialog', byText(msg('forms.success.copy')), { max: 10 });
    await kb.press('Enter');
    await expect.poll(() => success.getByRole('status').textContent()).toBe(msg('forms.success.copied'));
    await kb.tabTo('Log in in the success dialog', byText(msg('forms.success.login')), { max: 10 });
    const caseNumber = (await success.getByTestId('case-number').textContent())!.replace(/\s/g, '');
    expect(caseNumber).toMatch(/^\d{16}$/);
    // Escape asks before the number is gone; the keyboard confirms.
    await kb.press('Escape');
    const confirm = page.getByRole('alertdialog', { name: msg('forms.success.closeConfirm.title') });
    await confirm.waitFor();
    await kb.tabTo('Yes, close in the confirmation', byText(msg('forms.success.closeConfirm.close')), { max: 4 });
    await kb.press('Enter');
    await page.waitForURL(portal.url('group.localhost', '/'));

    // Every focus stop was visible, on screen and inside the open dialog.
    expect(kb.problems).toEqual([]);
    expect(kb.stops.filter((s) => s.inDialog === true).length, 'focus stops inside dialogs').toBeGreaterThanOrEqual(3);
    expect(kb.stops.length).toBeGreaterThan(30);
    expect(await page.evaluate(() => (window as any).__mouse ?? 0), 'mouse events').toBe(0);
    expect(await countCases()).toBe(casesBefore + 1);
    const stored = await portal.server.ctx.db.selectFrom('report_case').select(['case_number']).where('case_number', '=', caseNumber).execute();
    expect(stored).toHaveLength(1);
  });
});
