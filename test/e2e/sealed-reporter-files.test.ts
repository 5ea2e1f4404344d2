/**
 * The report form seals files, the notification address and phone reports in the
 * browser (issue 37; docs/decisions/sealed-reporter-pages.md "Reporter pages"), in real Chromium
 * against the real server with SEALED_CASES=browser. The demo company gets a recovery
 * key and a certified handler key for its officer, made here as a handler's browser would.
 *
 * (a) A followed, identified online report with two files and e-mail notification: the
 *     form says beside the choice that the address is kept apart, sealed to the mail key
 *     and deleted at close (axe finds nothing there); the files go as sealed tus uploads,
 *     the case to the sealed route. Every request and response of the browser (URL,
 *     headers, bodies) is recorded: no marker, no file byte and not the address in any.
 *     No row of any table and no file of the data folder holds them either. The
 *     handler's key opens the files (names, types, bytes as picked); the mail worker's
 *     key opens the address; the identity the handler opens holds no address.
 * (b) A phone report through /oral-report goes sealed to the same route, as PHONE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { listFiles } from '../server/api.ts';
import {
  concat, fieldContext, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openFieldText, openFileName, openSealedBox, openSealedFile, signKeyLogEntry, toBase64,
  type Bytes, type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';

const read = (area: string) => JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('forms'), ...read('notifying') };
const HOST = 'localhost';
const COMPANY = 'nordlys-energi';
const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const label = (key: string) => new RegExp(`^${escape(en[key]!)}\\*?$`);

const tag = () => randomBytes(5).toString('hex');
const MARKERS = { description: `Descr-${tag()}-marker`, name: `Name-${tag()}-marker`, unit: `Unit-${tag()}-marker`, fileA: `FileA-${tag()}-marker`, fileB: `FileB-${tag()}-marker`, relation: `Rel-${tag()}-marker` };
const ADDRESS = `notify-${tag()}@marker.example`;
const FILES = [
  { name: `Kassebog ${MARKERS.fileA}.csv`, mimeType: 'text/csv', buffer: Buffer.from(`day;amount;note\n${'Friday;1200;paid twice\n'.repeat(4000)}${MARKERS.fileA}-bytes;0;end\n`) },
  { name: `Noter ${MARKERS.fileB}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`Notes from the stock room.\n${MARKERS.fileB}-bytes\n`) },
];
/** What of a file must not show anywhere: its name and a run of its bytes that holds its marker. */
const fileNeedles = FILES.flatMap((f) => [f.name, f.buffer.subarray(f.buffer.length - 40).toString('latin1').trim()]);

let browser: Browser;
let portal: Portal;
const opened: OpenedPage[] = [];
let officerId: string;
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };

