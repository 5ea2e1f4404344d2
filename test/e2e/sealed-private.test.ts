/**
 * The private area of a sealed case writes sealed (issue 37; docs/decisions/sealed-cases.md
 * "Reporter pages"), in real Chromium against the real server with SEALED_CASES=browser.
 * The demo company `localhost` gets a recovery key and a certified handler key, made here
 * as a handler's browser would; the cases are made through the API with core/crypto, as a
 * browser seals them.
 *
 * (a) The reporter signs in, attaches a text file to a message (its hidden-data check and
 *     content check in the page, then sealed chunk by chunk and sent by tus as
 *     ciphertext); the handler's key opens the file identical, under its name. The
 *     handler sends a sealed file, and one whose sealed name was altered: the page lists
 *     the first under its opened name and names the second as not opened. Saving the
 *     first streams the opened bytes into the file picked (the File System Access
 *     picker, its OS dialog stood in for by a writable in the page), identical to what
 *     was sealed; in a browser without the picker the page says beforehand that the file
 *     is opened in memory, and the download is identical too. The reporter changes the
 *     identity: sealed here, opened by the handler's key. No marker or file byte in any
 *     recorded request or response of the browser, nor in any row. axe on the new states.
 * (b) A server-keyed case being migrated, its reporter signed in by verifier: the private
 *     area makes the reporter wrap at sign-in; it opens with the reporter key to the
 *     case's data key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { axeViolations } from './harness.ts';
import { firstOfficerId, signInThroughProvider } from './reporter.ts';
import { call, caseDto, form } from '../server/api.ts';
import { followedAccount, sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, databaseText, english, markersIn, sealingCompany, SEALED } from '../helpers/sealed-e2e.ts';
import {
  concat, fromBase64, keyId, openCaseParts, openFileName, openSealedBox, openSealedFile, sealFileForUpload, sealMessage, unwrapDataKey, type Bytes, type HandlerKeys,
} from '../../core/crypto/index.ts';

const { en } = english('common', 'private', 'sealing', 'sealedPrivate');
const HOST = 'localhost';
const TUS = { 'tus-resumable': '1.0.0' };

const tag = () => randomBytes(5).toString('hex');
const MARKERS = {
  message: `Msg-${tag()}-marker`,
  fileName: `Ledger-${tag()}-marker`,
  fileBytes: `Bytes-${tag()}-marker`,
  theirName: `Questions-${tag()}-marker`,
  theirBytes: `Theirs-${tag()}-marker`,
  email: `mail-${tag()}@marker.example`,
  name: `Name-${tag()}-marker`,
};
/** A text file's bytes: the marker on many lines, over two 64 KiB chunks. */
const textFile = (marker: string) => Buffer.from(Array.from({ length: 4000 }, (_, i) => `${i} ${marker} line of the ledger`).join('\n') + '\n');

