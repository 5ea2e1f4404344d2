/**
 * The record of a sealed phone case in real Chromium against the real server with
 * SEALED_CASES=browser (issue 37; docs/decisions/record-versions.md "Sealed cases").
 * Hanne enrols in her browser, makes the company's recovery key and is certified; a
 * followed phone case for her officer is sealed as a reporter's browser seals it
 * (test/helpers/sealed-case.ts, the sealed route with `submissionType: PHONE`).
 *
 * Hanne writes the record in her browser (sealed and hashed there); the reporter signs
 * in on the provider's page, opens the record, sees its hash checked in the page,
 * comments (sealed); Hanne sees the comment opened and writes version 2; a server that
 * stores another hash beside it is caught by both pages, and the reporter's offers no
 * approval; with the true hash back the reporter approves version 2 over its hash and
 * Hanne sees the approval. axe finds
 * nothing on these states; no marker is in any request or response, header or URL the
 * browsers saw, nor in any row of any table.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { axeViolations } from './harness.ts';
import { signInThroughProvider } from './reporter.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { browserSuite, english, enrolHandler, makeRecoveryKey, markersIn, openCaseFromInbox as openCase, signInHandler, textOf, NO_THROTTLE, SEALED } from '../helpers/sealed-e2e.ts';
import { recordHash } from '../../core/crypto/index.ts';
import { companyByHost } from '../../server/companies/service.ts';

const { msg } = english('handler', 'keys', 'sealed', 'private', 'record');

const HOST = 'group.localhost';
const MARKERS = { identity: 'MARKER-rec-identity-51af', v1: 'MARKER-rec-version1-0c3d', comment: 'MARKER-rec-comment-e7b2', v2: 'MARKER-rec-version2-9a44' };
const HANNE = 'hanne long passphrase 1';
const REPORTER = 'a long phone reporter password';

/** Every request and response any page saw is recorded, with URLs, headers and bodies. */
const s = browserSuite({ ...SEALED, ...NO_THROTTLE });