interface Recorded {
  what: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Every request and response of the context: URL, all headers, the body (latin1, so any bytes compare). */
function record(context: BrowserContext): Promise<Recorded>[] {
  const pending: Promise<Recorded>[] = [];
  context.on('request', (req) => {
    pending.push(req.allHeaders().then((headers) => ({ what: `→ ${req.method()}`, url: req.url(), headers, body: req.postDataBuffer()?.toString('latin1') ?? '' })));
  });
  context.on('response', (res) => {
    pending.push(
      (async () => {
        const headers = await res.allHeaders();
        const body = res.status() >= 300 && res.status() < 400 ? '' : await Promise.race([res.body().then((b) => b.toString('latin1'), () => ''), new Promise<null>((r) => setTimeout(() => r(null), 15_000))]);
        return { what: `← ${res.status()}${body === null ? ' (unread)' : ''}`, url: res.url(), headers, body: body ?? '' };
      })(),
    );
  });
  return pending;
}

async function api(method: string, pathname: string, opts: { token?: string; json?: unknown } = {}) {
  const headers: Record<string, string> = { 'x-company-host': HOST };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${portal.server.url}${pathname}`, { method, headers, body: opts.json === undefined ? undefined : JSON.stringify(opts.json) });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text) : null };
}

async function open(): Promise<{ page: Page; traffic: Promise<Recorded>[]; o: OpenedPage }> {
  const o = await openPage(browser, { locale: 'en-GB' });
  opened.push(o);
  o.page.setDefaultTimeout(30_000);
  return { page: o.page, traffic: record(o.context), o };
}

const stepOf = (page: Page, key: string) => page.locator('section', { has: page.getByRole('heading', { name: en[`forms.step.${key}.title`] }) });

/** Every row of every table, bytes as latin1: what a copy of the database would hold. */
async function databaseText(): Promise<string> {
  const db = portal.server.ctx.db;
  const { sql } = await import('kysely');
  const tables = (await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows;
  const out: string[] = [];
  for (const { table_name } of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(db)).rows;
    for (const row of rows) for (const v of Object.values(row)) out.push(v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  return out.join('\n');
}

/** Each needle, as typed, URL-encoded and in base64, in a URL, a header or a body. */
function found(traffic: Recorded[], needles: string[]): string[] {
  const forms = (m: string) => [m, encodeURIComponent(m), Buffer.from(m).toString('base64')];
  const out: string[] = [];
  for (const r of traffic) {
    const text = `${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`;
    for (const m of needles.flatMap(forms)) if (text.includes(m)) out.push(`${m.slice(0, 30)} in ${r.what} ${r.url}`);
  }
  return out;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

beforeAll(async () => {
  [browser, portal] = await Promise.all([launchBrowser(), startPortal({ sealedCases: 'browser' })]);
  officerId = await firstOfficerId(portal);
  const recovery = await makeHandlerKeys();
  const anchor = await fetch(`${portal.server.url}/api/admin/companies/${COMPANY}/key-anchor`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${portal.server.ctx.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }),
  });
  expect(anchor.status).toBe(201);
  hanne = await createHandlerAccount(portal.server.ctx.db, COMPANY, 'Hanne Files', { officers: [officerId] });
  hanneKeys = await makeHandlerKeys();
  const { entries } = (await api('GET', '/api/public/key-log')).data as { entries: KeyLogEntry[] };
  const prev = entries.at(-1);
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: entries.length + 1, handlerId: hanne.id, ecdhSpki: toBase64(hanneKeys.ecdhSpki), ecdsaSpki: toBase64(hanneKeys.ecdsaSpki), officerIds: [officerId],
    addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await api('POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);
  await portal.server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hanneKeys.ecdhSpki), ecdsa_spki: Buffer.from(hanneKeys.ecdsaSpki) }).where('id', '=', hanne.id).execute();
}, 60_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
});

describe('the report form seals files, the notification address and phone reports', () => {
  it('(a) a followed report with two files and e-mail notification: sealed in the browser; nothing of it on the wire, in a row or in the data folder; the handler opens the files', async () => {
    const password = `Files-${tag()}-pw`;
    const { page, traffic, o } = await open();
    await page.goto(portal.url(HOST, '/online-form'));
    await page.getByRole('heading', { level: 2 }).first().waitFor();
    await page.getByLabel(label('forms.relation.label')).fill(`Storekeeper ${MARKERS.relation}`);
    await page.getByLabel(label('forms.describe.violation')).selectOption('THEFT');
    await page.getByLabel(label('forms.describe.description')).fill(`Stock sold privately: ${MARKERS.description}`);
    await stepOf(page, 'describeProblem').getByRole('radio', { name: en['forms.no'] }).check();
    await page.getByRole('radio', { name: en['forms.related.company'] }).check();
    await page.getByLabel(label('forms.related.unit')).fill(MARKERS.unit);
    await stepOf(page, 'documents').locator('input[type="file"]').setInputFiles(FILES);
    for (const f of FILES) await stepOf(page, 'documents').getByText(f.name).first().waitFor();
    await page.getByRole('radio', { name: en['forms.identity.reveal'] }).check();
    await page.getByLabel(label('forms.identity.name')).fill(MARKERS.name);
    await page.getByLabel(label('forms.identity.email')).fill(ADDRESS);
    await page.getByRole('checkbox', { name: en['forms.identity.notification'] }).check();
    // The sentence beside the choice: kept apart, sealed to the mail key, deleted at close.
    await page.getByText(en['notifying.sealed']!).waitFor();
    expect(await axeViolations(page), 'identity step with the notice').toEqual([]);
    await page.getByLabel(label('forms.follow.password')).fill(password);
    await page.getByLabel(label('forms.follow.confirm')).fill(password);
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    const button = page.getByRole('button', { name: en['forms.send.online'] });
    await expect.poll(() => button.isEnabled()).toBe(true);
    await button.click();
    const dialog = page.getByRole('dialog', { name: en['forms.success.online.title'] });
    await dialog.waitFor({ timeout: 90_000 });
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');

    const row = await portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: true, wrapped_key: null });

    // The handler opens the files as the reporter picked them.
    const view = (await api('GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token })).data;
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.wrap.wrap), { caseId: row.id, epoch: view.epoch, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    expect(view.files).toHaveLength(2);
    for (const [i, f] of (view.files as { id: string; name: string }[]).entries()) {
      const name = await openFileName(dk, row.id, f.id, f.name);
      expect(name).toEqual({ name: FILES[i]!.name, size: FILES[i]!.buffer.length, type: FILES[i]!.mimeType });
      const res = await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}/files/${f.id}`, { headers: { authorization: `Bearer ${hanne.token}` } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await readAll(openSealedFile(dk, { id: f.id, ...name }, res.body!))).equals(FILES[i]!.buffer)).toBe(true);
    }
    const identity = JSON.parse(await openFieldText(dk, fieldContext(row.id, 'report_case.whistleblower_enc'), fromBase64(view.envelopes.whistleblower)));
    expect(identity).toMatchObject({ name: MARKERS.name, email: null, notification: true });
    // The address, sealed to the mail key: the mail worker's key opens it, in the language of the page.
    const notify = await portal.server.ctx.db.selectFrom('case_notify').select('box').where('case_id', '=', row.id).executeTakeFirstOrThrow();
    expect(await portal.server.ctx.mailKeys.openNotify(row.id, new Uint8Array(notify.box))).toEqual({ address: ADDRESS, language: 'en' });

