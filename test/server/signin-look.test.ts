/**
 * The sign-in pages look like the portal and keep the reporter going (issue 17 §2),
 * over HTTP against the real server and provider: the company's logo or name and
 * colours, the language switch (this same page in the company's languages), the
 * case number kept after a refusal, a paused sign-in that says for how long, and
 * 48 px inputs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, MOUNT, formAction, newCase, openSignIn } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { LANGUAGES } from '../../machines/schema.ts';
import { readFileSync } from 'node:fs';

const catalogue = (lang: string) => JSON.parse(readFileSync(new URL(`../../server/idp/i18n/${lang}.json`, import.meta.url), 'utf8')) as Record<string, string>;
const de_texts = catalogue('de');

let server: TestServer;
beforeAll(async () => {
  // Quick delays; a lock after 3 failures that lasts 15 minutes.
  server = await startTestServer({ identity: { throttle: { delayBaseMs: 5, maxDelayMs: 10, freeFailures: 1, lockAfter: 3, lockMs: 15 * 60_000 } } });
});
afterAll(async () => server?.cleanup());

/** The value attribute of an input, or null when it has none. */
function inputValue(html: string, id: string): string | null {
  const tag = new RegExp(`<input id="${id}"[^>]*>`).exec(html)?.[0];
  expect(tag, `input #${id}`).toBeTruthy();
  return / value="([^"]*)"/.exec(tag!)?.[1] ?? null;
}
const hasAutofocus = (html: string, id: string) => / autofocus/.test(new RegExp(`<input id="${id}"[^>]*>`).exec(html)![0]);
const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

describe('the sign-in page looks like the portal', () => {
  it("shows the company's logo or name in the top bar, and its colours", async () => {
    const b = new Browser(server);
    const { page } = await openSignIn(b, { uiLocales: 'en' });
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;
    const bar = /<header class="bar">([\s\S]*?)<\/header>/.exec(page.text)![1]!;
    if (company.settings.logoFileName) expect(bar).toContain(`<img src="/api/public/site-look-and-feel/logo/${encodeURIComponent(company.settings.logoFileName)}"`);
    else expect(bar).toContain(`<a class="brand" href="/">${company.name}</a>`);
    expect(page.text).toContain(`<link rel="stylesheet" href="${MOUNT}/assets/theme.css">`);
    const theme = await b.get(`${MOUNT}/assets/theme.css`);
    expect(theme.text).toMatch(/--wb-primary: #[0-9a-f]{6}/i);
    // Nothing from another host: every src and href is a path on this origin, or the
    // empty icon that keeps the browser from asking for /favicon.ico.
    for (const m of page.text.matchAll(/(?:src|href)="([^"]*)"/g)) expect(m[1]!.startsWith('/') || m[1]!.startsWith('#') || m[1] === 'data:,', m[1]).toBe(true);
    expect(page.text).toContain('<link rel="icon" href="data:,">');
  });

  it('has a language switch: links to this same page in each of the company\'s languages', async () => {
    const b = new Browser(server);
    const { page, interactionUrl } = await openSignIn(b, { uiLocales: 'en' });
    const company = (await companyByHost(server.ctx.db, 'localhost'))!;
    const offered = LANGUAGES.filter((l) => !company.settings.languages?.length || company.settings.languages.includes(l));
    expect(offered.length).toBeGreaterThan(1);
    const nav = /<nav class="languages" aria-label="Language">([\s\S]*?)<\/nav>/.exec(page.text)?.[1];
    expect(nav).toBeTruthy();
    const links = [...nav!.matchAll(/<a href="([^"]*)" lang="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => ({ href: m[1]!.replace(/&amp;/g, '&'), lang: m[2] }));
    expect(links.map((l) => l.lang)).toEqual(offered.map((l) => (l === 'se' ? 'sv' : l)));
    expect(nav).toMatch(/<a href="[^"]*ui_locales=en" lang="en" hreflang="en" aria-current="page">English<\/a>/);
    // Following the German link: the same sign-in, in German, and the form posts back in German.
    const de = links.find((l) => l.lang === 'de');
    expect(de, 'a German link').toBeTruthy();
    if (!de) return;
    expect(new URL(de.href, b.origin).pathname).toBe(interactionUrl);
    const german = await b.get(de.href);
    expect(german.status).toBe(200);
    expect(german.text).toContain('<html lang="de">');
    expect(h1(german.text)).toBe(de_texts['signin.heading']);
    expect(formAction(german.text)).toMatch(/\/login\?ui_locales=de$/);
    const refused = await b.postForm(formAction(german.text), { caseNumber: '1234 5678 9012 3456', password: 'wrong' });
    expect(refused.text).toContain('<html lang="de">');
  });
});

