/**
 * What the browser suites of sealed cases share (test/e2e/sealed-*.test.ts, and the
 * handler suites that enrol in the page): real Chromium and the real server started
 * once per file, every page's requests and responses recorded, handlers enrolled and
 * signed in through the workspace's own pages, the recovery key made and colleagues
 * certified there, a report sent through the form, and the check that no marker went
 * over the wire. One copy, so every suite does these steps the way a person does them.
 * The key setup done through the API (anchor, certified key, sealed case) is in
 * test/helpers/sealed-case.ts.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import * as OTPAuth from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from '../e2e/harness.ts';
import type { ServerConfig } from '../../server/config.ts';
import { createHandlerAccount, enrolmentLink } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { certifiedHandler, setKeyAnchor } from './sealed-case.ts';

const I18N = path.resolve(import.meta.dirname, '../../src/i18n');
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The English catalogues of `areas`: `en[key]`, `msg(key, values)` with `{name}` filled in, and `label(key)` for a form field (its `*` allowed). */
export function english(...areas: string[]) {
  const en: Record<string, string> = Object.assign({}, ...areas.map((a) => JSON.parse(readFileSync(path.join(I18N, a, 'en.json'), 'utf8')) as Record<string, string>));
  const msg = (key: string, values: Record<string, string | number> = {}) => en[key]!.replace(/\{(\w+)\}/g, (_m, k: string) => String(values[k]));
  const label = (key: string) => new RegExp(`^${escape(en[key]!)}\\*?$`);
  return { en, msg, label };
}

const t = english('common', 'forms', 'handler', 'keys');

/** The portal as the sealed suites run it: SEALED_CASES=browser. */
export const SEALED: Partial<ServerConfig> = { sealedCases: 'browser' };
/** Sign-in failures never slow the handlers' sign-ins down (a suite signs in many times). */
export const NO_THROTTLE: Partial<ServerConfig> = { identity: { throttle: { freeFailures: 100, delayBaseMs: 0 } } };

/** One request or response a page's context saw: what (`→ METHOD` or `← STATUS`), URL, all headers, the body (latin1, so any bytes compare). */
export interface Recorded {
  what: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** A request, or a response whose body was read (not a redirect, an aborted load or one never finished). */
  read: boolean;
}

/** `p`, or `fallback` once `ms` have passed (a body Chromium never finishes loading, a request held open). */
const within = <T, F>(p: Promise<T>, ms: number, fallback: F): Promise<T | F> => Promise.race([p, new Promise<F>((r) => setTimeout(() => r(fallback), ms))]);

/** Every request and response of a browser context, as it went over the wire. */
export class Wire {
  private readonly pending: Promise<Recorded>[] = [];
  /** `METHOD url` of each request as it left, for counts taken while the page works. */
  readonly sent: string[] = [];

  /** `only`: the URLs recorded (all by default). */
  constructor(context: BrowserContext, only: (url: string) => boolean = () => true) {
    context.on('request', (req) => {
      if (!only(req.url())) return;
      this.sent.push(`${req.method()} ${req.url()}`);
      const body = req.postDataBuffer()?.toString('latin1') ?? '';
      this.pending.push(within(req.allHeaders().catch(() => req.headers()), 15_000, null).then((h) => ({ what: `→ ${req.method()}`, url: req.url(), headers: h ?? req.headers(), body, read: true })));
    });
    context.on('response', (res) => {
      if (!only(res.url())) return;
      this.pending.push(
        (async () => {
          const headers = (await within(res.allHeaders().catch(() => res.headers()), 15_000, null)) ?? res.headers();
          // A redirect has no body to read. Chromium never finishes loading a body the page
          // does not read (the head's early case read, answered 409 CASE_SEALED and read
          // again by the SPA): such a body is marked unread.
          const body = res.status() >= 300 && res.status() < 400 ? false : await within(res.body().then((b) => b.toString('latin1'), () => false as const), 15_000, null);
          return { what: `← ${res.status()}${body === null ? ' (unread)' : ''}`, url: res.url(), headers, body: typeof body === 'string' ? body : '', read: typeof body === 'string' };
        })(),
      );
    });
  }

  /** Everything recorded so far, once each body is read. */
  all(): Promise<Recorded[]> {
    return Promise.all(this.pending);
  }
}

