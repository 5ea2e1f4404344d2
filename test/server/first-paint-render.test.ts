/**
 * The server's first paint (src/ssr.tsx, docs/decisions/first-paint.md): the HTML of
 * a public page carries a picture of its first screen, drawn by the SPA's own
 * components from the built bundle (dist/.ssr), in the page's language and the
 * company's colours, before any script runs. Needs `npm run build` (npm test runs it).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCompany, validateBundle } from '../../server/companies/service.ts';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { companyFixture } from './fixtures/company.ts';
import { EARLY_READ_JS } from '../../core/earlyReadScript.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dist = path.join(root, 'dist');
const built = existsSync(path.join(dist, '.ssr', 'ssr.js'));

let server: TestServer;
beforeAll(async () => {
  if (!built) throw new Error('dist/.ssr/ssr.js is missing: run `npm run build` first (npm test does)');
  server = await startTestServer({ distDir: dist });
  const f = companyFixture({ id: 'painted', hosts: ['painted.test'], languages: ['da', 'en', 'de'] });
  for (const lang of ['da', 'en', 'de'] as const) {
    const laf = f.file.lookAndFeel[lang]!;
    laf.siteFrontPage.heading = `Heading in ${lang} </script><script>alert(1)</script>`;
  }
  f.file.siteColors.primaryColorCode = '#7a1f5c';
  await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
});
afterAll(async () => {
  await server?.cleanup();
});

const catalogue = (area: string, lang: string) => JSON.parse(readFileSync(path.join(root, 'src/i18n', area, `${lang}.json`), 'utf8')) as Record<string, string>;
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The CSP sources of a page's import maps (server/integrity.ts): inline scripts of
 * data, never run, that pin every chunk the page's scripts can import by its digest
 * (the first load's in the head, the later chunks' at the body's end).
 */
function importMapSources(html: string): string[] {
  const maps = [...html.matchAll(/<script type="importmap">([^<]*)<\/script>/g)].map((m) => m[1]!);
  expect(maps.length, 'the page has import maps').toBeGreaterThan(0);
  return maps.map((map) => `'sha256-${createHash('sha256').update(map).digest('base64')}'`);
}
/** Inline scripts that run: neither data (the boot JSON) nor the import map. */
const RUNNING_INLINE = /<script(?![^>]*\bsrc=)(?![^>]*type="(?:application\/json|importmap)")[^>]*>([\s\S]*?)<\/script>/g;

async function page(p: string, lang: string, host = 'painted.test') {
  const res = await fetch(`${server.url}${p}`, { headers: { 'accept-language': lang, 'x-company-host': host } });
  const html = await res.text();
  const picture = /<div id="wb-first-paint" aria-hidden="true" inert>([\s\S]*)<\/div><div id="root" hidden><\/div>/.exec(html)?.[1];
  return { res, html, picture };
}