describe('a refused sign-in', () => {
  it('keeps the typed case number and puts the focus on the password, which is never echoed', async () => {
    const b = new Browser(server);
    const caseNumber = await newCase(server, { password: 'right-pass' });
    const { page } = await openSignIn(b, { uiLocales: 'en' });
    const typed = `${caseNumber.slice(0, 4)} ${caseNumber.slice(4, 8)} ${caseNumber.slice(8, 12)} ${caseNumber.slice(12)}`;
    const res = await b.postForm(formAction(page.text), { caseNumber: typed, password: 'wrong-pass' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('The case number or password is not correct.');
    expect(inputValue(res.text, 'caseNumber')).toBe(typed);
    expect(inputValue(res.text, 'password')).toBeNull();
    expect(res.text).not.toContain('wrong-pass');
    expect(hasAutofocus(res.text, 'password')).toBe(true);
    expect(hasAutofocus(res.text, 'caseNumber')).toBe(false);
    // And the kept number signs in with the right password.
    const ok = await b.postForm(formAction(res.text), { caseNumber: inputValue(res.text, 'caseNumber')!, password: 'right-pass' });
    expect(ok.status).toBe(303);
  });

  it('escapes what was typed', async () => {
    const b = new Browser(server);
    const { page } = await openSignIn(b, { uiLocales: 'en' });
    const res = await b.postForm(formAction(page.text), { caseNumber: '"><script>x</script>', password: 'p' });
    expect(res.text).not.toContain('<script>x</script>');
    expect(inputValue(res.text, 'caseNumber')).toBe('&quot;&gt;&lt;script&gt;x&lt;/script&gt;');
  });

  it('says how long a paused sign-in stays paused, in the reporter\'s language', async () => {
    const caseNumber = await newCase(server, { password: 'right-pass' });
    const b = new Browser(server);
    const { page } = await openSignIn(b, { uiLocales: 'en' });
    let html = page.text;
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await b.postForm(formAction(html), { caseNumber, password: i < 3 ? 'wrong-pass' : 'right-pass' });
      expect(res.status).toBe(400);
      html = res.text;
      answers.push(/<div id="form-error" class="alert" role="alert">([^<]*)<\/div>/.exec(html)![1]!);
    }
    expect(answers[0]).toBe('The case number or password is not correct. Check both and try again.');
    // The third failure locks; it and the right password after it are told the pause.
    expect(answers[2]).toContain('paused for 15 minutes');
    expect(answers[3]).toMatch(/paused for 1[45] minutes/);
    // Another browser, same typed number: the pause is the number's, and is said in Danish.
    const other = new Browser(server);
    const danish = await openSignIn(other, { uiLocales: 'da' });
    const da = await other.postForm(formAction(danish.page.text), { caseNumber, password: 'right-pass' });
    expect(da.text).toMatch(/sat på pause i 1[45] minutter/);
  });
});

describe('the inputs', () => {
  it('are at least 48 px high, and so are the buttons', async () => {
    const css = (await new Browser(server).get(`${MOUNT}/assets/idp.css`)).text;
    expect(/\ninput \{[^}]*min-height: 48px/.test(css)).toBe(true);
    expect(/\nbutton \{[^}]*min-height: 48px/.test(css)).toBe(true);
  });
});
