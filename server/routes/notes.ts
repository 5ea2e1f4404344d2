/**
 * Internal notes of a case's handlers (issue 38 Build 1, docs/decisions/internal-notes.md;
 * server/cases/notes.ts). Handler routes only: no reporter route reads `case_note`.
 *
 *   GET  /api/handler/cases/:caseNumber/notes           { sealed, notes }
 *   POST /api/handler/cases/:caseNumber/notes           { text } | sealed: { id, body, epoch? }
 *   PUT  /api/handler/cases/:caseNumber/notes/:noteId   { text, version } | sealed: { body, version, epoch? }
 *   POST /api/handler/cases/:caseNumber/notes/:noteId/files   multipart `files` parts | sealed: { uploads, epoch? } + X-Upload-Session
 *
 * A note's files are downloaded on the case's one file route (GET …/files/:fileId, the
 * handler's only; the reporter's file route answers 404 for them) and audited there.
 *
 * Tenancy, role and officer scoping are the one check every handler route makes
 * (`who` = authorize, then findVisibleCase): a case the caller may not see is 404
 * CASE_NOT_FOUND, as one that does not exist; a handler whose key was revoked from a
 * sealed case is refused as on its other sealed routes. Each save appends one audit
 * entry naming the note and its version, never its text.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import { noteDtoSchema, noteEditDtoSchema, noteFilesDtoSchema, sealedNoteDtoSchema, sealedNoteEditDtoSchema } from '../../machines/schema.ts';
import type { DB } from '../db/schema.ts';
import { UPLOAD_SESSION_HEADER, type ResumableUploads } from '../uploads/resumable.ts';
import { discardStaged, receiveUpload } from '../cases/upload.ts';
import { refuseSealedMultipart } from '../cases/sealed.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { appendAudit, findVisibleCase, type HandlerIdentity } from '../handlers/cases.ts';
import { addNote, addNoteFiles, editNote, notesOf } from '../cases/notes.ts';
import { refuseRevoked } from '../cases/sealed.ts';
import { isUuid } from './files.ts';
import { parseOr400 } from './parse.ts';

export function registerNoteRoutes(app: FastifyInstance, ctx: AppContext, who: (req: FastifyRequest) => Promise<HandlerIdentity>, uploads: ResumableUploads) {
  const caseOf = async (req: FastifyRequest<{ Params: { caseNumber: string } }>) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    if (row.sealed) await refuseRevoked(ctx, h.id, row);
    return { h, row };
  };

  app.get<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/notes', async (req, reply) => {
    const { row } = await caseOf(req);
    return reply.header('cache-control', 'no-store').send(await notesOf(ctx, row));
  });

  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/notes', async (req, reply) => {
    const { h, row } = await caseOf(req);
    const note = row.sealed
      ? await addNote(ctx, h, row, { sealed: parseOr400(sealedNoteDtoSchema, req.body ?? {}, 'sealedNoteDto') })
      : await addNote(ctx, h, row, parseOr400(noteDtoSchema, req.body ?? {}, 'body'));
    await appendAudit(ctx, h, row, 'NOTE_ADDED', { noteId: note.id });
    return reply.status(201).header('cache-control', 'no-store').send({ note });
  });

  app.put<{ Params: { caseNumber: string; noteId: string } }>('/api/handler/cases/:caseNumber/notes/:noteId', async (req, reply) => {
    const { h, row } = await caseOf(req);
    if (!isUuid(req.params.noteId)) throw new HttpError(404, 'NOTE_NOT_FOUND', 'There is no such note on this case.');
    const noteId = req.params.noteId.toLowerCase();
    const note = row.sealed
      ? await editNote(ctx, h, row, noteId, { sealed: parseOr400(sealedNoteEditDtoSchema, req.body ?? {}, 'sealedNoteDto') })
      : await editNote(ctx, h, row, noteId, parseOr400(noteEditDtoSchema, req.body ?? {}, 'body'));
    await appendAudit(ctx, h, row, 'NOTE_EDITED', { noteId: note.id, version: note.version });
    return reply.header('cache-control', 'no-store').send({ note });
  });

  // Files attached to an existing note (internal-notes.md "Files"): a sealed case's sealed in the
  // handler's browser and uploaded by tus as a message's are; a server-keyed case's as multipart.
  app.post<{ Params: { caseNumber: string; noteId: string } }>('/api/handler/cases/:caseNumber/notes/:noteId/files', async (req, reply) => {
    const { h, row } = await caseOf(req);
    if (!isUuid(req.params.noteId)) throw new HttpError(404, 'NOTE_NOT_FOUND', 'There is no such note on this case.');
    const noteId = req.params.noteId.toLowerCase();
    // Before any byte is received: a note that is not there takes no files.
    if (!(await ctx.db.selectFrom('case_note').select('id').where('case_id', '=', row.id).where('id', '=', noteId).executeTakeFirst())) throw new HttpError(404, 'NOTE_NOT_FOUND', 'There is no such note on this case.');
    let added: Awaited<ReturnType<typeof addNoteFiles>>;
    if (row.sealed) {
      refuseSealedMultipart(req);
      const dto = parseOr400(noteFilesDtoSchema, req.body ?? {}, 'noteFilesDto');
      const session = await uploads.sealedSession(req.headers[UPLOAD_SESSION_HEADER], row.id, dto.uploads);
      added = await addNoteFiles(ctx, row, noteId, {
        uploads: session ? { claim: (trx: Transaction<DB>) => uploads.claim(trx, session, dto.uploads, row.id), commit: (f) => uploads.commit(f) } : null,
        epoch: dto.epoch,
      });
    } else {
      const upload = await receiveUpload(ctx, req, { jsonField: 'noteFilesDto', caseId: row.id, key: await ctx.caseKeys.unwrap(row.id, row.wrapped_key) });
      try {
        added = await addNoteFiles(ctx, row, noteId, { staged: upload.files });
      } catch (err) {
        await discardStaged(ctx, upload.files);
        throw err;
      }
    }
    await appendAudit(ctx, h, row, 'NOTE_FILES_ADDED', { noteId, files: added.files.length, fileIds: added.files.join(',') });
    return reply.status(201).header('cache-control', 'no-store').send({ note: added.note });
  });
}
