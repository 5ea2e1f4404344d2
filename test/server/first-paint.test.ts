/**
 * No waterfall: index.html arrives with what the first paint needs (runtime config,
 * look and feel and company info as inline JSON, the route's chunks and the logo
 * preloaded), under the same CSP as before.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { browserLanguage } from '../../server/spa.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCompany, validateBundle } from '../../server/companies/service.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { companyFixture } from './fixtures/company.ts';

const INDEX = `<!doctype html>
<html lang="da">
  <head>
    <meta name="description" content="generic" />
    <title>spa</title>
    <script type="module" crossorigin src="/assets/index-AAAA.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/react-BBBB.js">
  </head>
  <body><div id="root"></div></body>
</html>`;

const MANIFEST = {
  'index.html': { file: 'assets/index-AAAA.js', isEntry: true, imports: ['_react-BBBB.js'], dynamicImports: ['src/i18n/common/da.json', 'src/i18n/common/en.json', 'node_modules/intl-messageformat/lib/index.js'], css: ['assets/index-CCCC.css'] },
  'node_modules/intl-messageformat/lib/index.js': { file: 'assets/intl-messageformat-JJJJ.js', isDynamicEntry: true },
  '_react-BBBB.js': { file: 'assets/react-BBBB.js' },
  '_form-DDDD.js': { file: 'assets/form-DDDD.js', imports: ['_react-BBBB.js'], dynamicImports: ['src/i18n/forms/da.json', 'src/i18n/forms/en.json', 'src/i18n/metadata/en.json'], css: ['assets/form-EEEE.css'] },
  'src/i18n/metadata/en.json': { file: 'assets/en-metadata.js', isDynamicEntry: true },
  'src/i18n/common/da.json': { file: 'assets/da-common.js', isDynamicEntry: true },
  'src/i18n/common/en.json': { file: 'assets/en-common.js', isDynamicEntry: true },
  'src/i18n/forms/da.json': { file: 'assets/da-forms.js', isDynamicEntry: true },
  'src/i18n/forms/en.json': { file: 'assets/en-forms.js', isDynamicEntry: true },
  'src/routes/index.tsx?tsr-split=component': { file: 'assets/routes-FFFF.js', isDynamicEntry: true, imports: ['index.html'] },
  'src/routes/online-form.tsx?tsr-split=component': { file: 'assets/online-form-GGGG.js', isDynamicEntry: true, imports: ['_form-DDDD.js', 'index.html'] },
  'src/routes/private.tsx?tsr-split=component': { file: 'assets/private-HHHH.js', isDynamicEntry: true, imports: ['index.html'] },
  'src/routes/private/status.tsx?tsr-split=component': { file: 'assets/status-IIII.js', isDynamicEntry: true, imports: ['index.html'] },
};

let server: TestServer;
let dist: string;
beforeAll(async () => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'wb-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  mkdirSync(path.join(dist, '.vite'));
  writeFileSync(path.join(dist, 'index.html'), INDEX);
  writeFileSync(path.join(dist, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
  server = await startTestServer({ distDir: dist });
});
afterAll(async () => {
  await server?.cleanup();
  rmSync(dist, { recursive: true, force: true });
});

async function page(p: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${p}`, { headers });
  const html = await res.text();
  const m = /<script type="application\/json" id="wb-boot">([^<]*)<\/script>/.exec(html);
  return { res, html, boot: m ? JSON.parse(m[1]!) : undefined };
}

describe('index.html for the first paint', () => {
  it('inlines the runtime config, look and feel and company info the API would answer', async () => {
    const { res, html, boot } = await page('/', { 'accept-language': 'en-GB,en;q=0.9,da;q=0.8' });
    expect(res.status).toBe(200);
    const api = (p: string) => fetch(`${server.url}${p}`).then((r) => r.json());
    expect(boot.config).toEqual(await api('/config/config.json'));
    expect(boot.language).toBe('en');
    expect(boot.lookAndFeel).toEqual(await api('/api/public/site-look-and-feel/language/en'));
    expect(boot.companyInfo).toEqual(await api('/api/public/case/company-info'));
    expect(html).toMatch(/<html lang="en">/);
    expect(html).toContain(`<link rel="preload" as="image" href="/api/public/site-look-and-feel/logo/${boot.lookAndFeel.logoFileName}">`);
    // The company's own words describe the page.
    expect(html).toContain(`<meta name="description" content="${boot.lookAndFeel.siteFrontPage.subHeading.replace(/&/g, '&amp;')}"`);
  });

  it('keeps the CSP without unsafe-inline: the inline data is JSON, not script', async () => {
    const { res } = await page('/');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('asks for the language the SPA will ask for: the first supported browser language, else Danish', async () => {
    expect((await page('/', { 'accept-language': 'fr-FR,sv;q=0.8' })).boot.language).toBe('se');
    expect((await page('/', { 'accept-language': 'nb-NO' })).boot.language).toBe('no');
    const none = await page('/', { 'accept-language': 'fr' });
    expect(none.boot.language).toBe('da');
    expect(none.boot.lookAndFeel.languageCode).toBe('da');
  });

  it('takes a damaged company row (languages not a list) as no company: the browser language, else Danish', () => {
    const damaged = { languages: 42, defaultLanguage: 7 } as unknown as { languages: string[]; defaultLanguage: string };
    expect(browserLanguage('en-GB,en;q=0.9', damaged)).toBe('en');
    expect(browserLanguage('fr-FR', damaged)).toBe('da');
  });

  it('gives an unsupported browser language the company default language, not Danish (issue 42)', async () => {
    // group.localhost (seeded) offers all seven languages and defaults to English.
    for (const header of ['fr-FR,fr;q=0.9', 'it-IT', '']) {
      const { html, boot } = await page('/', { 'x-company-host': 'group.localhost', ...(header ? { 'accept-language': header } : {}) });
      expect(boot.language, header).toBe('en');
      expect(boot.lookAndFeel.languageCode, header).toBe('en');
      expect(html, header).toMatch(/<html lang="en"/);
    }
    expect((await page('/', { 'x-company-host': 'group.localhost', 'accept-language': 'fr-FR,pl;q=0.5' })).boot.language).toBe('pl');
    // A company that does not offer the browser's (supported) language: its default, not Danish.
    const f = companyFixture({ id: 'english-only', hosts: ['english.test'], languages: ['en', 'da'] });
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    const de = await page('/', { 'x-company-host': 'english.test', 'accept-language': 'de-DE' });
    expect(de.boot.language).toBe('en');
    expect(de.boot.lookAndFeel.languageCode).toBe('en');
    // The API's `?orDefault=true` keeps one answer for any code the company does not offer.
    const api = await fetch(`${server.url}/api/public/site-look-and-feel/language/zz-made-up?orDefault=true`, { headers: { 'x-company-host': 'english.test' } });
    expect(api.status).toBe(200);
    expect((await api.json()).languageCode).toBe('en');
  });

  it('preloads the route chunks, their imports, CSS and catalogues, and nothing index.html loads already', async () => {
    const { html } = await page('/online-form', { 'accept-language': 'en' });
    // The forms' catalogue needs the ICU formatter: it comes with the route, not after the catalogue.
    for (const f of ['online-form-GGGG.js', 'form-DDDD.js', 'en-common.js', 'en-forms.js', 'intl-messageformat-JJJJ.js']) expect(html).toContain(`<link rel="modulepreload" crossorigin href="/assets/${f}">`);
    expect(html).toContain('<link rel="stylesheet" crossorigin href="/assets/form-EEEE.css">');
    expect(html).not.toContain('da-forms.js');
    // The hidden-data check's texts show only once a file is attached: not with the first screen.
    expect(html).not.toContain('en-metadata.js');
    expect(html).not.toContain('routes-FFFF.js');
    expect(html.match(/react-BBBB\.js/g)).toHaveLength(1);
    expect(html).not.toContain('index-CCCC.css');

    const landing = await page('/', { 'accept-language': 'da' });
    expect(landing.html).toContain('href="/assets/routes-FFFF.js"');
    expect(landing.html).toContain('href="/assets/da-common.js"');
    expect(landing.html).not.toContain('online-form-GGGG.js');
    // `common` needs no ICU: the landing does not load the formatter.
    expect(landing.html).not.toContain('intl-messageformat');

    const status = await page('/private/status');
    expect(status.html).toContain('href="/assets/private-HHHH.js"');
    expect(status.html).toContain('href="/assets/status-IIII.js"');
  });

  it('inlines no company data for an unknown host, and the SPA fetches as before', async () => {
    const { res, boot, html } = await page('/', { 'x-company-host': 'nobody.test' });
    expect(res.status).toBe(200);
    expect(boot.lookAndFeel).toBeNull();
    expect(boot.companyInfo).toBeNull();
    expect(boot.config.api.host).toBe('127.0.0.1');
    expect(html).not.toContain('rel="preload" as="image"');
  });

  it('cannot be broken out of by company texts', async () => {
    const f = companyFixture({ id: 'tricky', hosts: ['tricky.test'], languages: ['da'] });
    const da = f.file.lookAndFeel.da!;
    da.siteFrontPage.heading = '</script><script>alert(1)</script>';
    da.siteFrontPage.subHeading = '"><img src=x onerror=alert(1)> & more';
    await importCompany(server.ctx.db, validateBundle(f.file, f.assets));
    const { html, boot } = await page('/', { 'x-company-host': 'tricky.test' });
    expect(boot.lookAndFeel.siteFrontPage.heading).toBe('</script><script>alert(1)</script>');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('content="&quot;&gt;&lt;img src=x onerror=alert(1)&gt; &amp; more"');
  });

  it('does not serve the build manifest', async () => {
    const res = await fetch(`${server.url}/.vite/manifest.json`);
    expect(await res.text()).not.toContain('tsr-split');
  });
});

describe('a build with its catalogues as data and a grouped route (issue 13)', () => {
  let built: TestServer;
  let dir: string;
  const COMMON_EN = { 'frame.login': 'Log in' };
  // A plural, as the build writes it: intl-messageformat's parsed form.
  const FORMS_EN = { 'forms.files': [{ type: 6, value: 'n', options: { one: { value: [{ type: 0, value: 'one file' }] } }, offset: 0, pluralType: 'cardinal' }] };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'wb-dist-'));
    mkdirSync(path.join(dir, 'assets'));
    mkdirSync(path.join(dir, '.vite', 'catalogues', 'common'), { recursive: true });
    mkdirSync(path.join(dir, '.vite', 'catalogues', 'forms'), { recursive: true });
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    // The private layout and its status page live in one group chunk, which the
    // manifest names only by itself.
    const manifest: Record<string, unknown> = { ...MANIFEST, '_private-KKKK.js': { file: 'assets/private-KKKK.js', imports: ['index.html'] } };
    // German: a forms catalogue too large for the page's first round trip.
    manifest['index.html'] = { ...MANIFEST['index.html'], dynamicImports: [...MANIFEST['index.html'].dynamicImports, 'src/i18n/common/de.json'] };
    manifest['_form-DDDD.js'] = { ...MANIFEST['_form-DDDD.js'], dynamicImports: [...MANIFEST['_form-DDDD.js'].dynamicImports, 'src/i18n/forms/de.json'] };
    manifest['src/i18n/common/de.json'] = { file: 'assets/de-common.js', isDynamicEntry: true };
    manifest['src/i18n/forms/de.json'] = { file: 'assets/de-forms.js', isDynamicEntry: true };
    delete manifest['src/routes/private.tsx?tsr-split=component'];
    delete manifest['src/routes/private/status.tsx?tsr-split=component'];
    writeFileSync(path.join(dir, '.vite', 'manifest.json'), JSON.stringify(manifest));
    writeFileSync(
      path.join(dir, '.vite', 'grouped-routes.json'),
      JSON.stringify({ 'src/routes/private.tsx?tsr-split=component': '_private-KKKK.js', 'src/routes/private/status.tsx?tsr-split=component': '_private-KKKK.js', 'src/routes/nowhere.tsx?tsr-split=component': '_missing.js' }),
    );
    writeFileSync(path.join(dir, '.vite', 'catalogues', 'common', 'en.json'), JSON.stringify(COMMON_EN));
    writeFileSync(path.join(dir, '.vite', 'catalogues', 'forms', 'en.json'), JSON.stringify(FORMS_EN));
    writeFileSync(path.join(dir, '.vite', 'catalogues', 'common', 'de.json'), JSON.stringify({ 'frame.login': 'Anmelden' }));
    writeFileSync(path.join(dir, '.vite', 'catalogues', 'forms', 'de.json'), JSON.stringify({ 'forms.noise': randomBytes(12_000).toString('base64') }));
    // Not a catalogue: the chunk is preloaded as before.
    writeFileSync(path.join(dir, '.vite', 'catalogues', 'common', 'da.json'), '["not", "a catalogue"]');
    built = await startTestServer({ distDir: dir });
  });
  afterAll(async () => {
    await built?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = async (p: string, lang: string) => {
    const html = await (await fetch(`${built.url}${p}`, { headers: { 'accept-language': lang } })).text();
    const m = /<script type="application\/json" id="wb-boot">([^<]*)<\/script>/.exec(html);
    return { html, boot: JSON.parse(m![1]!) as { catalogues?: Record<string, unknown> } };
  };

  it('writes the route’s catalogues into the boot data instead of preloading their chunks', async () => {
    const form = await get('/online-form', 'en');
    expect(form.boot.catalogues).toEqual({ 'common/en': COMMON_EN, 'forms/en': FORMS_EN });
    expect(form.html).not.toContain('en-common.js');
    expect(form.html).not.toContain('en-forms.js');
    // The route's chunks still come, and the formatter the forms' plurals need with them.
    for (const f of ['online-form-GGGG.js', 'form-DDDD.js', 'intl-messageformat-JJJJ.js']) expect(form.html).toContain(`<link rel="modulepreload" crossorigin href="/assets/${f}">`);
  });

  it('leaves out a catalogue that would push the page past the first round trip (≈ 14 kB compressed), and preloads it', async () => {
    // The bytes on the wire (fetch would decompress them).
    const wire = await new Promise<{ encoding: string | undefined; bytes: number }>((resolve, reject) => {
      http.get(`${built.url}/online-form`, { headers: { 'accept-language': 'de', 'accept-encoding': 'br' } }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes }));
      }).on('error', reject);
    });
    expect(wire.encoding).toBe('br');
    expect(wire.bytes).toBeGreaterThan(1000);
    expect(wire.bytes).toBeLessThanOrEqual(13_500);
    const de = await get('/online-form', 'de');
    expect(de.boot.catalogues).toEqual({ 'common/de': { 'frame.login': 'Anmelden' } });
    expect(de.html).toContain('href="/assets/de-forms.js"');
    expect(de.html).not.toContain('href="/assets/de-common.js"');
  });

  it('preloads the chunk of a catalogue it has no data for, or unreadable data', async () => {
    const da = await get('/online-form', 'da');
    expect(da.boot.catalogues).toBeUndefined();
    expect(da.html).toContain('href="/assets/da-common.js"');
    expect(da.html).toContain('href="/assets/da-forms.js"');
  });

  it('preloads a group chunk for the routes it holds, once', async () => {
    const { html } = await get('/private/status', 'en');
    expect(html.match(/href="\/assets\/private-KKKK\.js"/g)).toHaveLength(1);
    expect(html).not.toContain('_missing');
  });

  it('serves neither the catalogues’ data nor the grouping', async () => {
    for (const p of ['/.vite/catalogues/common/en.json', '/.vite/grouped-routes.json']) {
      const res = await fetch(`${built.url}${p}`);
      // What comes is the SPA's page (its not-found route), not the file.
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toMatch(/^<!doctype html>/i);
    }
  });
});

/**
 * A build with index.html and a page of its own (private.html or report.html): that
 * page's manifest, grouped-routes file and English catalogues (area → messages).
 */