    // The recording: the files went by tus to the sealed session, the case to the sealed route, nothing in clear.
    const recorded = await Promise.all(traffic);
    expect(recorded.some((r) => r.what === '→ POST' && r.url.endsWith('/api/public/upload-sessions') && r.body.includes('"sealed":true'))).toBe(true);
    expect(recorded.filter((r) => r.what === '→ PATCH' && r.url.includes('/api/public/uploads/')).length).toBeGreaterThanOrEqual(2);
    expect(recorded.some((r) => r.what === '→ POST' && r.url.endsWith('/api/public/case/new/sealed'))).toBe(true);
    expect(recorded.some((r) => /\/api\/public\/case\/new\/by-/.test(r.url))).toBe(false);
    const needles = [...Object.values(MARKERS), ADDRESS, ...fileNeedles];
    expect(found(recorded, needles)).toEqual([]);
    // Nor any row of the database, nor any file of the data folder.
    const rows = await databaseText();
    expect(needles.filter((m) => rows.includes(m))).toEqual([]);
    const inFolder: string[] = [];
    for (const f of listFiles(portal.server.dataDir)) {
      const bytes = readFileSync(f);
      for (const m of needles) if (bytes.includes(Buffer.from(m))) inFolder.push(`${m.slice(0, 30)} in ${f}`);
    }
    expect(inFolder).toEqual([]);
    await o.close();
  }, 240_000);

  it('(b) a phone report goes sealed to the same route, as PHONE', async () => {
    const password = `Phone-${tag()}-pw`;
    const { page, traffic, o } = await open();
    await page.goto(portal.url(HOST, '/oral-report'));
    await page.getByRole('heading', { level: 2 }).first().waitFor();
    await page.getByLabel(label('forms.relation.label')).fill(`Driver ${MARKERS.relation}`);
    await page.getByRole('radio', { name: en['forms.identity.anonymous'] }).check();
    await page.getByLabel(label('forms.follow.password')).fill(password);
    await page.getByLabel(label('forms.follow.confirm')).fill(password);
    await page.getByRole('checkbox', { name: new RegExp(en['forms.terms.accept']!) }).check();
    const button = page.getByRole('button', { name: en['forms.send.oral'] });
    await expect.poll(() => button.isEnabled()).toBe(true);
    await button.click();
    const dialog = page.getByRole('dialog', { name: en['forms.success.oral.title'] });
    await dialog.waitFor({ timeout: 90_000 });
    const caseNumber = (await dialog.getByTestId('case-number').textContent())!.replace(/ /g, '');
    const row = await portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'submission_type', 'status']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: true, wrapped_key: null, submission_type: 'PHONE', status: 'PENDING_WHISTLEBLOWER_CONTACT' });
    const view = (await api('GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token })).data;
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.wrap.wrap), { caseId: row.id, epoch: view.epoch, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    expect(JSON.parse(await openFieldText(dk, fieldContext(row.id, 'report_case.details_enc'), fromBase64(view.envelopes.details))).whistleblowerRelation).toBe(`Driver ${MARKERS.relation}`);
    const recorded = await Promise.all(traffic);
    expect(recorded.some((r) => r.what === '→ POST' && r.url.endsWith('/api/public/case/new/sealed') && r.body.includes('"submissionType":"PHONE"'))).toBe(true);
    expect(recorded.some((r) => /\/api\/public\/case\/new\/by-/.test(r.url))).toBe(false);
    expect(found(recorded, [MARKERS.relation])).toEqual([]);
    await o.close();
  }, 240_000);
});
