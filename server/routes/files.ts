/**
 * A case file sent back decrypted, for the handler and the reporter alike: the id
 * must be a file of that very case, the name travels only in Content-Disposition
 * (never as a type the browser would render), and nothing is cached.
 */
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { openCaseFile } from '../cases/service.ts';

/**
 * The route options of every download (a case file, an approved record): sent as it
 * is, with its Content-Length, whatever the client accepts. @fastify/compress asks
 * mime-db before our COMPRESSIBLE_TYPES can say no, and mime-db calls
 * application/octet-stream compressible: a 200 MB file went out Brotli-compressed,
 * chunked, 1.8 times slower, with no total for a progress bar (issue 42, item 3).
 * Case files are mostly compressed formats already.
 */
export const DOWNLOAD_ROUTE = { compress: false } as const;

/** `attachment; filename="…"; filename*=UTF-8''…` with the ASCII fallback stripped of anything unsafe. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;]/g, '_') || 'file';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** A real UUID, the only file id that may reach the database (a 36-character id of dashes would make PostgreSQL fail). */
export const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/**
 * `notes`: a note's files too (the handler's route only); the reporter's route never
 * serves one: it answers 404 as for a file that does not exist (internal-notes.md "Files").
 */
export async function sendCaseFile(ctx: AppContext, reply: FastifyReply, row: { id: string; wrapped_key: Uint8Array | null; sealed?: boolean }, fileId: string, opts: { notes?: boolean } = {}) {
  // A sealed case's file is sent as stored, the browser's ciphertext: its name is in the
  // JSON listing (sealed), so the header names only the id; the browser opens the body.
  if (row.sealed) {
    let q = ctx.db.selectFrom('case_file').select(['id', 'size', 'storage_key']).where('case_id', '=', row.id).where('id', '=', fileId.toLowerCase());
    if (!opts.notes) q = q.where('note_id', 'is', null);
    const f = isUuid(fileId) ? await q.executeTakeFirst() : undefined;
    if (!f) throw new HttpError(404, 'FILE_NOT_FOUND', 'No such file in this case.');
    return reply
      .type('application/octet-stream')
      .header('content-disposition', contentDisposition(`${f.id}.sealed`))
      .header('content-length', String(Number(f.size)))
      .header('cache-control', 'no-store')
      .send(ctx.files.get(f.storage_key));
  }
  const file = isUuid(fileId) ? await openCaseFile(ctx, row, fileId.toLowerCase(), opts) : null;
  if (!file) throw new HttpError(404, 'FILE_NOT_FOUND', 'No such file in this case.');
  return reply
    .type('application/octet-stream')
    .header('content-disposition', contentDisposition(file.name))
    .header('content-length', String(file.size))
    .header('cache-control', 'no-store')
    .header('x-file-content-type', file.mimeType)
    .send(file.stream);
}