function distWithPage(page: 'private' | 'report', html: string, own: { manifest: object; grouped: object; catalogues: Record<string, object> }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-dist-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, `${page}.html`), html);
  mkdirSync(path.join(dir, '.vite'));
  writeFileSync(path.join(dir, '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
  writeFileSync(path.join(dir, '.vite', `manifest-${page}.json`), JSON.stringify(own.manifest));
  writeFileSync(path.join(dir, '.vite', `grouped-routes-${page}.json`), JSON.stringify(own.grouped));
  for (const [area, messages] of Object.entries(own.catalogues)) {
    mkdirSync(path.join(dir, '.vite', 'catalogues', area), { recursive: true });
    writeFileSync(path.join(dir, '.vite', 'catalogues', area, 'en.json'), JSON.stringify(messages));
  }
  return dir;
}

async function pageOf(built: TestServer, p: string) {
  const res = await fetch(`${built.url}${p}`, { headers: { 'accept-language': 'en' } });
  const html = await res.text();
  const m = /<script type="application\/json" id="wb-boot">([^<]*)<\/script>/.exec(html);
  return { res, html, boot: m ? (JSON.parse(m[1]!) as { catalogues?: Record<string, unknown> }) : undefined };
}

/** The scripts a page loads: its module script and its module preloads, in order. */
const scripts = (html: string) => [...html.matchAll(/<(?:script type="module"[^>]*src|link rel="modulepreload"[^>]*href)="([^"]+)"/g)].map((m) => m[1]);

describe('a build with the private area’s own page (private.html, docs/decisions/private-entry.md)', () => {
  let built: TestServer;
  let dir: string;
  const COMMON_EN = { 'frame.login': 'Log in' };
  const PRIVATE_EN = { 'private.status.title': 'Your case' };
  const PRIVATE_PAGE = INDEX.replace('/assets/index-AAAA.js', '/assets/private-PPPP.js').replace(/\s*<link rel="modulepreload"[^>]*>/, '');
  beforeAll(async () => {
    // The private page's entry holds the layout and the status page; the messages page is a chunk of its own.
    dir = distWithPage('private', PRIVATE_PAGE, {
      manifest: {
        'private.html': { file: 'assets/private-PPPP.js', isEntry: true, dynamicImports: ['src/i18n/common/en.json', 'src/i18n/private/en.json', 'src/i18n/metadata/en.json', 'src/routes/private/messages.tsx?tsr-split=component'] },
        'src/i18n/common/en.json': { file: 'assets/en-common-P.js', isDynamicEntry: true },
        'src/i18n/private/en.json': { file: 'assets/en-private-P.js', isDynamicEntry: true },
        'src/i18n/metadata/en.json': { file: 'assets/en-metadata-P.js', isDynamicEntry: true },
        'src/routes/private/messages.tsx?tsr-split=component': { file: 'assets/messages-MMMM.js', isDynamicEntry: true, imports: ['private.html'] },
      },
      grouped: { 'src/routes/private.tsx?tsr-split=component': 'private.html', 'src/routes/private/status.tsx?tsr-split=component': 'private.html' },
      catalogues: { common: COMMON_EN, private: PRIVATE_EN },
    });
    built = await startTestServer({ distDir: dir });
  });
  afterAll(async () => {
    await built?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (p: string) => pageOf(built, p);

  it('answers the status page with its own entry alone, its catalogues in the page', async () => {
    for (const p of ['/private/status', '/private']) {
      const { res, html, boot } = await get(p);
      expect(res.status).toBe(200);
      expect(scripts(html), p).toEqual(['/assets/private-PPPP.js']);
      expect(boot?.catalogues, p).toEqual({ 'common/en': COMMON_EN, 'private/en': PRIVATE_EN });
    }
  });

  it('preloads another private route’s chunk beside the private entry', async () => {
    const { html, boot } = await get('/private/messages');
    expect(scripts(html)).toEqual(['/assets/private-PPPP.js', '/assets/messages-MMMM.js']);
    expect(Object.keys(boot?.catalogues ?? {})).toEqual(['common/en', 'private/en']);
  });

  it('answers every other path with index.html, as before', async () => {
    for (const p of ['/', '/online-form', '/privates', '/private.html']) {
      const { html } = await get(p);
      expect(scripts(html)[0], p).toBe('/assets/index-AAAA.js');
      expect(html, p).not.toContain('private-PPPP');
    }
  });

  it('keeps answering with the page it has while a rebuild has removed it, and takes the new one when it is there', async () => {
    const file = path.join(dir, 'private.html');
    rmSync(file);
    const during = await get('/private/status');
    expect(during.res.status).toBe(200);
    expect(scripts(during.html)).toEqual(['/assets/private-PPPP.js']);
    writeFileSync(file, PRIVATE_PAGE.replace('private-PPPP', 'private-QQQQ'));
    // A later modification time than the page read first.
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const after = await get('/private/status');
    expect(scripts(after.html)).toEqual(['/assets/private-QQQQ.js']);
    writeFileSync(file, PRIVATE_PAGE);
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
  });

  it('serves neither page nor the private build’s manifest as a file', async () => {
    for (const p of ['/.vite/manifest-private.json', '/.vite/grouped-routes-private.json', '/index.html']) {
      const res = await fetch(`${built.url}${p}`);
      expect(res.headers.get('content-type'), p).toMatch(/^text\/html/);
      expect(await res.text(), p).toContain('id="wb-boot"');
    }
  });
});

describe('a build with the report forms’ own page (report.html, docs/decisions/report-entry.md)', () => {
  let built: TestServer;
  let dir: string;
  const COMMON_EN = { 'frame.login': 'Log in' };
  const FORMS_EN = { 'forms.title': 'Report' };
  const REPORT_PAGE = INDEX.replace('/assets/index-AAAA.js', '/assets/report-RRRR.js').replace(/\s*<link rel="modulepreload"[^>]*>/, '');
  beforeAll(async () => {
    // The report page's entry holds the three report routes and the report page.
    dir = distWithPage('report', REPORT_PAGE, {
      manifest: {
        'report.html': { file: 'assets/report-RRRR.js', isEntry: true, dynamicImports: ['src/i18n/common/en.json', 'src/i18n/forms/en.json', 'src/i18n/metadata/en.json'] },
        'src/i18n/common/en.json': { file: 'assets/en-common-R.js', isDynamicEntry: true },
        'src/i18n/forms/en.json': { file: 'assets/en-forms-R.js', isDynamicEntry: true },
        'src/i18n/metadata/en.json': { file: 'assets/en-metadata-R.js', isDynamicEntry: true },
      },
      grouped: Object.fromEntries(['online-form', 'oral-report', 'book-meeting'].map((r) => [`src/routes/${r}.tsx?tsr-split=component`, 'report.html'])),
      catalogues: { common: COMMON_EN, forms: FORMS_EN },
    });
    built = await startTestServer({ distDir: dir });
  });
  afterAll(async () => {
    await built?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (p: string) => pageOf(built, p);

  it('answers each report form with its own entry alone, the form’s catalogues in the page', async () => {
    for (const p of ['/online-form', '/oral-report', '/book-meeting', '/online-form/']) {
      const { res, html, boot } = await get(p);
      expect(res.status, p).toBe(200);
      expect(scripts(html), p).toEqual(['/assets/report-RRRR.js']);
      // The hidden-data check's texts come later (LATER_AREAS), as on index.html.
      expect(boot?.catalogues, p).toEqual({ 'common/en': COMMON_EN, 'forms/en': FORMS_EN });
    }
  });

  it('answers every other path with index.html', async () => {
    for (const p of ['/', '/online-forms', '/online-form/step', '/faq', '/private/status', '/report.html']) {
      const { html } = await get(p);
      expect(scripts(html)[0], p).toBe('/assets/index-AAAA.js');
      expect(html, p).not.toContain('report-RRRR');
    }
  });

  it('serves neither the page nor the report build’s manifest as a file', async () => {
    for (const p of ['/report.html', '/.vite/manifest-report.json', '/.vite/grouped-routes-report.json']) {
      const res = await fetch(`${built.url}${p}`);
      expect(res.headers.get('content-type'), p).toMatch(/^text\/html/);
      expect(await res.text(), p).toContain('id="wb-boot"');
    }
  });
});
