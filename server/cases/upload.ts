/**
 * Multipart uploads: one JSON part (`caseDto`, `messageDto`) and up to five
 * `files` parts, in any order. Each file streams through the content sniffer and
 * the case's file encryptor into a temporary object of the file store; nothing is
 * held whole in memory. On any failure every temporary written so far is deleted
 * before the error leaves, so a refused or aborted upload leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import { LIMITS, cleanFileName, isAllowedFileName, ALLOWED_EXTENSIONS } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { ContentSniffer } from '../files/sniff.ts';
import { MetadataCheck, type MetadataRemaining } from '../files/metadata-check.ts';
import type { ByteBudget } from '../uploads/quotas.ts';

export interface StagedFile {
  id: string;
  name: string;
  /** A sealed case's file: its name as the browser sealed it (`name` is then empty). */
  nameEnc?: Buffer;
  size: number;
  mimeType: string;
  /** Metadata kinds still in the received file; null when not checked; COULD_NOT_CHECK when the check hit a limit. */
  metadataRemaining: MetadataRemaining;
}

export interface ReceivedUpload {
  /** The JSON part's text; undefined when the part was not sent. */
  json: string | undefined;
  files: StagedFile[];
}

const JSON_PART_MAX = 256 * 1024;

export async function discardStaged(ctx: AppContext, files: readonly { id: string }[]): Promise<void> {
  await Promise.all(files.map((f) => ctx.files.discard(f.id).catch((err) => ctx.log.error({ err }, 'could not delete a temporary upload'))));
}

/** Errors a client causes while sending a multipart body become 4xx; real faults (disk) stay 5xx. */
function asClientError(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string; syscall?: string };
  if (e?.code === 'FST_REQ_FILE_TOO_LARGE') return err;
  if (e?.code === 'FST_INVALID_JSON_FIELD_ERROR') return new HttpError(400, 'BAD_JSON', 'A JSON part is not valid JSON (or larger than 256 KiB).');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new HttpError(e.statusCode, e.code === 'FST_FILES_LIMIT' || e.code === 'FST_PARTS_LIMIT' ? 'TOO_MANY_PARTS' : 'BAD_MULTIPART', e.message ?? 'Bad multipart body.');
  }
  if (e?.syscall) return err; // file system: our fault, not the client's
  return new HttpError(400, 'BAD_MULTIPART', `The multipart body could not be read: ${e?.message ?? 'malformed'}.`);
}

