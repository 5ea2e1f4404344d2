/**
 * Internal notes of a case's handlers (issue 38 Build 1, docs/decisions/internal-notes.md):
 * written by the handlers entitled to the case for each other, never shown on any
 * reporter route (nothing here is read by server/cases/reporter*.ts or buildCaseView).
 *
 * A sealed case: the handler's browser seals each saved text (core/crypto/note.ts) under
 * the case's data key of the current epoch; the server checks the envelope's shape
 * (400 BAD_ENVELOPE, nothing stored) and its epoch (409 EPOCH_STALE unless the current
 * one, as for a message) and stores it as sent. A server-keyed case: the
 * server seals the text under the case's key with the same additional data.
 *
 * Invariants: a note's envelope is bound to `<id>:<version>`; an edit names the version
 * it was written over and is refused 409 NOTE_CHANGED when that is not the latest (the
 * row is locked while compared), so a save never silently replaces a colleague's text.
 * A note's files are case files with `note_id` set (`addNoteFiles`), listed here with
 * their note and never among the case's files on any read a reporter makes.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { NOTE_COLUMN, noteRowId } from '../../core/crypto/note.ts';
import type { SealedNoteDto, SealedNoteEditDto } from '../../machines/schema.ts';
import type { HandlerIdentity } from '../handlers/cases.ts';
import { currentEpoch, FIRST_EPOCH, parseEnvelope } from './sealed.ts';
import { caseKey, COLUMNS, commitFiles, fileRows, sealedFileRows, type CaseRow } from './service.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { StagedFile } from './upload.ts';
import { metadataView } from '../files/metadata-check.ts';

export interface NoteAuthor {
  id: string | null;
  name: string;
}

/**
 * A file of a note (internal-notes.md "Files"). A server-keyed case: its name opened here
 * and its plain size. A sealed case: `name` the envelope as the browser sealed it (name,
 * true size and type, base64), `size` the sealed size, `epoch` the key epoch it was
 * sealed under; the browser opens the name (core/crypto `openFileName`).
 */
export interface NoteFileView {
  id: string;
  name: string;
  size: number;
  created: string;
  epoch?: number;
  mimeType?: string;
}

interface NoteBase {
  id: string;
  files: NoteFileView[];
  version: number;
  author: NoteAuthor;
  /** Who saved the latest version when it is not the first; null for a note never edited. */
  editedBy: NoteAuthor | null;
  created: string;
  updated: string;
}
/** A server-keyed case's note, opened at the server. */
export interface NoteView extends NoteBase {
  text: string;
}
/** A sealed case's note: the envelope as the browser sent it, and the epoch whose key sealed it. */
export interface SealedNoteView extends NoteBase {
  body: string;
  epoch?: number;
}

type NoteRow = { id: string; version: number; body_enc: Uint8Array; epoch: number | null; author_id: string | null; author_name: string; edited_by_id: string | null; edited_by_name: string | null; created_at: Date | string; updated_at: Date | string };

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

type FileRow = { id: string; note_id: string | null; name_enc: Uint8Array; size: number | string | bigint; mime_type: string; metadata_remaining: string | null; created_at: Date | string; epoch: number };

function base(r: NoteRow, files: NoteFileView[] = []): NoteBase {
  return {
    id: r.id,
    files,
    version: r.version,
    author: { id: r.author_id, name: r.author_name },
    editedBy: r.edited_by_name !== null ? { id: r.edited_by_id, name: r.edited_by_name } : null,
    created: iso(r.created_at),
    updated: iso(r.updated_at),
  };
}