describe('the first paint in index.html', () => {
  it('draws the landing in the browser language and the company colours, as a picture hidden from assistive technology', async () => {
    const { res, html, picture } = await page('/', 'en-GB,en;q=0.9');
    expect(res.status).toBe(200);
    expect(picture).toBeDefined();
    // The company's heading, escaped by React: company texts cannot become markup.
    expect(picture).toContain(escapeHtml('Heading in en </script><script>alert(1)</script>'));
    expect(html).not.toContain('<script>alert(1)');
    // Drawn in place inside <main>, not as a hidden segment for a script to move.
    const main = /<main[^>]*>([\s\S]*?)<\/main>/.exec(picture!)?.[1] ?? '';
    expect(main).toContain(escapeHtml('Heading in en '));
    expect(picture).not.toMatch(/<template|<div hidden/);
    expect(picture).toContain(escapeHtml(catalogue('common', 'en')['frame.quickExit']!));
    expect(html).toMatch(/<html lang="en" style="[^"]*--wb-color-primary:#7a1f5c/);
    // A picture, not a second page: no scripts, ids, test ids or field names in it.
    expect(picture).not.toMatch(/<script|\sid="|data-testid=|\sname="/);
    // Hidden from nothing but the page a quick exit leaves from (src/app/quickExit.ts).
    expect(html).toMatch(/<head>[\s\S]*<script>try\{if\(sessionStorage\.getItem\("quick-exit"\)[\s\S]*<\/head>/);
  });

  it('draws the online form heading and introduction in the form catalogue of the page language', async () => {
    const { picture } = await page('/online-form', 'de');
    const forms = catalogue('forms', 'de');
    expect(picture).toContain(escapeHtml(forms['forms.online.title']!));
    expect(picture).toContain(escapeHtml(catalogue('common', 'de')['frame.quickExit']!));
    expect(picture).toMatch(new RegExp(`<h1[^>]*>${escapeHtml(forms['forms.online.title']!)}</h1>`));
    // The form itself as loading, not its seven steps: a picture answers no tap, and
    // the steps would cost a slow phone's first paint (performance.md, fourteenth round).
    expect(picture).toContain(escapeHtml(forms['forms.loading']!));
    expect(picture).not.toContain(escapeHtml(forms['forms.step.counter']!.replace('{n}', '1').split('{')[0]!.trim()));
    expect(picture).not.toMatch(/<input|<textarea|<button[^>]*type="submit"/);
  });

  it('loads the SPA with the HTML, as a page without a picture does', async () => {
    // A report form is answered with the report forms' own page (report-entry.md),
    // whose entry holds the form's route component: one script, nothing beside it.
    const builtReport = readFileSync(path.join(dist, 'report.html'), 'utf8');
    const entry = /<script type="module" crossorigin src="([^"]+)">/.exec(builtReport)![1]!;
    const { html } = await page('/online-form', 'en');
    const manifest = JSON.parse(readFileSync(path.join(dist, 'manifest-sha256.json'), 'utf8')) as { files: Record<string, string> };
    const integrity = `sha256-${Buffer.from(manifest.files[entry]!, 'hex').toString('base64')}`;
    expect(html).toContain(`<script type="module" crossorigin src="${entry}" integrity="${integrity}"></script>`);
    const grouped = JSON.parse(readFileSync(path.join(dist, '.vite/grouped-routes-report.json'), 'utf8')) as Record<string, string>;
    expect(grouped['src/routes/online-form.tsx?tsr-split=component']).toBe('report.html');
    // Nothing beside the entry but, where a lazily loaded chunk shares them, rolldown's
    // runtime helpers (CommonJS interop, under 1 kB), fetched in parallel with it
    // (report-entry.md "What holds now").
    const preloads = [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)"/g)].map((m) => m[1]!);
    expect(preloads.filter((href) => !/^\/assets\/rolldown-runtime-[\w-]+\.js$/.test(href))).toEqual([]);
    for (const href of preloads) expect(readFileSync(path.join(dist, href)).length).toBeLessThan(2048);
    // The one stylesheet is in the head, not a render-blocking file of its own.
    expect(html).not.toMatch(/<link rel="stylesheet"/);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(style.length).toBeGreaterThan(1000);
    // The picture's classes are styled by it.
    const someClass = /class="([\w-]+)/.exec(/id="wb-first-paint"[^>]*>([\s\S]*)<div id="root"/.exec(html)![1]!)![1]!;
    expect(style).toContain(`.${someClass}`);
  });

  it('puts the address the SPA will call into the picture, whatever it was drawn with', async () => {
    const { html, picture } = await page('/', 'en');
    const boot = JSON.parse(/id="wb-boot">([^<]*)</.exec(html)![1]!) as { config: { api: { protocol: string; host: string; port: number } } };
    const { protocol, host, port } = boot.config.api;
    expect(picture).toContain(`src="${protocol}://${host}:${port}/api/public/site-look-and-feel/logo/`);
    expect(picture).not.toContain('wb-first-paint.invalid');
  });

  it('draws nothing for the private area, an unknown path or an unknown company', async () => {
    for (const [p, host] of [['/private/status', 'painted.test'], ['/no-such-page', 'painted.test'], ['/faq/made-up', 'painted.test'], ['/', 'nobody.test']] as const) {
      const { res, html, picture } = await page(p, 'da', host);
      expect(res.status).toBe(200);
      expect(picture, `${host}${p}`).toBeUndefined();
      // A private page says what is happening until its script runs; the others are empty.
      expect(html).toContain(p.startsWith('/private/') ? '<div id="root"><p role="status" class="wb-opening">' : '<div id="root"></div>');
      expect(html).not.toContain('"quick-exit"');
      if (p.startsWith('/private/')) continue; // its head starts the early read (below)
      expect(html).not.toContain('sessionStorage');
      expect(/script-src ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')![1]!.split(' ')).toEqual(["'self'", "'wasm-unsafe-eval'", ...importMapSources(html)]);
    }
  });

  it('starts a private page’s first reads from its head, the one inline script, allowed by its hash alone', async () => {
    for (const p of ['/private/status', '/private/messages', '/private']) {
      const { res, html } = await page(p, 'da');
      const csp = res.headers.get('content-security-policy') ?? '';
      const inline = [...html.matchAll(RUNNING_INLINE)].map((m) => m[1]!);
      expect(inline, p).toEqual([EARLY_READ_JS]);
      // After the boot data it reads.
      expect(html.indexOf(EARLY_READ_JS)).toBeGreaterThan(html.indexOf('id="wb-boot"'));
      const hash = `'sha256-${createHash('sha256').update(EARLY_READ_JS).digest('base64')}'`;
      expect(/script-src ([^;]*)/.exec(csp)![1]!.split(' ')).toEqual(["'self'", "'wasm-unsafe-eval'", ...importMapSources(html), hash]);
      // The private page's own entry (src/entries/private.ts) holds its layout. Showing
      // the page needs the stored session, not the OpenID client: it comes later.
      expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/private-[\w-]+\.js" integrity="sha256-[\w+/=]+"><\/script>/);
      expect(html).not.toMatch(/rel="modulepreload"[^>]*oidc-client-ts/);
    }
    // The sign-in callback completes a sign-in: no early read, no inline script.
    const callback = await page('/private/callback', 'da');
    expect(callback.html).not.toContain(EARLY_READ_JS);
    expect(/script-src ([^;]*)/.exec(callback.res.headers.get('content-security-policy') ?? '')![1]!.split(' ')).toEqual(["'self'", "'wasm-unsafe-eval'", ...importMapSources(callback.html)]);
  });

  it('keeps the CSP strict: the quick-exit gate is the one inline script, allowed by its hash alone', async () => {
    const { res, html } = await page('/', 'da');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const inline = [...html.matchAll(RUNNING_INLINE)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    expect(inline[0]).toContain('sessionStorage.getItem("quick-exit")');
    const hash = `'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`;
    expect(/script-src ([^;]*)/.exec(csp)![1]!.split(' ')).toEqual(["'self'", "'wasm-unsafe-eval'", ...importMapSources(html), hash]);
  });

  it('draws a re-imported company anew', async () => {
    const f = companyFixture({ id: 'painted', hosts: ['painted.test'], languages: ['da'] });
    f.file.lookAndFeel.da!.siteFrontPage.heading = 'A new heading';
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    const { picture } = await page('/', 'da');
    expect(picture).toContain('A new heading');
  });

  it('does not serve the first-paint bundle', async () => {
    const res = await fetch(`${server.url}/.ssr/ssr.js`);
    expect(await res.text()).not.toContain('renderFirstPaint');
  });
});