/** The recordings of several pages, in one list. */
export async function recordedOf(...wires: Wire[]): Promise<Recorded[]> {
  return (await Promise.all(wires.map((w) => w.all()))).flat();
}

/** A recorded request or response as one text: `what url`, its headers, its body. */
export const textOf = (r: Recorded) => `${r.what} ${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`;

/**
 * Where each needle shows in a URL, a header or a body: as typed, URL-encoded and (unless
 * `base64: false`) in base64. Empty when none went over the wire in clear.
 */
export function markersIn(recorded: Recorded[], needles: string[], opts: { base64?: boolean } = {}): string[] {
  const forms = (m: string) => [m, encodeURIComponent(m), ...(opts.base64 === false ? [] : [Buffer.from(m).toString('base64')])];
  const found: string[] = [];
  for (const r of recorded) {
    const text = textOf(r);
    for (const m of needles.flatMap(forms)) if (text.includes(m)) found.push(`${m.slice(0, 40)} in ${r.what} ${r.url}`);
  }
  return found;
}

/** A page of the suite: its context recorded from the start. */
export interface SuitePage {
  page: Page;
  wire: Wire;
  o: OpenedPage;
}

export interface BrowserSuite {
  readonly browser: Browser;
  readonly portal: Portal;
  /** Every page opened, closed after the file. */
  readonly opened: OpenedPage[];
  /** What every page opened so far sent and got, in one list. */
  recorded(): Promise<Recorded[]>;
  /** A new page (its own context, en-GB), recorded; `init` runs before each document's scripts. */
  open(opts?: { locale?: string; timeout?: number; init?: string; only?: (url: string) => boolean }): Promise<SuitePage>;
}

/**
 * Chromium and the portal (built SPA, demo companies, `config`) for the test file: started
 * before its tests, closed after them with every page opened.
 */
export function browserSuite(config: Partial<ServerConfig> = {}): BrowserSuite {
  let browser: Browser | undefined;
  let portal: Portal | undefined;
  const opened: OpenedPage[] = [];
  const wires: Wire[] = [];
  beforeAll(async () => {
    [browser, portal] = await Promise.all([launchBrowser(), startPortal(config)]);
  }, 60_000);
  afterAll(async () => {
    for (const p of opened) await p.close().catch(() => undefined);
    await browser?.close();
    await portal?.server.cleanup();
  });
  return {
    get browser() {
      return browser!;
    },
    get portal() {
      return portal!;
    },
    opened,
    recorded: () => recordedOf(...wires),
    async open(opts = {}) {
      const o = await openPage(browser!, { locale: opts.locale ?? 'en-GB' });
      opened.push(o);
      if (opts.init !== undefined) await o.context.addInitScript(opts.init);
      o.page.setDefaultTimeout(opts.timeout ?? 30_000);
      const wire = new Wire(o.context, opts.only);
      wires.push(wire);
      return { page: o.page, wire, o };
    },
  };
}

/** `npm run handler -- …` against the suite's portal and its data folder: the operator's CLI, as an operator runs it. */
export function handlerCli(portal: Portal, ...args: string[]) {
  const root = path.resolve(import.meta.dirname, '../..');
  return promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), ['server/cli/handler.ts', '--url', portal.server.url, ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: portal.server.dataDir, DATABASE_URL: portal.server.config.databaseUrl ?? '' },
  });
}

/** The code of the handler's authenticator app, `step` periods of 30 s from now (each sign-in takes a fresh one). */
export const totp = (secret: string, step: number) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + step * 30_000 });

/** A handler with a browser page: what signing in again takes. */
export interface PageHandler {
  name: string;
  email: string;
  password: string;
  /** The authenticator secret the enrolment page showed. */
  secret: string;
  /** The last TOTP step used. */
  step: number;
  page: Page;
}

