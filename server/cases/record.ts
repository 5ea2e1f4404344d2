/**
 * The record of an oral or meeting report, proven (docs/decisions/record-versions.md):
 * every version a handler records is kept, sealed with the case key, with the
 * SHA-256 of its text; the reporter approves one version by its hash; a later edit
 * is a new version that needs a new approval. A record written before versions
 * existed (only `report_case.report_enc`) counts as version 1 and is stored as such
 * on the next write.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { COLUMNS, caseKey, type CaseRow } from './service.ts';
import { assertModifiable } from './reporter.ts';
import { onCaseEvent } from '../mail/notify.ts';
import { latestSealedVersion } from './sealed-record.ts';
import { approvedRecordDocument as recordDocument } from '../../core/record-document.ts';

export const RECORD_COLUMN = 'case_record_version.text_enc';

export interface RecordVersionView {
  version: number;
  sha256: string;
  createdAt: string;
  approvedAt: string | null;
  text: string;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** Every version, oldest first (the legacy single record as version 1 when none is stored). */
export async function loadVersions(ctx: AppContext, row: CaseRow, key?: Uint8Array): Promise<RecordVersionView[]> {
  const k = key ?? (await caseKey(ctx, row));
  const rows = await ctx.db.selectFrom('case_record_version').selectAll().where('case_id', '=', row.id).where('file_id', 'is', null).orderBy('version').execute();
  if (rows.length === 0 && row.report_enc) {
    const text = ctx.crypto.open(k, row.id, COLUMNS.report, row.report_enc).toString('utf8');
    return [{ version: 1, sha256: sha256Hex(text), createdAt: iso(row.report_updated_at ?? row.created_at), approvedAt: row.approved_at ? iso(row.approved_at) : null, text }];
  }
  return rows.map((r) => ({
    version: r.version,
    sha256: r.sha256,
    createdAt: iso(r.created_at),
    approvedAt: r.approved_at ? iso(r.approved_at) : null,
    text: ctx.crypto.open(k, row.id, RECORD_COLUMN, r.text_enc, r.id).toString('utf8'),
  }));
}

async function insertVersion(ctx: AppContext, trx: Transaction<DB>, row: CaseRow, key: Uint8Array, v: Omit<RecordVersionView, 'createdAt' | 'approvedAt'> & { createdAt: Date; approvedAt: Date | null; authorId: string | null }) {
  const id = randomUUID();
  await trx
    .insertInto('case_record_version')
    .values({ id, case_id: row.id, version: v.version, text_enc: ctx.crypto.seal(key, row.id, RECORD_COLUMN, v.text, id), sha256: v.sha256, created_at: v.createdAt, approved_at: v.approvedAt, created_by: v.authorId })
    .execute();
}

/** Who saves a version, and which version the editor was opened on (absent: a client that does not say, as before). */
export interface RecordWriter {
  authorId: string | null;
  baseVersion?: number;
}

/**
 * Another writer saved since this one opened the record: refused, never a silent
 * replacement. `currentVersion` tells the client which version to read and build on.
 */
export function versionConflict(currentVersion: number, field = 'baseVersion'): HttpError {
  return new HttpError(
    409,
    'RECORD_VERSION_CONFLICT',
    `Someone saved version ${currentVersion} of the record since you opened it. Read it, then save your text on top of it or edit from it.`,
    field,
    undefined,
    { currentVersion },
  );
}

/**
 * Records a version of the text. The same text as the latest version changes
 * nothing; any other text is a new version, and a case the reporter had approved
 * awaits approval again (the earlier version keeps its approval time). With a
 * `baseVersion` that is not the latest, nothing is stored (409 RECORD_VERSION_CONFLICT).
 */
export async function recordVersion(ctx: AppContext, row: CaseRow, text: string, writer: RecordWriter): Promise<void> {
  const key = await caseKey(ctx, row);
  const hash = sha256Hex(text);
  const at = new Date();
  await ctx.db.transaction().execute(async (trx) => {
    // The case row locked: two writers compare with the latest version one after the other.
    const current = (await trx.selectFrom('report_case').selectAll().where('id', '=', row.id).forUpdate().executeTakeFirstOrThrow()) as CaseRow;
    const stored = await trx.selectFrom('case_record_version').select(['version', 'sha256']).where('case_id', '=', row.id).where('file_id', 'is', null).orderBy('version', 'desc').executeTakeFirst();
    const legacy = !stored && current.report_enc ? (await loadVersions(ctx, current, key))[0] : undefined;
    const latest = stored ?? legacy;
    if (latest && latest.sha256 === hash) return;
    const latestVersion = latest?.version ?? 0;
    if (writer.baseVersion !== undefined && writer.baseVersion !== latestVersion) throw versionConflict(latestVersion);
    if (legacy) {
      await insertVersion(ctx, trx, row, key, { ...legacy, createdAt: new Date(legacy.createdAt), approvedAt: legacy.approvedAt ? new Date(legacy.approvedAt) : null, authorId: null });
    }
    await insertVersion(ctx, trx, row, key, { version: latestVersion + 1, sha256: hash, text, createdAt: at, approvedAt: null, authorId: writer.authorId });
    await trx
      .updateTable('report_case')
      .set({ report_enc: ctx.crypto.seal(key, row.id, COLUMNS.report, text), report_updated_at: at, approved_at: null })
      .where('id', '=', row.id)
      .execute();
    const moved = await trx.updateTable('report_case').set({ status: 'RECEIVED' }).where('id', '=', row.id).where('status', '=', 'PENDING_WHISTLEBLOWER_CONTACT').executeTakeFirst();
    if (Number(moved.numUpdatedRows) > 0) await trx.insertInto('case_status_event').values({ case_id: row.id, status: 'RECEIVED', at }).execute();
    // A new version waits for the reporter's approval: news for them.
    await onCaseEvent(ctx, trx, row.id, 'reporterNews');
  });
}

