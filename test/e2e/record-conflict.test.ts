/**
 * Two handlers on one record (issue 38 Build 5; docs/decisions/record-versions.md "Authors
 * and conflicts"), in real Chromium against the real server, on a sealed case (the
 * browsers seal, open and hash; SEALED_CASES=browser) and on a server-keyed one.
 *
 * Hanne and Carl open the same phone case's record and both edit. Hanne saves first;
 * Carl's save is refused by the server (409 RECORD_VERSION_CONFLICT) and his page shows
 * his text and hers, with a choice. He edits from hers (his own text kept beside the
 * editor) and saves version 3; Hanne, still on version 2, is refused in turn and saves
 * hers as version 4 on top. Each version names its author. The reporter approves
 * version 4; the record stays editable, the approved version downloads with its hash and
 * approval time (the file read back), and a later save is version 5 awaiting approval.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { axeViolations } from './harness.ts';
import { call } from '../server/api.ts';
import { createPhoneCase } from './reporter.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, certifyColleague, english, enrolHandler, makeRecoveryKey, openCaseFromInbox as openCase, signInHandler, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { recordHash } from '../../core/crypto/index.ts';
import { Browser as ReporterBrowser, signIn as reporterSignIn } from '../server/identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'recordwork');
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });
const REPORTER = 'a long phone reporter password';

const TEXTS = {
  v1: 'Phone call on Monday: the caller said the till was short.',
  carl: 'Carl: the caller named the night shift and the 3rd of March.',
  hanne2: 'Hanne: the caller said the till was short twice, on Monday and Friday.',
  hanne4: 'Hanne again: two shortfalls, Monday and Friday; the caller will send the receipts.',
  v5: 'Hanne after the approval: two shortfalls; receipts received on Wednesday.',
};

const recordOf = (page: Page, sealed: boolean) => page.getByTestId(sealed ? 'sealed-record' : 'case-record');

async function save(page: Page, sealed: boolean, text: string) {
  const record = recordOf(page, sealed);
  await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(text);
  await record.getByRole('button', { name: msg('handler.record.save') }).click();
}

async function twoHandlersOnOneRecord(kind: 'sealed' | 'server-keyed') {
  const sealed = kind === 'sealed';
  const host = sealed ? 'group.localhost' : 'localhost';
  const { portal } = s;
  const db = portal.server.ctx.db;
  const company = (await companyByHost(db, host))!;
  const officer = company.settings.protectionOfficers[0]!.id;

  const hanneH = await enrolHandler(s, host, { name: 'hanne', password: 'hanne long passphrase 1', officers: [officer] });
  const carlH = await enrolHandler(s, host, { name: 'carl', password: 'carl long passphrase 22', officers: [officer] });
  let caseNumber: string;
  let caseId: string;
  if (sealed) {
    // The recovery key certifies Hanne's key; she certifies Carl's, so the case is sealed to both.
    await signInHandler(portal, host, hanneH);
    await makeRecoveryKey(hanneH.page);
    await certifyColleague(hanneH.page, 'carl');
    const c = await sendFollowedSealedCase(portal.server, host, { password: REPORTER, officerId: officer, submissionType: 'PHONE', details: { whistleblowerRelation: 'Employee', reportedPersons: [] } });
    ({ caseNumber, caseId } = c);
  } else {
    // No recovery key for this company: its cases stay server-keyed.
    caseNumber = await createPhoneCase(portal, { officerId: officer, password: REPORTER });
    await signInHandler(portal, host, hanneH);
    caseId = (await db.selectFrom('report_case').select('id').where('case_number', '=', caseNumber).executeTakeFirstOrThrow()).id;
  }
  // Carl signs in once the case is there (an inbox already shown lists no newer case until it is left).
  await signInHandler(portal, host, carlH);
  expect((await db.selectFrom('report_case').select('sealed').where('id', '=', caseId).executeTakeFirstOrThrow()).sealed).toBe(sealed);
  const versions = () => db.selectFrom('case_record_version').select(['version', 'sha256', 'created_by', 'approved_at']).where('case_id', '=', caseId).orderBy('version').execute();
  const hanne = hanneH.page;
  const carl = carlH.page;
  const hanneRecord = recordOf(hanne, sealed);
  const carlRecord = recordOf(carl, sealed);

  // Version 1 by Hanne; Carl opens the case and begins an edit of it.
  await openCase(hanne, caseNumber);
  await hanneRecord.getByRole('button', { name: msg('handler.record.write') }).click();
  await save(hanne, sealed, TEXTS.v1);
  await hanneRecord.getByTestId('record-version-1').waitFor();
  await hanneRecord.getByTestId('record-author-1').getByText(msg('recordwork.by', { name: 'hanne' })).waitFor();
  await openCase(carl, caseNumber);
  await carlRecord.getByTestId('record-text').getByText(TEXTS.v1).waitFor();
  await carlRecord.getByRole('button', { name: msg('handler.record.edit') }).click();
  await carlRecord.getByLabel(msg('handler.record.text'), { exact: true }).fill(TEXTS.carl);

  // Hanne edits too and saves first: version 2.
  await hanneRecord.getByRole('button', { name: msg('handler.record.edit') }).click();
  await save(hanne, sealed, TEXTS.hanne2);
  await hanneRecord.getByTestId('record-version-2').waitFor();

  // Carl's save is refused: his text and hers, and the choice; nothing was stored.
  await carlRecord.getByRole('button', { name: msg('handler.record.save') }).click();
  const conflict = carlRecord.getByTestId('record-conflict');
  await conflict.getByRole('heading', { name: msg('recordwork.conflict.title', { version: 2 }) }).waitFor();
  expect(await conflict.getByTestId('record-conflict-mine').textContent()).toContain(TEXTS.carl);
  expect(await conflict.getByTestId('record-conflict-theirs').textContent()).toContain(TEXTS.hanne2);
  expect(await conflict.textContent()).toContain('hanne saved it on');
  // The focus moved to the choice.
  expect(await carl.evaluate(() => document.activeElement?.textContent)).toBe(msg('recordwork.conflict.title', { version: 2 }));
  expect((await versions()).map((v) => v.version)).toEqual([1, 2]);
  expect(await axeViolations(carl)).toEqual([]);

  // He edits from hers: her text in the editor, his own kept beside it. He adds his part: version 3, his.
  await conflict.getByRole('button', { name: msg('recordwork.conflict.editTheirs') }).click();
  const editor = carlRecord.getByLabel(msg('handler.record.text'), { exact: true });
  expect(await editor.inputValue()).toBe(TEXTS.hanne2);
  expect(await carlRecord.getByLabel(msg('recordwork.mine.title')).inputValue()).toBe(TEXTS.carl);
  expect(await axeViolations(carl)).toEqual([]);
  const merged = `${TEXTS.hanne2} ${TEXTS.carl}`;
  await save(carl, sealed, merged);
  await carlRecord.getByTestId('record-version-3').waitFor();
  await carlRecord.getByTestId('record-author-3').getByText(msg('recordwork.by', { name: 'carl' })).waitFor();
  await carlRecord.getByTestId('record-author-2').getByText(msg('recordwork.by', { name: 'hanne' })).waitFor();
  expect(await carlRecord.getByTestId('record-mine').count()).toBe(0);

  // Hanne, still on version 2, edits again: refused in turn; she saves hers on top of his as version 4.
  await hanneRecord.getByRole('button', { name: msg('handler.record.edit') }).click();
  await save(hanne, sealed, TEXTS.hanne4);
  const hanneConflict = hanneRecord.getByTestId('record-conflict');
  await hanneConflict.getByRole('heading', { name: msg('recordwork.conflict.title', { version: 3 }) }).waitFor();
  expect(await hanneConflict.getByTestId('record-conflict-theirs').textContent()).toContain(merged);
  expect(await hanneConflict.getByTestId('record-conflict-mine').textContent()).toContain(TEXTS.hanne4);
  expect(await hanneConflict.textContent()).toContain('carl saved it on');
  await hanneConflict.getByRole('button', { name: msg('recordwork.conflict.saveMine', { next: 4 }) }).click();
  await hanneRecord.getByTestId('record-version-4').waitFor();
  await hanneRecord.getByTestId('record-text').getByText(TEXTS.hanne4).waitFor();
  const ids = Object.fromEntries((await db.selectFrom('handler_account').select(['id', 'name']).where('company_id', '=', company.id).where('name', 'in', ['hanne', 'carl']).execute()).map((h) => [h.name, h.id]));
  expect((await versions()).map((v) => [v.version, v.created_by, v.sha256])).toEqual([
    [1, ids.hanne, await recordHash(TEXTS.v1)],
    [2, ids.hanne, await recordHash(TEXTS.hanne2)],
    [3, ids.carl, await recordHash(merged)],
    [4, ids.hanne, await recordHash(TEXTS.hanne4)],
  ]);

  // The reporter approves version 4 over its hash.
  const tokens = await reporterSignIn(new ReporterBrowser(portal.server, host), caseNumber, REPORTER);
  const approved = await call(portal.server, 'PUT', '/api/private/case/approve', { host, token: tokens.access_token, json: { sha256: await recordHash(TEXTS.hanne4) } });
  expect(approved.status, JSON.stringify(approved.data)).toBe(200);
  const approvedAt = approved.data.approvedAt as string;

  // Hanne sees the approval; the approved version downloads with its hash and approval time (made in her browser on a sealed case).
  await openCase(hanne, caseNumber);
  await hanneRecord.getByTestId('record-approval').getByText(msg('handler.record.approved', { when: '' }).trim(), { exact: false }).waitFor();
  expect(await hanneRecord.getByTestId('record-download-3').count()).toBe(0);
  const [download] = await Promise.all([hanne.waitForEvent('download'), hanneRecord.getByTestId('record-download-4').click()]);
  expect(download.suggestedFilename()).toBe(`record-${caseNumber}-v4.txt`);
  const body = readFileSync((await download.path())!, 'utf8');
  expect(body).toContain(`Record of case ${caseNumber}, version 4`);
  expect(body).toContain(`Approved by the reporter: ${approvedAt}`);
  expect(body).toContain(await recordHash(TEXTS.hanne4));
  const between = body.split('----- BEGIN RECORD -----\n')[1]!.split('\n----- END RECORD -----')[0]!;
  expect(between).toBe(TEXTS.hanne4);
  expect(await recordHash(between)).toBe(await recordHash(TEXTS.hanne4));

  // "Edit the record" stays: saving is version 5, awaiting approval; version 4 keeps its approval and its download.
  await hanneRecord.getByRole('button', { name: msg('handler.record.edit') }).click();
  await hanneRecord.getByTestId('record-after-approval').getByText(msg('recordwork.afterApproval', { version: 4, next: 5 })).waitFor();
  expect(await axeViolations(hanne)).toEqual([]);
  await save(hanne, sealed, TEXTS.v5);
  await hanneRecord.getByTestId('record-version-5').waitFor();
  await hanneRecord.getByTestId('record-approval').getByText(msg('handler.record.awaiting')).waitFor();
  await hanneRecord.getByTestId('record-download-4').waitFor();
  expect(await hanneRecord.getByTestId('record-download-5').count()).toBe(0);
  const after = await versions();
  expect(after.map((v) => [v.version, v.approved_at ? new Date(v.approved_at).toISOString() : null])).toEqual([[1, null], [2, null], [3, null], [4, approvedAt], [5, null]]);
  expect((await db.selectFrom('report_case').select('approved_at').where('id', '=', caseId).executeTakeFirstOrThrow()).approved_at).toBeNull();
  expect(await axeViolations(hanne)).toEqual([]);
}

describe('two handlers on one record', () => {
  it('on a sealed case: the second save is refused with both texts and a choice; authors; the approved version downloads; edited after approval', () => twoHandlersOnOneRecord('sealed'), 400_000);
  it('on a server-keyed case, the same', () => twoHandlersOnOneRecord('server-keyed'), 400_000);
});