describe('the record of a sealed phone case', () => {
  it('is written sealed by the handler, opened, checked, commented and approved by the reporter, and the handler sees both; a stored hash that does not match is named', async () => {
    const { portal } = s;
    const company = (await companyByHost(portal.server.ctx.db, HOST))!;
    const officerA = company.settings.protectionOfficers[0]!.id;

    // Hanne enrols, makes the recovery key (which certifies her key) and stays signed in.
    const enrolled = await enrolHandler(s, HOST, { name: 'hanne', password: HANNE, officers: [officerA] });
    await signInHandler(portal, HOST, enrolled);
    await makeRecoveryKey(enrolled.page);
    const hanne = enrolled.page;

    // A followed phone case, sealed as a reporter's browser seals it.
    const sealed = await sendFollowedSealedCase(portal.server, HOST, {
      password: REPORTER,
      officerId: officerA,
      submissionType: 'PHONE',
      details: { whistleblowerRelation: 'Employee', reportedPersons: [] },
      whistleblower: { name: `Wanda ${MARKERS.identity}`, email: 'wanda@example.org' },
    });
    const { caseNumber } = sealed;

    // Hanne writes the record: sealed and hashed in her browser.
    await openCase(hanne, caseNumber);
    const record = hanne.getByTestId('sealed-record');
    await record.getByText(msg('handler.record.none')).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);
    await record.getByRole('button', { name: msg('handler.record.write') }).click();
    const v1 = `Phone call on Monday. ${MARKERS.v1} said the till was short.`;
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(v1);
    expect(await axeViolations(hanne)).toEqual([]);
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-text').getByText(MARKERS.v1, { exact: false }).waitFor();
    await record.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    await record.getByText(msg('handler.record.hash', { hash: await recordHash(v1) })).waitFor();
    const stored = await portal.server.ctx.db.selectFrom('case_record_version').select(['version', 'sha256']).where('case_id', '=', sealed.caseId).execute();
    expect(stored).toEqual([{ version: 1, sha256: await recordHash(v1) }]);

    // The reporter signs in on the provider's page and opens the record here; the page checks its hash.
    const { page: reporter } = await s.open();
    // The provider's page derives the verifier and the reporter key in its own script first.
    await signInThroughProvider(portal, reporter, caseNumber, REPORTER, '/private/report', { host: HOST, timeout: 120_000 });
    await reporter.getByRole('navigation', { name: msg('private.nav.label') }).waitFor();
    await reporter.getByRole('link', { name: msg('private.nav.report') }).first().click();
    await reporter.getByText(MARKERS.v1, { exact: false }).first().waitFor();
    await reporter.getByTestId('record-hash').getByText(await recordHash(v1), { exact: false }).waitFor();
    await reporter.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    expect(await axeViolations(reporter)).toEqual([]);

    // A comment, sealed here.
    await reporter.getByRole('button', { name: msg('private.report.comment.open'), exact: true }).click();
    const commentDialog = reporter.getByRole('dialog', { name: msg('private.report.comment.title') });
    await commentDialog.getByRole('textbox').fill(`It was Tuesday, not Monday ${MARKERS.comment}`);
    await commentDialog.getByRole('button', { name: msg('private.report.comment.submit') }).click();
    await reporter.getByText(msg('private.report.comment.sent')).waitFor();
    await reporter.getByText(MARKERS.comment, { exact: false }).waitFor();

    // Hanne opens the case again: the comment opened in her browser. She writes version 2.
    await openCase(hanne, caseNumber);
    await record.getByTestId('record-comments').getByText(MARKERS.comment, { exact: false }).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);
    await record.getByRole('button', { name: msg('handler.record.edit') }).click();
    const v2 = `Phone call on Tuesday. ${MARKERS.v2} said the till was short.`;
    await record.getByLabel(msg('handler.record.text'), { exact: true }).fill(v2);
    await record.getByRole('button', { name: msg('handler.record.save') }).click();
    await record.getByTestId('record-check-2').getByText(msg('record.verified')).waitFor();

    // A server that stores another hash beside version 2: the reporter's page opens it, finds the hash is not the text's, says so, and offers no approval.
    const v2Hash = await recordHash(v2);
    const setHash = (sha256: string) => portal.server.ctx.db.updateTable('case_record_version').set({ sha256 }).where('case_id', '=', sealed.caseId).where('version', '=', 2).execute();
    await setHash(await recordHash('another text'));
    await reporter.reload();
    await reporter.getByText(MARKERS.v2, { exact: false }).first().waitFor();
    await reporter.getByTestId('record-mismatch').getByText(msg('record.reporter.refuse', { version: 2 })).waitFor();
    await reporter.getByTestId('record-check-2').getByText(msg('record.mismatch', { version: 2 })).waitFor();
    await reporter.getByTestId('record-check-1').getByText(msg('record.verified')).waitFor();
    expect(await reporter.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).isDisabled()).toBe(true);
    expect(await axeViolations(reporter)).toEqual([]);
    // Hanne's page names it too.
    await openCase(hanne, caseNumber);
    await record.getByTestId('record-check-2').getByText(msg('record.mismatch', { version: 2 })).waitFor();

    // The true hash back: the reporter approves version 2, over its hash.
    await setHash(v2Hash);
    await reporter.reload();
    await reporter.getByTestId('record-check-2').getByText(msg('record.verified')).waitFor();
    expect(await reporter.getByTestId('record-mismatch').count()).toBe(0);
    await reporter.getByRole('button', { name: msg('private.report.approve.open'), exact: true }).click();
    const approveDialog = reporter.getByRole('alertdialog', { name: msg('private.report.approve.title') });
    await approveDialog.waitFor();
    expect(await axeViolations(reporter)).toEqual([]);
    await approveDialog.getByRole('button', { name: msg('private.report.approve.confirm') }).click();
    await reporter.getByText(msg('private.report.approved')).waitFor();
    const approved = await portal.server.ctx.db.selectFrom('case_record_version').select(['version', 'approved_at']).where('case_id', '=', sealed.caseId).orderBy('version').execute();
    expect(approved.map((v) => [v.version, v.approved_at !== null])).toEqual([[1, false], [2, true]]);

    // Hanne sees the approval beside version 2.
    await openCase(hanne, caseNumber);
    await record.getByTestId('record-approval').getByText(msg('handler.record.approved', { when: '' }).trim(), { exact: false }).waitFor();
    await record.getByTestId('record-versions').locator('li').nth(1).getByText(msg('handler.record.versionApproved', { when: '' }).trim(), { exact: false }).waitFor();
    expect(await axeViolations(hanne)).toEqual([]);

    // No marker on the wire, in any request or response, header or URL.
    // The pages closed first: a response still streaming (the session's open channels) gives up its body then, and every finished one is kept.
    for (const p of s.opened) await p.close().catch(() => undefined);
    const wire = await s.recorded();
    const recorded = wire.map(textOf).join('\n');
    expect(recorded).toContain('/record/sealed');
    expect(recorded).toContain('/comments/sealed');
    expect(recorded).toContain(sealed.body.envelopes.details);
    expect(markersIn(wire, Object.values(MARKERS), { base64: false })).toEqual([]);
    // Nor in any row of any table.
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(portal.server.ctx.db);
    expect(tables.rows.length).toBeGreaterThan(10);
    for (const { table_name } of tables.rows) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table_name)}`.execute(portal.server.ctx.db);
      const text = JSON.stringify(rows.rows, (_k, v) => (v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('latin1') : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
      for (const m of Object.values(MARKERS)) expect(text, table_name).not.toContain(m);
    }
  }, 300_000);
});