async function rows(ctx: Pick<AppContext, 'db'>, caseId: string, noteId?: string): Promise<NoteRow[]> {
  let q = ctx.db.selectFrom('case_note').selectAll().where('case_id', '=', caseId);
  if (noteId) q = q.where('id', '=', noteId);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** The files of the case's notes (or of one note), by note, in the order attached. */
async function noteFileRows(ctx: Pick<AppContext, 'db'>, caseId: string, noteId?: string): Promise<Map<string, FileRow[]>> {
  let q = ctx.db
    .selectFrom('case_file')
    .select(['id', 'note_id', 'name_enc', 'size', 'mime_type', 'metadata_remaining', 'created_at', 'epoch'])
    .where('case_id', '=', caseId)
    .where('note_id', 'is not', null);
  if (noteId) q = q.where('note_id', '=', noteId);
  const byNote = new Map<string, FileRow[]>();
  for (const f of await q.orderBy('created_at').orderBy('position').orderBy('id').execute()) byNote.set(f.note_id!, [...(byNote.get(f.note_id!) ?? []), f]);
  return byNote;
}

const sealedFileView = (f: FileRow): NoteFileView => ({ id: f.id, name: Buffer.from(f.name_enc).toString('base64'), size: Number(f.size), created: iso(f.created_at), epoch: f.epoch });
const openedFileView = (ctx: AppContext, key: Buffer, caseId: string) => (f: FileRow): NoteFileView => ({
  id: f.id,
  name: ctx.crypto.open(key, caseId, COLUMNS.fileName, f.name_enc, f.id).toString('utf8'),
  size: Number(f.size),
  created: iso(f.created_at),
  mimeType: f.mime_type,
  ...metadataView(f.metadata_remaining),
});

/** A server-keyed case's notes, opened, oldest first: what the workspace and the export (src/handler/export) list. */
export async function caseNotes(ctx: AppContext, row: CaseRow): Promise<NoteView[]> {
  if (row.sealed) throw new HttpError(409, 'CASE_SEALED', 'This case is sealed: its notes are opened in the handler\u2019s browser.');
  const list = await rows(ctx, row.id);
  if (!list.length) return [];
  const key = await caseKey(ctx, row);
  const files = await noteFileRows(ctx, row.id);
  return list.map((r) => ({ ...base(r, (files.get(r.id) ?? []).map(openedFileView(ctx, key, row.id))), text: ctx.crypto.open(key, row.id, NOTE_COLUMN, r.body_enc, noteRowId(r.id, r.version)).toString('utf8') }));
}

/** A sealed case's notes as stored, oldest first; the browser opens each (core/crypto/note.ts openNote) and each file's name. */
export async function sealedCaseNotes(ctx: Pick<AppContext, 'db'>, row: Pick<CaseRow, 'id'>): Promise<SealedNoteView[]> {
  const files = await noteFileRows(ctx, row.id);
  return (await rows(ctx, row.id)).map((r) => ({ ...base(r, (files.get(r.id) ?? []).map(sealedFileView)), body: Buffer.from(r.body_enc).toString('base64'), ...(r.epoch !== null ? { epoch: r.epoch } : {}) }));
}

/** Either kind, as the notes route answers. */
export async function notesOf(ctx: AppContext, row: CaseRow): Promise<{ sealed: boolean; notes: (NoteView | SealedNoteView)[] }> {
  return row.sealed ? { sealed: true, notes: await sealedCaseNotes(ctx, row) } : { sealed: false, notes: await caseNotes(ctx, row) };
}

async function one(ctx: AppContext, row: CaseRow, id: string): Promise<NoteView | SealedNoteView> {
  const r = (await rows(ctx, row.id, id))[0]!;
  const files = (await noteFileRows(ctx, row.id, id)).get(id) ?? [];
  if (row.sealed) return { ...base(r, files.map(sealedFileView)), body: Buffer.from(r.body_enc).toString('base64'), ...(r.epoch !== null ? { epoch: r.epoch } : {}) };
  const key = await caseKey(ctx, row);
  return { ...base(r, files.map(openedFileView(ctx, key, row.id))), text: ctx.crypto.open(key, row.id, NOTE_COLUMN, r.body_enc, noteRowId(r.id, r.version)).toString('utf8') };
}

/** Sealed under an older (or unknown) epoch's key: the browser reads the case again and seals with the current key, as for a message. */
async function refuseStaleEpoch(ctx: AppContext, row: CaseRow, epoch: number | undefined): Promise<number> {
  const e = epoch ?? FIRST_EPOCH;
  if (e !== (await currentEpoch(ctx, row.id))) throw new HttpError(409, 'EPOCH_STALE', 'This case has a newer key epoch: read the case again and seal with its current key.', 'epoch');
  return e;
}

/** A new note: `text` on a server-keyed case, the browser's envelope (`sealed`) on a sealed one. */
export async function addNote(ctx: AppContext, h: HandlerIdentity, row: CaseRow, input: { text: string } | { sealed: SealedNoteDto }): Promise<NoteView | SealedNoteView> {
  const now = ctx.clock.now();
  let id: string;
  let body: Buffer;
  let epoch: number | null = null;
  if ('sealed' in input) {
    id = input.sealed.id.toLowerCase();
    body = parseEnvelope(input.sealed.body, 'body');
    epoch = await refuseStaleEpoch(ctx, row, input.sealed.epoch);
  } else {
    id = randomUUID();
    body = ctx.crypto.seal(await caseKey(ctx, row), row.id, NOTE_COLUMN, input.text, noteRowId(id, 1));
  }
  try {
    await ctx.db
      .insertInto('case_note')
      .values({ id, case_id: row.id, version: 1, body_enc: body, epoch, author_id: h.id, author_name: h.name, edited_by_id: null, edited_by_name: null, created_at: now, updated_at: now })
      .execute();
  } catch (err) {
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'NOTE_ID_TAKEN', 'This note id is in use; choose another.', 'id');
    throw err;
  }
  return one(ctx, row, id);
}

