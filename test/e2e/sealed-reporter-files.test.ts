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
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { axeViolations } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { call, listFiles } from '../server/api.ts';
import {
  browserSuite, databaseText, describeProblem, english, fillIdentity, followAndAccept, markersIn as found, openReportForm, reportSent, sealingCompany, sendReport, stepOf, SEALED,
} from '../helpers/sealed-e2e.ts';
import { concat, fieldContext, fromBase64, keyId, openFieldText, openFileName, openSealedBox, openSealedFile, type Bytes, type HandlerKeys } from '../../core/crypto/index.ts';

const { en, label } = english('common', 'forms', 'notifying');
const HOST = 'localhost';

const tag = () => randomBytes(5).toString('hex');
const MARKERS = { description: `Descr-${tag()}-marker`, name: `Name-${tag()}-marker`, unit: `Unit-${tag()}-marker`, fileA: `FileA-${tag()}-marker`, fileB: `FileB-${tag()}-marker`, relation: `Rel-${tag()}-marker` };
const ADDRESS = `notify-${tag()}@marker.example`;
const FILES = [
  { name: `Kassebog ${MARKERS.fileA}.csv`, mimeType: 'text/csv', buffer: Buffer.from(`day;amount;note\n${'Friday;1200;paid twice\n'.repeat(4000)}${MARKERS.fileA}-bytes;0;end\n`) },
  { name: `Noter ${MARKERS.fileB}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`Notes from the stock room.\n${MARKERS.fileB}-bytes\n`) },
];
/** What of a file must not show anywhere: its name and a run of its bytes that holds its marker. */
const fileNeedles = FILES.flatMap((f) => [f.name, f.buffer.subarray(f.buffer.length - 40).toString('latin1').trim()]);

const s = browserSuite(SEALED);
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };

/** A call to the server as a client of the company at `localhost` makes it (the handler's calls with her API token). */
const api = (method: string, pathname: string, opts: { token?: string; json?: unknown } = {}) => call(s.portal.server, method, pathname, { host: HOST, ...opts });

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

beforeAll(async () => {
  // The recovery key and Hanne's certified key, made here as a handler's browser would.
  ({ handler: hanne, keys: hanneKeys } = await sealingCompany(s.portal, HOST, { name: 'Hanne Files', officerId: await firstOfficerId(s.portal) }));
}, 60_000);

describe('the report form seals files, the notification address and phone reports', () => {
  it('(a) a followed report with two files and e-mail notification: sealed in the browser; nothing of it on the wire, in a row or in the data folder; the handler opens the files', async () => {
    const password = `Files-${tag()}-pw`;
    const { page, wire: traffic, o } = await s.open();
    await openReportForm(s.portal, HOST, page);
    await describeProblem(page, { relation: `Storekeeper ${MARKERS.relation}`, violation: 'THEFT', description: `Stock sold privately: ${MARKERS.description}`, unit: MARKERS.unit });
    await stepOf(page, 'documents').locator('input[type="file"]').setInputFiles(FILES);
    for (const f of FILES) await stepOf(page, 'documents').getByText(f.name).first().waitFor();
    await fillIdentity(page, { name: MARKERS.name, email: ADDRESS });
    await page.getByRole('checkbox', { name: en['forms.identity.notification'] }).check();
    // The sentence beside the choice: kept apart, sealed to the mail key, deleted at close.
    await page.getByText(en['notifying.sealed']!).waitFor();
    expect(await axeViolations(page), 'identity step with the notice').toEqual([]);
    await followAndAccept(page, password);
    await sendReport(page);
    const { caseNumber } = await reportSent(page, 'online', 90_000);

    const row = await s.portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: true, wrapped_key: null });

    // The handler opens the files as the reporter picked them.
    const view = (await api('GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token })).data;
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.wrap.wrap), { caseId: row.id, epoch: view.epoch, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    expect(view.files).toHaveLength(2);
    for (const [i, f] of (view.files as { id: string; name: string }[]).entries()) {
      const name = await openFileName(dk, row.id, f.id, f.name);
      expect(name).toEqual({ name: FILES[i]!.name, size: FILES[i]!.buffer.length, type: FILES[i]!.mimeType });
      const res = await fetch(`${s.portal.server.url}/api/handler/cases/${caseNumber}/files/${f.id}`, { headers: { authorization: `Bearer ${hanne.token}` } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await readAll(openSealedFile(dk, { id: f.id, ...name }, res.body!))).equals(FILES[i]!.buffer)).toBe(true);
    }
    const identity = JSON.parse(await openFieldText(dk, fieldContext(row.id, 'report_case.whistleblower_enc'), fromBase64(view.envelopes.whistleblower)));
    expect(identity).toMatchObject({ name: MARKERS.name, email: null, notification: true });
    // The address, sealed to the mail key: the mail worker's key opens it, in the language of the page.
    const notify = await s.portal.server.ctx.db.selectFrom('case_notify').select('box').where('case_id', '=', row.id).executeTakeFirstOrThrow();
    expect(await s.portal.server.ctx.mailKeys.openNotify(row.id, new Uint8Array(notify.box))).toEqual({ address: ADDRESS, language: 'en' });

    // The recording: the files went by tus to the sealed session, the case to the sealed route, nothing in clear.
    const recorded = await traffic.all();
    expect(recorded.some((r) => r.what === '→ POST' && r.url.endsWith('/api/public/upload-sessions') && r.body.includes('"sealed":true'))).toBe(true);
    expect(recorded.filter((r) => r.what === '→ PATCH' && r.url.includes('/api/public/uploads/')).length).toBeGreaterThanOrEqual(2);
    expect(recorded.some((r) => r.what === '→ POST' && r.url.endsWith('/api/public/case/new/sealed'))).toBe(true);
    expect(recorded.some((r) => /\/api\/public\/case\/new\/by-/.test(r.url))).toBe(false);
    const needles = [...Object.values(MARKERS), ADDRESS, ...fileNeedles];
    expect(found(recorded, needles)).toEqual([]);
    // Nor any row of the database, nor any file of the data folder.
    const rows = await databaseText(s.portal);
    expect(needles.filter((m) => rows.includes(m))).toEqual([]);
    const inFolder: string[] = [];
    for (const f of listFiles(s.portal.server.dataDir)) {
      const bytes = readFileSync(f);
      for (const m of needles) if (bytes.includes(Buffer.from(m))) inFolder.push(`${m.slice(0, 30)} in ${f}`);
    }
    expect(inFolder).toEqual([]);
    await o.close();
  }, 240_000);

  it('(b) a phone report goes sealed to the same route, as PHONE', async () => {
    const password = `Phone-${tag()}-pw`;
    const { page, wire: traffic, o } = await s.open();
    await openReportForm(s.portal, HOST, page, '/oral-report');
    await page.getByLabel(label('forms.relation.label')).fill(`Driver ${MARKERS.relation}`);
    await fillIdentity(page, 'anonymous');
    await followAndAccept(page, password);
    await sendReport(page, 'oral');
    const { caseNumber } = await reportSent(page, 'oral', 90_000);
    const row = await s.portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key', 'submission_type', 'status']).where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: true, wrapped_key: null, submission_type: 'PHONE', status: 'PENDING_WHISTLEBLOWER_CONTACT' });
    const view = (await api('GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token })).data;
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view.wrap.wrap), { caseId: row.id, epoch: view.epoch, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    expect(JSON.parse(await openFieldText(dk, fieldContext(row.id, 'report_case.details_enc'), fromBase64(view.envelopes.details))).whistleblowerRelation).toBe(`Driver ${MARKERS.relation}`);
    const recorded = await traffic.all();
    expect(recorded.some((r) => r.what === '→ POST' && r.url.endsWith('/api/public/case/new/sealed') && r.body.includes('"submissionType":"PHONE"'))).toBe(true);
    expect(recorded.some((r) => /\/api\/public\/case\/new\/by-/.test(r.url))).toBe(false);
    expect(found(recorded, [MARKERS.relation])).toEqual([]);
    await o.close();
  }, 240_000);
});