/** On the enrolment page `page` is at: the password twice and the first code; returns the authenticator secret. */
export async function completeEnrolment(page: Page, password: string): Promise<string> {
  await page.getByRole('heading', { level: 1, name: t.msg('handler.enrol.title') }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  await page.getByLabel(t.msg('handler.enrol.password', { min: 12 })).fill(password);
  await page.getByLabel(t.msg('handler.enrol.repeat')).fill(password);
  await page.getByLabel(t.msg('handler.enrol.totp')).fill(totp(secret, 0));
  await page.getByRole('button', { name: t.msg('handler.enrol.submit') }).click();
  await page.getByText(t.msg('handler.enrol.done')).waitFor();
  return secret;
}

/** Through the enrolment link of `enrolmentCode` at `host`, in `page`. */
export async function enrolInPage(portal: Portal, host: string, page: Page, enrolmentCode: string, who: { name: string; email: string; password: string }): Promise<PageHandler> {
  await page.goto(enrolmentLink(portal.url(host, ''), enrolmentCode));
  return { ...who, secret: await completeEnrolment(page, who.password), step: 0, page };
}

/**
 * A handler account of the company at `host` for `officers` (no API token), enrolled in a
 * new page of the suite: her browser makes and seals her keys. The email is
 * `name@example.org` unless given; `pageOpts` as for the suite's `open`.
 */
export async function enrolHandler(
  suite: BrowserSuite,
  host: string,
  h: { name: string; password: string; officers: string[]; email?: string },
  pageOpts?: Parameters<BrowserSuite['open']>[0],
): Promise<PageHandler & { wire: Wire }> {
  const { portal } = suite;
  const company = (await companyByHost(portal.server.ctx.db, host))!;
  const email = h.email ?? `${h.name}@example.org`;
  const account = await createHandlerAccount(portal.server.ctx.db, company.id, h.name, { email, officers: h.officers, token: false });
  const { page, wire } = await suite.open(pageOpts);
  return { ...(await enrolInPage(portal, host, page, account.enrolmentCode!, { name: h.name, email, password: h.password })), wire };
}

/** Signs in on the workspace's page with the next TOTP code; ends in the inbox. */
export async function signInHandler(portal: Portal, host: string, h: Pick<PageHandler, 'email' | 'password' | 'secret' | 'step' | 'page'>): Promise<void> {
  h.step++;
  await h.page.goto(portal.url(host, '/handler'));
  await h.page.getByLabel(t.msg('handler.signIn.email')).fill(h.email);
  await h.page.getByLabel(t.msg('handler.signIn.password')).fill(h.password);
  await h.page.getByLabel(t.msg('handler.signIn.code')).fill(totp(h.secret, h.step));
  await h.page.getByRole('button', { name: t.msg('handler.signIn.submit') }).click();
  await h.page.waitForURL((u) => u.pathname === '/handler/cases');
}

/** The keys page, by its in-app link. */
export async function keysPage(page: Page): Promise<void> {
  await page.getByRole('link', { name: t.msg('keys.nav') }).click();
  await page.getByRole('heading', { level: 1, name: t.msg('keys.page.title') }).waitFor();
}

/** The company's first handler makes its recovery key on her keys page (shown once, noted as printed); it certifies her own key. */
export async function makeRecoveryKey(page: Page): Promise<void> {
  await keysPage(page);
  await page.getByRole('button', { name: t.msg('keys.anchor.make') }).click();
  await page.getByRole('button', { name: t.msg('keys.anchor.printed') }).click();
  await page.getByText(t.msg('keys.page.certified')).waitFor();
}

/** A certified handler certifies the pending key of `name` (`name@example.org`) on her keys page, through the confirmation. */
export async function certifyColleague(page: Page, name: string): Promise<void> {
  await keysPage(page);
  const row = page.locator('li', { hasText: `${name}@example.org` });
  await row.getByRole('button', { name: t.msg('keys.pending.certify', { name }) }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: t.msg('keys.pending.confirm') }).click();
  await row.waitFor({ state: 'detached' });
}

/** The case's link in the inbox: its number grouped in fours, as the inbox shows it. */
export const caseLinkName = (caseNumber: string) => new RegExp(caseNumber.replace(/(\d{4})(?=\d)/g, '$1 '));

