/**
 * The transcript of a voice message (issue 40 item 5; docs/decisions/voice-messages.md
 * "Transcript", record-versions.md "Subjects"): a handler writes down what a voice file
 * of the case says, the reporter reads it beside the recording and comments on it or
 * approves it (Art. 18: the reporter checks and approves the transcript of a voice
 * message). It is a record like the oral report's, kept in the same tables with the
 * voice file it is of (`file_id`): versions with author and SHA-256, a save over another's
 * version refused with 409 RECORD_VERSION_CONFLICT, an approval of one version by its hash,
 * a later version awaiting approval again, comments and approvals counted as the
 * reporter speaking (the handler's unread count, server/handlers/cases.ts).
 *
 * What differs from the oral record: it belongs to a file, not to the case, so any case
 * with a voice file has one per file (an online report too); its approval is the latest
 * version's `approved_at` (the case's `approved_at` stays the oral record's); it moves
 * no status. On a sealed case the handler's browser seals each version and the
 * reporter's browser each comment (core/crypto/record.ts, with the file's id in the
 * additional data); the server keeps the rules over envelopes and hashes.
 *
 * Invariants: nothing is stored on a refusal; a file of another case is 404 as if absent;
 * on a server-keyed case only an audio file has a transcript (409 NOT_A_VOICE_FILE; a
 * sealed file's type is sealed, so there the workspace decides by the opened name).
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { isAudioType, type SealedCommentDto, type SealedRecordVersionDto } from '../../machines/schema.ts';
import type { RecordVersionEnvelope } from '../../core/crypto/index.ts';
import { COLUMNS, caseKey, type CaseRow } from './service.ts';
import { RECORD_COLUMN, sha256Hex, versionConflict, withAuthors, type RecordVersionView, type RecordWriter } from './record.ts';
import { parseEnvelope } from './sealed.ts';
import { onCaseEvent } from '../mail/notify.ts';

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export interface TranscriptView {
  fileId: string;
  /** The latest version's approval; null while it awaits the reporter. */
  approvedAt: string | null;
  versions: RecordVersionView[];
  comments: { comment: string; created: string }[];
}

export interface SealedTranscript {
  fileId: string;
  versions: RecordVersionEnvelope[];
  comments: { id: string; body: string; created: string }[];
}

async function voiceFile(ctx: Pick<AppContext, 'db'>, row: Pick<CaseRow, 'id' | 'sealed'>, fileId: string): Promise<void> {
  const file = /^[0-9a-f-]{36}$/i.test(fileId) ? await ctx.db.selectFrom('case_file').select(['id', 'mime_type']).where('id', '=', fileId).where('case_id', '=', row.id).executeTakeFirst() : undefined;
  if (!file) throw new HttpError(404, 'NOT_FOUND', 'No such file in this case.');
  if (!row.sealed && !isAudioType(file.mime_type)) throw new HttpError(409, 'NOT_A_VOICE_FILE', 'Only a voice message has a transcript.');
}

async function rowsOf(ctx: Pick<AppContext, 'db'>, caseId: string) {
  const [versions, comments] = await Promise.all([
    ctx.db.selectFrom('case_record_version').select(['id', 'file_id', 'version', 'sha256', 'created_at', 'approved_at', 'text_enc']).where('case_id', '=', caseId).where('file_id', 'is not', null).orderBy('version').execute(),
    ctx.db.selectFrom('case_comment').select(['id', 'file_id', 'body_enc', 'created_at']).where('case_id', '=', caseId).where('file_id', 'is not', null).orderBy('created_at').orderBy('id').execute(),
  ]);
  const files = [...new Set(versions.map((v) => v.file_id!))];
  return files.map((fileId) => ({ fileId, versions: versions.filter((v) => v.file_id === fileId), comments: comments.filter((c) => c.file_id === fileId) }));
}