const s = browserSuite(SEALED);
let officerId: string;
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Bytes> {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

/** The picker's OS dialog stood in for: the file "picked" is a writable in the page, its bytes kept for the test. */
const PICKER_STUB = `(() => {
  window.__saved = [];
  window.showSaveFilePicker = async (opts) => ({
    createWritable: async () => {
      const parts = [];
      return new WritableStream({
        write(chunk) { parts.push(new Uint8Array(chunk)); },
        close() {
          let s = '';
          for (const p of parts) for (let i = 0; i < p.length; i += 0x8000) s += String.fromCharCode.apply(null, p.subarray(i, i + 0x8000));
          window.__saved.push({ name: opts && opts.suggestedName, b64: btoa(s) });
        },
      });
    },
  });
})();`;
const NO_PICKER = `(() => { Object.defineProperty(window, 'showSaveFilePicker', { value: undefined, configurable: true }); })();`;

beforeAll(async () => {
  officerId = await firstOfficerId(s.portal);
  // The recovery key and Hanne's certified key, made here as a handler's browser would.
  ({ handler: hanne, keys: hanneKeys } = await sealingCompany(s.portal, HOST, { name: 'Hanne Sealed', officerId }));
}, 60_000);

/** A reservation for a followed case and its reporter keys under `password`. */
const reserve = (password: string) => followedAccount(s.portal.server, HOST, password);

/** A handler's file of the case, sealed under `dk` and uploaded by tus into her sealed session; the message naming it. */
async function handlerFile(caseNumber: string, caseId: string, dk: Bytes, name: string, plain: Buffer) {
  const session = (await call(s.portal.server, 'POST', `/api/handler/cases/${caseNumber}/upload-sessions`, { token: hanne.token })).data.uploadSession as string;
  const sealed = await sealFileForUpload(dk, caseId, new Blob([new Uint8Array(plain)]), { name });
  const bytes = await readAll(sealed.stream);
  const meta = Object.entries({ fileId: sealed.fileId, name: sealed.name }).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');
  expect((await call(s.portal.server, 'POST', '/api/public/uploads', { host: HOST, pow: false, headers: { ...TUS, 'x-upload-session': session, 'upload-length': String(sealed.size), 'upload-metadata': meta } })).status).toBe(201);
  expect((await call(s.portal.server, 'PATCH', `/api/public/uploads/${sealed.fileId}`, { host: HOST, pow: false, body: new Uint8Array(bytes), headers: { ...TUS, 'x-upload-session': session, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } })).status).toBe(204);
  const msg = await sealMessage(dk, caseId, 'See the attached questions.');
  expect((await call(s.portal.server, 'POST', `/api/handler/cases/${caseNumber}/messages/sealed`, { token: hanne.token, json: { ...msg, type: 'STANDARD', uploads: [sealed.fileId] }, headers: { 'x-upload-session': session } })).status).toBe(201);
  return sealed.fileId;
}

describe('the private area of a sealed case', () => {
  it('(a) files both ways, saved by streaming or in memory, and the identity: sealed in the browser; no marker on the wire or in any row; axe', async () => {
    const password = `Sealed-${tag()}-pw`;
    const sealed = await sendFollowedSealedCase(s.portal.server, HOST, {
      password,
      officerId,
      details: { description: 'Invoices paid twice', violation: 'FRAUD', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' },
      whistleblower: { name: MARKERS.name, email: '', phone: null, phoneCountryCode: null, notification: false },
      reservationHeader: true,
    });
    const { caseId, account: r } = sealed;

    const { page, wire: traffic, o } = await s.open({ init: PICKER_STUB });
    await signInThroughProvider(s.portal, page, r.caseNumber, password, '/private/messages');
    await page.getByLabel(en['private.messages.label']!).waitFor();

    // (a) A file attached to a sealed message: checked and sealed here, only ciphertext leaves.
    const mine = textFile(MARKERS.fileBytes);
    await page.getByLabel(/^Attach files/).setInputFiles({ name: `${MARKERS.fileName}.txt`, mimeType: 'text/plain', buffer: mine });
    await page.getByLabel(en['private.messages.label']!).fill(`The ledger: ${MARKERS.message}`);
    await page.getByRole('button', { name: en['private.messages.send'] }).click();
    const own = page.locator('[data-own="true"]', { hasText: MARKERS.message });
    await own.waitFor({ timeout: 60_000 });
    await own.getByRole('button', { name: new RegExp(MARKERS.fileName) }).waitFor();

    // The handler's key opens it: the name and the bytes as attached.
    const view0 = await call(s.portal.server, 'GET', `/api/handler/cases/${r.caseNumber}/sealed`, { token: hanne.token });
    const dk = await openSealedBox(hanneKeys.ecdh, fromBase64(view0.data.wrap.wrap), { caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    const sentFile = (view0.data.files as { id: string; messageId: string; name: string }[]).at(-1)!;
    const name = await openFileName(dk, caseId, sentFile.id, sentFile.name);
    expect(name).toEqual({ name: `${MARKERS.fileName}.txt`, size: mine.length });
    const res = await fetch(`${s.portal.server.url}/api/handler/cases/${r.caseNumber}/files/${sentFile.id}`, { headers: { authorization: `Bearer ${hanne.token}` } });
    expect(Buffer.from(await readAll(openSealedFile(dk, { id: sentFile.id, ...name }, res.body!))).equals(mine)).toBe(true);

    // The handler's files: one that opens, one whose sealed name is altered on the server.
    const theirs = textFile(MARKERS.theirBytes);
    await handlerFile(r.caseNumber, caseId, dk, `${MARKERS.theirName}.txt`, theirs);
    const bad = await handlerFile(r.caseNumber, caseId, dk, 'altered.txt', textFile('other'));
    const stored = await s.portal.server.ctx.db.selectFrom('case_file').select('name_enc').where('id', '=', bad).executeTakeFirstOrThrow();
    const flipped = Buffer.from(stored.name_enc);
    flipped[flipped.length - 1]! ^= 1;
    await s.portal.server.ctx.db.updateTable('case_file').set({ name_enc: flipped }).where('id', '=', bad).execute();

    await page.reload();
    const files = page.getByRole('complementary', { name: en['private.files.title'] });
    const theirButton = files.getByRole('button', { name: new RegExp(MARKERS.theirName) });
    await theirButton.waitFor();
    await expect.poll(() => files.getByTestId('file-unopened').count()).toBe(1);
    await expect.poll(() => page.getByTestId('file-unopened').count()).toBe(2);
    expect(await files.getByText(en['sealedPrivate.save.fallback']!).count()).toBe(0);
    expect(await axeViolations(page), 'sealed files, one not opened').toEqual([]);

    // Saved by streaming into the picked file: identical to what the handler sealed.
    await theirButton.click();
    await page.getByTestId('sealed-save-status').and(page.locator('[data-state="saved"]')).waitFor();
    await page.getByText(en['sealedPrivate.save.saved']!.replace('{name}', `${MARKERS.theirName}.txt`)).waitFor();
    const saved = (await page.evaluate(() => (window as unknown as { __saved: { name: string; b64: string }[] }).__saved)) as { name: string; b64: string }[];
    expect(saved.map((s) => s.name)).toEqual([`${MARKERS.theirName}.txt`]);
    expect(Buffer.from(saved[0]!.b64, 'base64').equals(theirs)).toBe(true);
    expect(await axeViolations(page), 'sealed file saved').toEqual([]);

    // (a) The identity, changed here: sealed under the case's key.
    await page.getByRole('link', { name: en['private.nav.info'] }).first().click();
    await expect.poll(() => page.getByLabel(/First and last name/).inputValue()).toBe(MARKERS.name);
    // The notification wish has its own section on a sealed case (sealed-notify.test.ts changes it).
    await page.getByRole('heading', { name: en['sealedPrivate.notify.title'] }).waitFor();
    await page.getByLabel(en['private.info.email']!, { exact: true }).fill(MARKERS.email);
    await page.getByRole('button', { name: en['private.info.save'], exact: true }).click();
    await page.getByText(en['private.info.saved']!).waitFor();
    expect(await axeViolations(page), 'sealed identity saved').toEqual([]);
    const view1 = await call(s.portal.server, 'GET', `/api/handler/cases/${r.caseNumber}/sealed`, { token: hanne.token });
    expect((await openCaseParts(dk, view1.data)).whistleblower).toMatchObject({ name: MARKERS.name, email: MARKERS.email, notification: false });

    // The recording: nothing of the files, the message or the identity went in clear.
    const recorded = await traffic.all();
    expect(recorded.some((x) => x.what === '→ PATCH' && x.url.includes(`/api/public/uploads/${sentFile.id}`))).toBe(true);
    expect(recorded.some((x) => x.what === '→ PUT' && x.url.endsWith('/api/private/case/whistleblower/sealed'))).toBe(true);
    expect(recorded.some((x) => /\/api\/private\/case\/(messages\/new|whistleblower\/update)/.test(x.url))).toBe(false);
    const all = [...Object.values(MARKERS), mine.subarray(0, 40).toString('latin1'), theirs.subarray(0, 40).toString('latin1')];
    expect(markersIn(recorded, all)).toEqual([]);
    await o.close();

    // A browser without the picker: the page says what it does, and the download is identical.
    const second = await s.open({ init: NO_PICKER });
    await signInThroughProvider(s.portal, second.page, r.caseNumber, password, '/private/messages');
    const files2 = second.page.getByRole('complementary', { name: en['private.files.title'] });
    await files2.getByText(en['sealedPrivate.save.fallback']!).waitFor();
    expect(await axeViolations(second.page), 'sealed files, no picker').toEqual([]);
    const [download] = await Promise.all([second.page.waitForEvent('download'), files2.getByRole('button', { name: new RegExp(MARKERS.theirName) }).click()]);
    expect(download.suggestedFilename()).toBe(`${MARKERS.theirName}.txt`);
    expect(readFileSync((await download.path())!).equals(theirs)).toBe(true);
    await second.page.getByText(en['sealedPrivate.save.saved']!.replace('{name}', `${MARKERS.theirName}.txt`)).waitFor();
    const recorded2 = await second.wire.all();
    expect(markersIn(recorded2, all)).toEqual([]);

    // Nor any row of the database.
    const rows = await databaseText(s.portal);
    expect(all.filter((m) => rows.includes(m))).toEqual([]);
  }, 300_000);

  it('(b) a migrating server-keyed case: the private area makes the reporter wrap at sign-in, and it opens to the case key', async () => {
    const password = `Migrating-${tag()}-pw`;
    const r = await reserve(password);
    const res = await call(s.portal.server, 'POST', '/api/public/case/new/by-form', { host: HOST, headers: { 'x-case-reservation': r.reservation }, body: form('caseDto', caseDto(officerId, { caseAccount: r.caseAccount })) });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const row = await s.portal.server.ctx.db.selectFrom('report_case').select(['id', 'sealed', 'wrapped_key']).where('case_number', '=', r.caseNumber).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(false);
    const reporterWraps = () => s.portal.server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', row.id).where('kind', '=', 'reporter').execute();
    expect(await reporterWraps()).toEqual([]);

    const { page, wire: traffic } = await s.open({ init: '' });
    await signInThroughProvider(s.portal, page, r.caseNumber, password, '/private/status');
    await expect.poll(async () => (await reporterWraps()).length, { timeout: 30_000 }).toBe(1);
    const [wrap] = await reporterWraps();
    const opened = await unwrapDataKey(r.reporterKey, new Uint8Array(wrap!.wrap), { caseId: row.id, epoch: 1 });
    expect(Buffer.from(opened).equals(Buffer.from(await s.portal.server.ctx.caseKeys.unwrap(row.id, row.wrapped_key!)))).toBe(true);
    // The page's calls: one offer, one wrap (the row can land before the browser reports the answer).
    const wrapCalls = async () => (await traffic.all()).filter((x) => x.url.endsWith('/api/private/case/my-case/reporter-wrap')).map((x) => x.what.slice(0, 5));
    await expect.poll(wrapCalls, { timeout: 30_000 }).toEqual(['→ GET', '← 200', '→ PUT', '← 201']);
  }, 120_000);
});