/**
 * A new version of a note, written over `version` (the one the writer read). The latest
 * version being another is 409 NOTE_CHANGED: the workspace then shows both texts.
 */
export async function editNote(ctx: AppContext, h: HandlerIdentity, row: CaseRow, noteId: string, input: { text: string; version: number } | { sealed: SealedNoteEditDto }): Promise<NoteView | SealedNoteView> {
  const read = 'sealed' in input ? input.sealed.version : input.version;
  // The envelope's shape first: a malformed one is refused before any row is looked at.
  const sealedBody = 'sealed' in input ? parseEnvelope(input.sealed.body, 'body') : null;
  const epoch = 'sealed' in input ? await refuseStaleEpoch(ctx, row, input.sealed.epoch) : null;
  const key = 'sealed' in input ? null : await caseKey(ctx, row);
  await ctx.db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('case_note').select(['id', 'version']).where('case_id', '=', row.id).where('id', '=', noteId).forUpdate().executeTakeFirst();
    if (!current) throw new HttpError(404, 'NOTE_NOT_FOUND', 'There is no such note on this case.');
    if (current.version !== read) throw new HttpError(409, 'NOTE_CHANGED', `A colleague saved this note since you read it: the latest version is ${current.version}. Compare both texts and choose.`, 'version');
    const next = current.version + 1;
    const body = sealedBody ?? ctx.crypto.seal(key!, row.id, NOTE_COLUMN, (input as { text: string }).text, noteRowId(noteId, next));
    await trx
      .updateTable('case_note')
      .set({ version: next, body_enc: body, epoch, edited_by_id: h.id, edited_by_name: h.name, updated_at: ctx.clock.now() })
      .where('id', '=', noteId)
      .execute();
  });
  return one(ctx, row, noteId);
}

/**
 * Files attached to an existing note (internal-notes.md "Files"), in one transaction that
 * holds the note's row: a server-keyed case's files staged from a multipart body under
 * the case's key (`staged`, the caller discards them if this throws), or a sealed case's
 * uploads of a sealed upload session of the case (`uploads`, claimed here as a message's
 * are), sealed in the handler's browser under the current epoch's key. The files are
 * stored as every case file, with `note_id` set; the note's text and version are untouched.
 */
export async function addNoteFiles(
  ctx: AppContext,
  row: CaseRow,
  noteId: string,
  input: { staged: StagedFile[] } | { uploads: { claim(trx: Transaction<DB>): Promise<StagedFile[]>; commit(files: readonly StagedFile[]): Promise<void> } | null; epoch: number | undefined },
): Promise<{ note: NoteView | SealedNoteView; files: string[] }> {
  const epoch = 'uploads' in input ? await refuseStaleEpoch(ctx, row, input.epoch) : null;
  const key = 'staged' in input ? await caseKey(ctx, row) : null;
  const now = ctx.clock.now();
  let files: StagedFile[] = [];
  await ctx.db.transaction().execute(async (trx) => {
    const note = await trx.selectFrom('case_note').select('id').where('case_id', '=', row.id).where('id', '=', noteId).forUpdate().executeTakeFirst();
    if (!note) throw new HttpError(404, 'NOTE_NOT_FOUND', 'There is no such note on this case.');
    files = 'staged' in input ? input.staged : input.uploads ? await input.uploads.claim(trx) : [];
    if (!files.length) throw new HttpError(400, 'FILES_REQUIRED', 'Attach at least one file.', 'files');
    const had = Number((await trx.selectFrom('case_file').select((eb) => eb.fn.countAll().as('n')).where('note_id', '=', noteId).executeTakeFirstOrThrow()).n);
    const values = key ? fileRows(ctx, row.id, key, null, files, now, had) : sealedFileRows(row.id, null, files, now, had).map((f) => ({ ...f, epoch: epoch! }));
    await trx.insertInto('case_file').values(values.map((f) => ({ ...f, note_id: noteId }))).execute();
  });
  if ('staged' in input) await commitFiles(ctx, files);
  else if (input.uploads) await input.uploads.commit(files);
  return { note: await one(ctx, row, noteId), files: files.map((f) => f.id) };
}