/** The case from the inbox, by in-app links (a full navigation would lock the keys). */
export async function openCaseFromInbox(page: Page, caseNumber: string): Promise<void> {
  await page.getByRole('link', { name: t.msg('handler.title'), exact: true }).click();
  await page.getByRole('link', { name: caseLinkName(caseNumber) }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
}

/**
 * The demo company of `host` ready for sealed reports without a handler's browser: a
 * recovery key set as its anchor, and handler `name` (with an API token) whose key the
 * recovery key certifies for `officerId`, as a handler's browser would.
 */
export async function sealingCompany(portal: Portal, host: string, h: { name: string; officerId: string }) {
  const company = (await companyByHost(portal.server.ctx.db, host))!;
  const recovery = await setKeyAnchor(portal.server, company.id);
  const { account, keys } = await certifiedHandler(portal.server, host, { companyId: company.id, name: h.name, officerIds: [h.officerId], certifier: recovery });
  return { recovery, handler: account, keys };
}

/** The form section of step `key` (forms.step.KEY.title). */
export const stepOf = (page: Page, key: string) => page.locator('section', { has: page.getByRole('heading', { name: t.en[`forms.step.${key}.title`] }) });

/** The report form of `pathname` (/online-form, /oral-report), open at its first step. */
export async function openReportForm(portal: Portal, host: string, page: Page, pathname = '/online-form'): Promise<void> {
  await page.goto(portal.url(host, pathname));
  await page.getByRole('heading', { level: 2 }).first().waitFor();
}

/** The online form's first steps: the relation, the violation and its description (not repeated), and the unit of the company it is about. */
export async function describeProblem(page: Page, r: { relation: string; violation: string; description: string; unit: string }): Promise<void> {
  await page.getByLabel(t.label('forms.relation.label')).fill(r.relation);
  await page.getByLabel(t.label('forms.describe.violation')).selectOption(r.violation);
  await page.getByLabel(t.label('forms.describe.description')).fill(r.description);
  await stepOf(page, 'describeProblem').getByRole('radio', { name: t.en['forms.no'] }).check();
  await page.getByRole('radio', { name: t.en['forms.related.company'] }).check();
  await page.getByLabel(t.label('forms.related.unit')).fill(r.unit);
}

/** The identity step: anonymous, or revealed with a name and an address. */
export async function fillIdentity(page: Page, who: 'anonymous' | { name: string; email: string }): Promise<void> {
  if (who === 'anonymous') {
    await page.getByRole('radio', { name: t.en['forms.identity.anonymous'] }).check();
    return;
  }
  await page.getByRole('radio', { name: t.en['forms.identity.reveal'] }).check();
  await page.getByLabel(t.label('forms.identity.name')).fill(who.name);
  await page.getByLabel(t.label('forms.identity.email')).fill(who.email);
}

/** The case password twice (after choosing to follow the case where `choose`) and the terms accepted. */
export async function followAndAccept(page: Page, password: string, opts: { choose?: boolean } = {}): Promise<void> {
  if (opts.choose) await page.getByRole('radio', { name: t.en['forms.follow.follow'] }).check();
  await page.getByLabel(t.label('forms.follow.password')).fill(password);
  await page.getByLabel(t.label('forms.follow.confirm')).fill(password);
  await page.getByRole('checkbox', { name: new RegExp(t.en['forms.terms.accept']!) }).check();
}

/** The send button of the `kind` form, once the form lets it be pressed. */
export async function sendReport(page: Page, kind: 'online' | 'oral' = 'online'): Promise<void> {
  const button = page.getByRole('button', { name: t.en[`forms.send.${kind}`] });
  await expect.poll(() => button.isEnabled()).toBe(true);
  await button.click();
}

/** The success dialog of the `kind` form (sealing in the page takes a while) and the case number it shows. */
export async function reportSent(page: Page, kind: 'online' | 'oral' = 'online', timeout = 60_000) {
  const dialog = page.getByRole('dialog', { name: t.en[`forms.success.${kind}.title`] });
  await dialog.waitFor({ timeout });
  return { dialog, caseNumber: (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '') };
}

/** Every row of every table, bytes as latin1 (and base64 where asked): what a copy of the database would hold. */
export async function databaseText(portal: Portal, opts: { base64?: boolean } = {}): Promise<string> {
  const db = portal.server.ctx.db;
  const { sql } = await import('kysely');
  const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows;
  const out: string[] = [];
  const bytes = (v: Uint8Array) => (opts.base64 ? `${Buffer.from(v).toString('latin1')}\n${Buffer.from(v).toString('base64')}` : Buffer.from(v).toString('latin1'));
  for (const { table_name } of tables) {
    for (const row of (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(db)).rows) {
      for (const v of Object.values(row)) out.push(v instanceof Uint8Array ? bytes(v) : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
    }
  }
  return out.join('\n');
}
