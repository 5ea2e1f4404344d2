/**
 * Internal notes of a case's handlers (issue 38 Build 1, docs/decisions/internal-notes.md;
 * server/cases/notes.ts). Handler routes only: no reporter route reads `case_note`.
 *
 *   GET  /api/handler/cases/:caseNumber/notes           { sealed, notes }
 *   POST /api/handler/cases/:caseNumber/notes           { text } | sealed: { id, body, epoch? }
 *   PUT  /api/handler/cases/:caseNumber/notes/:noteId   { text, version } | sealed: { body, version, epoch? }
 *
 * Tenancy, role and officer scoping are the one check every handler route makes
 * (`who` = authorize, then findVisibleCase): a case the caller may not see is 404
 * CASE_NOT_FOUND, as one that does not exist; a handler whose key was revoked from a
 * sealed case is refused as on its other sealed routes. Each save appends one audit
 * entry naming the note and its version, never its text.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { noteDtoSchema, noteEditDtoSchema, sealedNoteDtoSchema, sealedNoteEditDtoSchema } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { appendAudit, findVisibleCase, type HandlerIdentity } from '../handlers/cases.ts';
import { addNote, editNote, notesOf } from '../cases/notes.ts';
import { refuseRevoked } from '../cases/sealed.ts';
import { isUuid } from './files.ts';
import { parseOr400 } from './parse.ts';

export function registerNoteRoutes(app: FastifyInstance, ctx: AppContext, who: (req: FastifyRequest) => Promise<HandlerIdentity>) {
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
}