export async function receiveUpload(
  ctx: AppContext,
  req: FastifyRequest,
  /** `budget`: the byte quotas the files' bytes count against as they arrive (server/uploads/quotas.ts). */
  opts: { jsonField: string; caseId: string; key: Uint8Array; maxFiles?: number; budget?: ByteBudget },
): Promise<ReceivedUpload> {
  if (!req.isMultipart()) {
    throw new HttpError(415, 'NOT_MULTIPART', `Send multipart/form-data with a "${opts.jsonField}" JSON part and up to ${LIMITS.maxFiles} "files" parts.`);
  }
  const maxFiles = opts.maxFiles ?? LIMITS.maxFiles;
  const files: StagedFile[] = [];
  const written: { id: string }[] = [];
  let json: string | undefined;
  // A client that goes away mid-upload: end the part streams so the loop below fails and cleans up.
  let aborted = false;
  let current: NodeJS.ReadableStream & { destroy(err?: Error): void } | undefined;
  const onClose = () => {
    if (req.raw.complete) return;
    aborted = true;
    current?.destroy(new HttpError(400, 'UPLOAD_ABORTED', 'The upload was aborted.'));
  };
  req.raw.once('close', onClose);
  try {
    const parts = req.parts({
      // Larger stream buffers than the 16 KiB default (measured: bench/upload.ts); memory stays bounded.
      highWaterMark: 256 * 1024,
      fileHwm: 256 * 1024,
      limits: { fileSize: ctx.config.maxFileBytes, files: maxFiles + 1, fields: 10, parts: maxFiles + 12, fieldSize: JSON_PART_MAX },
    });
    for await (const part of parts as AsyncIterableIterator<Multipart>) {
      if (aborted) throw new HttpError(400, 'UPLOAD_ABORTED', 'The upload was aborted.');
      if (part.fieldname === opts.jsonField) {
        if (json !== undefined) throw new HttpError(400, 'DUPLICATE_PART', `Send "${opts.jsonField}" once.`, opts.jsonField);
        if (part.type === 'field') {
          if (part.valueTruncated) throw new HttpError(413, 'PART_TOO_LARGE', `"${opts.jsonField}" is larger than 256 KiB.`, opts.jsonField);
          // A field sent with Content-Type: application/json (curl -F 'caseDto=…;type=application/json') arrives parsed.
          json = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
        } else {
          const chunks: Buffer[] = [];
          let n = 0;
          for await (const c of part.file as AsyncIterable<Buffer>) {
            n += c.length;
            if (n > JSON_PART_MAX) throw new HttpError(413, 'PART_TOO_LARGE', `"${opts.jsonField}" is larger than 256 KiB.`, opts.jsonField);
            chunks.push(c);
          }
          json = Buffer.concat(chunks).toString('utf8');
        }
        continue;
      }
      if (part.fieldname !== 'files' || part.type !== 'file') {
        if (part.type === 'file') part.file.resume();
        throw new HttpError(400, 'UNKNOWN_PART', `Unexpected part "${part.fieldname.slice(0, 50)}": send "${opts.jsonField}" and "files" only.`, part.fieldname.slice(0, 50));
      }
      const index = files.length;
      const field = `files.${index}`;
      if (index >= maxFiles) {
        part.file.resume();
        throw new HttpError(400, 'TOO_MANY_FILES', `At most ${maxFiles} files may be sent.`, 'files');
      }
      const name = cleanFileName(part.filename ?? '');
      if (!name || !isAllowedFileName(name)) {
        part.file.resume();
        throw new HttpError(415, 'FORBIDDEN_FILE_TYPE', `"${name.slice(0, 100)}" is not an allowed file; allowed are ${ALLOWED_EXTENSIONS.join(', ')}.`, field);
      }
      const id = randomUUID();
      const sniffer = new ContentSniffer(name);
      const check = new MetadataCheck(name);
      const encryptor = ctx.crypto.encryptFile(opts.key, id);
      written.push({ id });
      current = part.file;
      // First in line: a file past a quota is cut at that byte, before anything of it is checked or sealed.
      const metered = opts.budget ? [opts.budget.meter(field)] : [];
      const receiving = ctx.metrics?.uploadStarted('multipart');
      try {
        await ctx.files.putTemp(id, part.file, ...metered, sniffer, check, encryptor);
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new HttpError(413, 'FILE_TOO_LARGE', `"${name.slice(0, 100)}" is larger than ${ctx.config.maxFileBytes} bytes.`, field);
        }
        throw err;
      } finally {
        current = undefined;
        receiving?.();
        ctx.metrics?.uploadBytes('multipart', encryptor.plainBytes);
      }
      if (part.file.truncated) throw new HttpError(413, 'FILE_TOO_LARGE', `"${name.slice(0, 100)}" is larger than ${ctx.config.maxFileBytes} bytes.`, field);
      const mimeType = sniffer.verdict();
      if (!mimeType) {
        throw new HttpError(415, 'FILE_CONTENT_MISMATCH', `The content of "${name.slice(0, 100)}" is not a .${sniffer.ext} file.`, field);
      }
      files.push({ id, name, size: encryptor.plainBytes, mimeType, metadataRemaining: await check.remaining() });
    }
    if (aborted) throw new HttpError(400, 'UPLOAD_ABORTED', 'The upload was aborted.');
    return { json, files };
  } catch (err) {
    // No part is read after a refusal: a file cut mid-stream (a quota, its first bytes)
    // would otherwise leave the parser waiting on it, holding the rest of the body that
    // the answer's drain (server/early-answer.ts) or Node's own must read.
    req.raw.unpipe();
    await discardStaged(ctx, written);
    throw asClientError(err);
  } finally {
    req.raw.off('close', onClose);
    await opts.budget?.settle();
  }
}