/** Every transcript of a server-keyed case, opened: the files that have one, oldest version first. */
export async function transcriptViews(ctx: AppContext, row: CaseRow, key?: Uint8Array): Promise<TranscriptView[]> {
  const subjects = await rowsOf(ctx, row.id);
  if (!subjects.length) return [];
  const k = key ?? (await caseKey(ctx, row));
  return subjects.map((s) => {
    const versions = s.versions.map((v) => ({
      version: v.version,
      sha256: v.sha256,
      createdAt: iso(v.created_at),
      approvedAt: v.approved_at ? iso(v.approved_at) : null,
      text: ctx.crypto.open(k, row.id, RECORD_COLUMN, v.text_enc, v.id).toString('utf8'),
    }));
    return {
      fileId: s.fileId,
      approvedAt: versions.at(-1)?.approvedAt ?? null,
      versions,
      comments: s.comments.map((c) => ({ comment: ctx.crypto.open(k, row.id, COLUMNS.comment, c.body_enc, c.id).toString('utf8'), created: iso(c.created_at) })),
    };
  });
}

/** A sealed case's transcripts as sealed (the envelopes and the hashes the handler's browser computed). */
export async function sealedTranscripts(ctx: Pick<AppContext, 'db'>, caseId: string): Promise<SealedTranscript[]> {
  return (await rowsOf(ctx, caseId)).map((s) => ({
    fileId: s.fileId,
    versions: s.versions.map((v) => ({ version: v.version, sha256: v.sha256, createdAt: iso(v.created_at), approvedAt: v.approved_at ? iso(v.approved_at) : null, text: b64(v.text_enc) })),
    comments: s.comments.map((c) => ({ id: c.id, body: b64(c.body_enc), created: iso(c.created_at) })),
  }));
}

/** The transcripts as a handler reads them: each version with its author. */
export async function transcriptsWithAuthors<T extends { fileId: string; versions: readonly { version: number }[] }>(ctx: Pick<AppContext, 'db'>, caseId: string, transcripts: readonly T[]) {
  return Promise.all(transcripts.map(async (t) => ({ ...t, versions: await withAuthors(ctx, caseId, t.versions, t.fileId) })));
}

/**
 * Stores a version (server-keyed: `text` sealed here; sealed: `envelope` as the handler's
 * browser sealed it, `version` the next number). The same hash as the latest changes
 * nothing; a base that is not the latest is 409 RECORD_VERSION_CONFLICT.
 */
async function storeVersion(ctx: AppContext, row: CaseRow, fileId: string, v: { sha256: string; seal: (id: string) => Buffer | Uint8Array; version?: number; baseVersion?: number; authorId: string | null }) {
  return ctx.db.transaction().execute(async (trx) => {
    // The case row locked, as for the record: two writers compare with the latest version one after the other.
    await trx.selectFrom('report_case').select('id').where('id', '=', row.id).forUpdate().executeTakeFirstOrThrow();
    const latest = await trx.selectFrom('case_record_version').select(['version', 'sha256']).where('case_id', '=', row.id).where('file_id', '=', fileId).orderBy('version', 'desc').executeTakeFirst();
    if (latest && latest.sha256 === v.sha256) return { version: latest.version, changed: false };
    const latestVersion = latest?.version ?? 0;
    if (v.version !== undefined && v.version !== latestVersion + 1) throw versionConflict(latestVersion, 'version');
    if (v.baseVersion !== undefined && v.baseVersion !== latestVersion) throw versionConflict(latestVersion);
    const id = randomUUID();
    await trx
      .insertInto('case_record_version')
      .values({ id, case_id: row.id, file_id: fileId, version: latestVersion + 1, text_enc: v.seal(id), sha256: v.sha256, created_at: ctx.clock.now(), approved_at: null, created_by: v.authorId })
      .execute();
    // A version to read and approve: news for the reporter, as for the record.
    await onCaseEvent(ctx, trx, row.id, 'reporterNews');
    return { version: latestVersion + 1, changed: true };
  });
}

export async function recordTranscript(ctx: AppContext, row: CaseRow, fileId: string, text: string, writer: RecordWriter): Promise<{ version: number; changed: boolean }> {
  if (row.sealed) throw new HttpError(409, 'CASE_SEALED', 'This case is sealed: the transcript is sealed in the workspace (POST …/transcript/sealed).');
  await voiceFile(ctx, row, fileId);
  const key = await caseKey(ctx, row);
  return storeVersion(ctx, row, fileId, { sha256: sha256Hex(text), seal: (id) => ctx.crypto.seal(key, row.id, RECORD_COLUMN, text, id), baseVersion: writer.baseVersion, authorId: writer.authorId });
}

