/**
 * Browser harness: real Chromium through playwright-core, against the real server
 * (startTestServer) serving the built SPA (DIST_DIR, default dist/). Nothing of the
 * server is mocked. Every request a page makes is recorded, so tests can assert that
 * none went to another host; axe runs on pages from browser.newContext().
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import type { ServerConfig } from '../../server/config.ts';
import { SigninThrottle } from '../../server/idp/throttle.ts';
import { companyByHost } from '../../server/companies/service.ts';
import type { Language } from '../../machines/schema.ts';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      `No Chromium found (looked at ${candidates.join(', ')}). Install it with: apt-get install -y chromium ` +
        '(or set CHROMIUM_PATH to a Chromium binary).',
    );
  }
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

export function distDir(): string {
  const dir = path.resolve(process.env.DIST_DIR ?? path.join(import.meta.dirname, '../../dist'));
  if (!existsSync(path.join(dir, 'index.html'))) {
    throw new Error(`No built SPA in ${dir}: run \`npx vite build --outDir ${dir}\` (or \`npm run build\`) first, or set DIST_DIR.`);
  }
  return dir;
}

export interface Portal {
  server: TestServer;
  /** http://HOST:PORT/path — Chromium resolves *.localhost to 127.0.0.1. */
  url(host?: string, pathname?: string): string;
}

/** The real server with the built SPA and the demo companies. */
export async function startPortal(overrides: Partial<ServerConfig> = {}): Promise<Portal> {
  const server = await startTestServer({ distDir: distDir(), seedDemo: true, ...overrides });
  return {
    server,
    url: (host = 'localhost', pathname = '/') => `http://${host}:${server.port}${pathname}`,
  };
}

export interface RecordedRequest {
  url: string;
  method: string;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  requests: RecordedRequest[];
  /** Requests whose origin is not one of `allowedOrigins` (data:/blob: URLs never leave the page). */
  foreignRequests(allowedOrigins: string[]): RecordedRequest[];
  /**
   * Every CSP violation a page of this context reported (`securitypolicyviolation`),
   * as `directive blocked-uri`. `close()` fails when one of them is a Trusted Types,
   * script or worker violation: no journey may need a sink outside the named policies
   * (docs/decisions/code-integrity.md).
   */
  violations: string[];
  close(): Promise<void>;
}

/** Marks the console line an init script writes for each CSP violation. */
const VIOLATION_MARK = '[wb-csp-violation]';
const VIOLATION_SCRIPT = `document.addEventListener('securitypolicyviolation', (e) => console.error(${JSON.stringify(VIOLATION_MARK)} + ' ' + e.effectiveDirective + ' ' + (e.blockedURI || '-') + ' ' + (e.sample || '')));`;
const FATAL_DIRECTIVES = /^(require-trusted-types-for|trusted-types|script-src|script-src-elem|worker-src)$/;

export interface PageOptions {
  width?: number;
  height?: number;
  /** The browser language (navigator.languages), e.g. 'sv-SE'. */
  locale?: string;
}

export async function openPage(browser: Browser, opts: PageOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    locale: opts.locale ?? 'da-DK',
    serviceWorkers: 'block',
  });
  const requests: RecordedRequest[] = [];
  context.on('request', (r) => requests.push({ url: r.url(), method: r.method() }));
  const violations: string[] = [];
  await context.addInitScript(VIOLATION_SCRIPT);
  context.on('console', (m) => {
    const text = m.text();
    if (text.startsWith(VIOLATION_MARK)) violations.push(`${text.slice(VIOLATION_MARK.length + 1)} (${m.page()?.url() ?? '?'})`);
  });
  const page = await context.newPage();
  return {
    context,
    page,
    requests,
    foreignRequests: (allowed) =>
      requests.filter((r) => {
        if (r.url.startsWith('data:') || r.url.startsWith('blob:') || r.url === 'about:blank') return false;
        return !allowed.includes(new URL(r.url).origin);
      }),
    violations,
    close: async () => {
      await context.close();
      const fatal = violations.filter((v) => FATAL_DIRECTIVES.test(v.split(' ')[0] ?? ''));
      if (fatal.length) throw new Error(`CSP violations (Trusted Types, script or worker):\n${fatal.join('\n')}`);
    },
  };
}

export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * The seven languages split between the two demo companies, for the sweeps that load
 * every page of a company in a language (≈ 40 s a language on a slow CI machine):
 * every page in every language, and every page of each company, without the cross
 * product. What a language changes (the strings, `lang`, the lengths) and what a
 * company changes (its colours, logo and texts) are each checked in full.
 */
export const SWEEP_LANGUAGES = {
  localhost: ['da', 'no', 'se'],
  'group.localhost': ['en', 'es', 'pl', 'de'],
} as const satisfies Record<string, readonly Language[]>;

/**
 * axe's WCAG 2.1 A/AA violations on the page, one line each (empty when none).
 * Legacy mode runs axe.run in the page itself; the default (runPartial) opens a blank
 * page per call for finishRun, which made each check ≈ 1.3 s instead of ≈ 0.8 s. The
 * portal's pages have no cross-origin frames, the one case legacy mode handles worse.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(AXE_TAGS).setLegacyMode().analyze();
  return result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`,
  );
}

/**
 * `failures` failed sign-ins at `host` with unknown case numbers from other addresses,
 * recorded as another server process on the same database would: the company is then
 * in a burst, and its sign-in page asks for the proof-of-work.
 */
export async function recordSigninBurst(portal: Portal, failures: number, host = 'localhost'): Promise<void> {
  const identity = portal.server.app.identity;
  const throttle = new SigninThrottle(portal.server.ctx.db, await identity.keys.derive('throttle'), identity.settings.throttle);
  const company = (await companyByHost(portal.server.ctx.db, host))!;
  for (let i = 0; i < failures; i++) {
    const caseNumber = Array.from({ length: 16 }, () => randomInt(10)).join('');
    await throttle.failure(await throttle.begin(company.id, caseNumber, `198.51.100.${i}`));
  }
}