/**
 * Who saved each version, by version number: for handlers only (the reporter's views
 * name the company, never a handler). A version without a kept author is absent.
 */
export async function recordAuthors(ctx: Pick<AppContext, 'db'>, caseId: string, fileId: string | null = null): Promise<Map<number, { id: string; name: string }>> {
  const rows = await ctx.db
    .selectFrom('case_record_version as v')
    .innerJoin('handler_account as h', 'h.id', 'v.created_by')
    .select(['v.version', 'h.id', 'h.name'])
    .where('v.case_id', '=', caseId)
    .where((eb) => (fileId ? eb('v.file_id', '=', fileId) : eb('v.file_id', 'is', null)))
    .execute();
  return new Map(rows.map((r) => [r.version, { id: r.id, name: r.name }]));
}

/** The versions as a handler reads them: each with its author's id and display name (null when none is kept). */
export async function withAuthors<V extends { version: number }>(ctx: Pick<AppContext, 'db'>, caseId: string, versions: readonly V[], fileId: string | null = null): Promise<(V & { authorId: string | null; author: string | null })[]> {
  const authors = versions.length ? await recordAuthors(ctx, caseId, fileId) : new Map<number, { id: string; name: string }>();
  return versions.map((v) => ({ ...v, authorId: authors.get(v.version)?.id ?? null, author: authors.get(v.version)?.name ?? null }));
}

/**
 * The reporter approves the latest version, named by its SHA-256. A record that
 * changed since the reporter read it is refused (409 RECORD_CHANGED), so an approval
 * is never of a text the reporter did not see. A case without any record is
 * refused (409 NO_RECORD_YET): approving nothing would freeze an empty record for good.
 */
export async function approveRecord(ctx: AppContext, row: CaseRow, sha256: string | undefined): Promise<void> {
  assertModifiable(row);
  // A sealed case: the server has no key, only the hashes the handler's browser computed; the reporter's browser checked them.
  const key = row.sealed ? null : await caseKey(ctx, row);
  const latest = key ? (await loadVersions(ctx, row, key)).at(-1) : await latestSealedVersion(ctx, row.id);
  if (!latest) throw new HttpError(409, 'NO_RECORD_YET', 'There is no record of the report to approve yet.');
  if (!sha256) throw new HttpError(400, 'VALIDATION', 'Name the version you approve by its sha256.', 'sha256');
  if (sha256 !== latest.sha256) {
    throw new HttpError(409, 'RECORD_CHANGED', 'The record has changed since you read it; read the new version before approving.', 'sha256');
  }
  const at = new Date();
  await ctx.db.transaction().execute(async (trx) => {
    // Only one approval wins, even with two tabs.
    const res = await trx
      .updateTable('report_case')
      .set({ approved_at: sql<Date>`${at}` })
      .where('id', '=', row.id)
      .where('approved_at', 'is', null)
      .where('submission_type', '!=', 'ONLINE_FORM')
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new HttpError(409, 'ALREADY_APPROVED', 'The report has already been approved.');
    const stored = await trx.selectFrom('case_record_version').select('id').where('case_id', '=', row.id).where('file_id', 'is', null).executeTakeFirst();
    if (!stored && key) {
      // The record written before versions existed (server-keyed only) is stored as approved version 1.
      const legacy = latest as RecordVersionView;
      await insertVersion(ctx, trx, row, key, { ...legacy, createdAt: new Date(legacy.createdAt), approvedAt: at, authorId: null });
    } else {
      const upd = await trx
        .updateTable('case_record_version')
        .set({ approved_at: at })
        .where('case_id', '=', row.id)
        .where('file_id', 'is', null)
        .where('version', '=', latest.version)
        .where('sha256', '=', latest.sha256)
        .executeTakeFirst();
      if (Number(upd.numUpdatedRows) !== 1) throw new HttpError(409, 'RECORD_CHANGED', 'The record has changed since you read it.', 'sha256');
    }
  });
}

/** The approved version as a text document (core/record-document.ts): the record between two marker lines, its hash and approval time. */
export async function approvedRecordDocument(ctx: AppContext, row: CaseRow, version: number): Promise<{ name: string; body: string; sha256: string; approvedAt: string }> {
  const v = (await loadVersions(ctx, row)).find((x) => x.version === version);
  if (!v) throw new HttpError(404, 'NOT_FOUND', 'No such version of the record.');
  if (!v.approvedAt) throw new HttpError(409, 'NOT_APPROVED', 'This version of the record has not been approved by the reporter.');
  const { name, body } = recordDocument({ caseNumber: row.case_number, version: v.version, createdAt: v.createdAt, approvedAt: v.approvedAt, sha256: v.sha256, text: v.text });
  return { name, body, sha256: v.sha256, approvedAt: v.approvedAt };
}