export async function recordSealedTranscript(ctx: AppContext, row: CaseRow, fileId: string, dto: SealedRecordVersionDto, authorId: string | null): Promise<{ version: number; changed: boolean }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: send the transcript on the usual path (PUT …/transcript).');
  await voiceFile(ctx, row, fileId);
  const envelope = parseEnvelope(dto.text, 'text');
  return storeVersion(ctx, row, fileId, { sha256: dto.sha256, seal: () => envelope, version: dto.version, authorId });
}

/** The latest version, or 409 NO_TRANSCRIPT_YET; 409 ALREADY_APPROVED once it is approved. */
async function openLatest(ctx: Pick<AppContext, 'db'>, row: Pick<CaseRow, 'id' | 'sealed'>, fileId: string) {
  await voiceFile(ctx, row, fileId);
  const latest = await ctx.db.selectFrom('case_record_version').select(['version', 'sha256', 'approved_at']).where('case_id', '=', row.id).where('file_id', '=', fileId).orderBy('version', 'desc').executeTakeFirst();
  if (!latest) throw new HttpError(409, 'NO_TRANSCRIPT_YET', 'There is no transcript of this voice message yet.');
  if (latest.approved_at) throw new HttpError(409, 'ALREADY_APPROVED', 'This transcript has already been approved.');
  return latest;
}

/** The reporter approves the latest version by its hash; a stale hash is 409 RECORD_CHANGED, as for the record. */
export async function approveTranscript(ctx: AppContext, row: CaseRow, fileId: string, sha256: string | undefined): Promise<{ approvedAt: string; sha256: string; version: number }> {
  const latest = await openLatest(ctx, row, fileId);
  if (!sha256) throw new HttpError(400, 'VALIDATION', 'Name the version you approve by its sha256.', 'sha256');
  if (sha256 !== latest.sha256) throw new HttpError(409, 'RECORD_CHANGED', 'The transcript has changed since you read it; read the new version before approving.', 'sha256');
  const at = ctx.clock.now();
  const res = await ctx.db
    .updateTable('case_record_version')
    .set({ approved_at: at })
    .where('case_id', '=', row.id)
    .where('file_id', '=', fileId)
    .where('version', '=', latest.version)
    .where('sha256', '=', sha256)
    .where('approved_at', 'is', null)
    .executeTakeFirst();
  // Two tabs: one approval wins; a version added in between keeps this one from landing on it (the number and hash are named).
  if (Number(res.numUpdatedRows) !== 1) throw new HttpError(409, 'ALREADY_APPROVED', 'This transcript has already been approved.');
  return { approvedAt: at.toISOString(), sha256, version: latest.version };
}

export async function commentTranscript(ctx: AppContext, row: CaseRow, fileId: string, text: string): Promise<{ comment: string; created: string }> {
  if (row.sealed) throw new HttpError(409, 'CASE_SEALED', 'This case is sealed: the comment is sealed in the browser (POST …/comments/sealed).');
  await openLatest(ctx, row, fileId);
  const key = await caseKey(ctx, row);
  const id = randomUUID();
  const now = ctx.clock.now();
  await ctx.db.insertInto('case_comment').values({ id, case_id: row.id, file_id: fileId, body_enc: ctx.crypto.seal(key, row.id, COLUMNS.comment, text, id), created_at: now }).execute();
  return { comment: text, created: now.toISOString() };
}

export async function commentSealedTranscript(ctx: AppContext, row: CaseRow, fileId: string, dto: SealedCommentDto): Promise<{ id: string; created: string }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: send the comment on the usual path.');
  await openLatest(ctx, row, fileId);
  const body = parseEnvelope(dto.body, 'body');
  const now = ctx.clock.now();
  try {
    await ctx.db.insertInto('case_comment').values({ id: dto.id, case_id: row.id, file_id: fileId, body_enc: body, created_at: now }).execute();
  } catch (err) {
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'COMMENT_ID_TAKEN', 'This comment id is in use; choose another.', 'id');
    throw err;
  }
  return { id: dto.id, created: now.toISOString() };
}
