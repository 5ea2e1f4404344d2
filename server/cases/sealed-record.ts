/**
 * The record of a phone or meeting report on a sealed case (docs/decisions/record-versions.md
 * "Sealed cases"; core/crypto/record.ts): the handler's browser seals each version and
 * computes its SHA-256 over the plaintext; the reporter's browser seals its comments.
 * The server has no key: it stores the envelopes and the hashes as sent, checks their
 * shape, and keeps the rules of the server-keyed record (a version numbered after the
 * latest, the same hash twice changes nothing, a new version awaits approval again).
 *
 * Invariants: nothing malformed is stored (400 BAD_ENVELOPE, the product's code); a
 * version is taken only as the next number after the latest stored (409
 * RECORD_VERSION_CONFLICT with `currentVersion` otherwise: the writer saw an older record), so two handlers never both write "version 3".
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { versionConflict } from './record.ts';
import type { SealedCommentDto, SealedRecordVersionDto } from '../../machines/schema.ts';
import type { RecordVersionEnvelope } from '../../core/crypto/index.ts';
import { parseEnvelope } from './sealed.ts';
import { assertModifiable } from './reporter.ts';
import { onCaseEvent } from '../mail/notify.ts';
import type { CaseRow } from './service.ts';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** The record's versions and the reporter's comments of a sealed case, as sealed, oldest first. */
export async function sealedRecord(ctx: Pick<AppContext, 'db'>, caseId: string): Promise<{ versions: RecordVersionEnvelope[]; comments: { id: string; body: string; created: string }[] }> {
  const [versions, comments] = await Promise.all([
    ctx.db.selectFrom('case_record_version').select(['version', 'sha256', 'created_at', 'approved_at', 'text_enc']).where('case_id', '=', caseId).where('file_id', 'is', null).orderBy('version').execute(),
    ctx.db.selectFrom('case_comment').select(['id', 'body_enc', 'created_at']).where('case_id', '=', caseId).where('file_id', 'is', null).orderBy('created_at').orderBy('id').execute(),
  ]);
  return {
    versions: versions.map((v) => ({ version: v.version, sha256: v.sha256, createdAt: iso(v.created_at), approvedAt: v.approved_at ? iso(v.approved_at) : null, text: b64(v.text_enc) })),
    comments: comments.map((c) => ({ id: c.id, body: b64(c.body_enc), created: iso(c.created_at) })),
  };
}

function assertSealedOral(row: Pick<CaseRow, 'sealed' | 'submission_type'>) {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: record it on the usual path (PUT …/report).');
  if (row.submission_type === 'ONLINE_FORM') throw new HttpError(409, 'NOT_AN_ORAL_CASE', 'Only a phone or meeting case has a report text recorded by a handler.');
}

/**
 * Stores a version the handler's browser sealed. The same hash as the latest version
 * changes nothing (as on the usual path); otherwise the case awaits approval again,
 * a case waiting for contact is RECEIVED, and the reporter gets the news mail.
 */
export async function recordSealedVersion(ctx: AppContext, row: CaseRow, dto: SealedRecordVersionDto, authorId: string | null): Promise<{ version: number; changed: boolean }> {
  assertSealedOral(row);
  const text = parseEnvelope(dto.text, 'text');
  const at = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    // The case row locked: two writers of the next version are one after the other.
    await trx.selectFrom('report_case').select('id').where('id', '=', row.id).forUpdate().executeTakeFirstOrThrow();
    const latest = await trx.selectFrom('case_record_version').select(['version', 'sha256']).where('case_id', '=', row.id).where('file_id', 'is', null).orderBy('version', 'desc').executeTakeFirst();
    if (latest && latest.sha256 === dto.sha256) return { version: latest.version, changed: false };
    const next = (latest?.version ?? 0) + 1;
    // The version sealed names the one it was written on (its number less one): another's save since is a conflict, as on the usual path.
    if (dto.version !== next) throw versionConflict(next - 1, 'version');
    await trx.insertInto('case_record_version').values({ id: randomUUID(), case_id: row.id, version: next, text_enc: text, sha256: dto.sha256, created_at: at, approved_at: null, created_by: authorId }).execute();
    await trx.updateTable('report_case').set({ report_updated_at: at, approved_at: null }).where('id', '=', row.id).execute();
    const moved = await trx.updateTable('report_case').set({ status: 'RECEIVED' }).where('id', '=', row.id).where('status', '=', 'PENDING_WHISTLEBLOWER_CONTACT').executeTakeFirst();
    if (Number(moved.numUpdatedRows) > 0) await trx.insertInto('case_status_event').values({ case_id: row.id, status: 'RECEIVED', at }).execute();
    await onCaseEvent(ctx, trx, row.id, 'reporterNews');
    return { version: next, changed: true };
  });
}

/** The reporter's comment on the record, sealed in the browser to the id it names. */
export async function addSealedComment(ctx: AppContext, row: CaseRow, dto: SealedCommentDto): Promise<{ id: string; created: string }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: send the comment on the usual path.');
  assertModifiable(row);
  const body = parseEnvelope(dto.body, 'body');
  const now = ctx.clock.now();
  try {
    await ctx.db.insertInto('case_comment').values({ id: dto.id, case_id: row.id, body_enc: body, created_at: now }).execute();
  } catch (err) {
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'COMMENT_ID_TAKEN', 'This comment id is in use; choose another.', 'id');
    throw err;
  }
  return { id: dto.id, created: now.toISOString() };
}

/** The latest version's number and hash, as stored: what a sealed case's approval names. */
export async function latestSealedVersion(ctx: Pick<AppContext, 'db'>, caseId: string): Promise<{ version: number; sha256: string } | null> {
  return (await ctx.db.selectFrom('case_record_version').select(['version', 'sha256']).where('case_id', '=', caseId).where('file_id', 'is', null).orderBy('version', 'desc').executeTakeFirst()) ?? null;
}
