/**
 * Resumable uploads: the tus 1.0 core protocol with its creation and termination
 * extensions (docs/decisions/resumable-uploads.md), behind the routes of
 * server/routes/uploads.ts.
 *
 * - An upload session (one solved proof-of-work) fixes the id and data key of the
 *   case still to come; its secret, held only by the client, authorises every call
 *   on its uploads and the case creation that takes them. An upload id alone opens
 *   nothing.
 * - Bytes are sealed as they arrive, in the case files' own format
 *   (server/crypto/case-crypto.ts): the declared length tells which 64 KiB chunk is
 *   the final one, so a complete upload is already the file handlers read. Bytes
 *   after the last whole chunk are kept sealed in the database (`tail_enc`, bound to
 *   the upload and its offset), never in clear on disk.
 * - The offset and tail are in the database, so an upload survives a restart. While
 *   a request streams, the offset is saved every few MiB (after the disk has the
 *   chunks); a graceful stop, a dropped connection or a newer request for the same
 *   upload saves it exactly; whole chunks a killed process wrote after its last save
 *   are taken back when they open (`reconcile`), so no chunk is ever sealed twice.
 * - A finished upload is checked like a multipart file (type sniffing, metadata
 *   check) by reading it back decrypted; one that fails is deleted.
 * - Uploads join a case only in the transaction that creates it (`claim`). A session
 *   and its uploads are swept 24 hours after it was made, whatever its activity, and
 *   an upload that received no bytes for an hour sooner (`uploadSweepJob`).
 * - Limits hold under parallel requests: an upload is created in a transaction that
 *   holds the session's row, so the count of five and the byte quotas
 *   (server/uploads/quotas.ts, declared lengths) are checked against what is there.
 * - A session is used only at the company whose host made it.
 * - A signed-in reporter's session is bound to their case (`createCaseSession`): it
 *   holds that case's id and key, and its uploads join only a message of that case,
 *   in the message's transaction; never a new case, never another case.
 *
 * Memory per request: one chunk, its tail and a 1 MiB write buffer.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Transaction } from 'kysely';
import { ALLOWED_EXTENSIONS, ALLOWED_FILE_TYPES, FILE_HEAD_BYTES, LIMITS, cleanFileName, fileExtension, headMatches, isAllowedFileName, isTextExtension, type AllowedExtension } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import { FILE_BLOCK, FILE_CHUNK, FILE_HEADER } from '../crypto/case-crypto.ts';
import { FILE_MAGIC, plainFileSize, sealedFileSize } from '../../core/crypto/index.ts';
import { parseEnvelope } from '../cases/sealed.ts';
import { ContentSniffer } from '../files/sniff.ts';
import { MetadataCheck } from '../files/metadata-check.ts';
import type { StagedFile } from '../cases/upload.ts';
import type { Job } from '../jobs/runner.ts';
import { UploadQuotas } from './quotas.ts';
import type { FastifyRequest } from 'fastify';
import { CASE_UPLOAD_SESSIONS_PATH, UPLOADS_PATH, UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';

export const TUS_VERSION = '1.0.0';
// The addresses and header the SPA uses too: one wire contract (core/uploads.ts).
export { CASE_UPLOAD_SESSIONS_PATH, UPLOADS_PATH, UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER };
/** A session (with its uploads) lives this long after it was made, however busy it is. */
export const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;
/** An unfinished upload that received no bytes this long is stalled and removed. */
export const STALLED_AFTER_MS = 60 * 60 * 1000;
/** A request still receiving bytes says so this often, so a slow upload is not taken for a stalled one. */
const ALIVE_EVERY_MS = 5 * 60 * 1000;
/** How often, in received bytes, a streaming request saves its offset. */
const CHECKPOINT_BYTES = 8 * 1024 * 1024;
const WRITE_BUFFER = 1024 * 1024;
const FILE_NAME_COLUMN = 'case_file.name_enc';
const TAIL_COLUMN = 'file_upload.tail_enc';
/** The one type a sealed case's file is stored with: the server cannot read its content, and a stated type would tell what the file is. */
export const SEALED_FILE_TYPE = 'application/octet-stream';
/** A sealed file name's envelope, decoded (a name of 255 characters in UTF-8 fits well). */
const SEALED_NAME_MAX = 2048;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface UploadSession {
  id: string;
  caseId: string;
  /** Null with `sealed`: a sealed case's session; its uploads arrive sealed by the browser and are stored as they come. */
  key: Buffer | null;
  wrappedKey: Buffer | null;
  sealed: boolean;
  usedAt: Date | null;
  /** The existing case whose message may take the uploads; null: a case still to come. */
  boundCaseId: string | null;
  /** The company whose host made the session; null for a session made before migration 0150. */
  companyId: string | null;
}

export interface UploadState {
  offset: number;
  length: number;
}

const hashSecret = (secret: Buffer) => createHash('sha256').update(secret).digest();

/** Upload-Metadata: `key base64,key base64,…` (tus 1.0 creation extension). */
export function parseUploadMetadata(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const pair of header.split(',')) {
    const [key, value, ...rest] = pair.trim().split(' ');
    if (!key || rest.length || !/^[\x21-\x7e]+$/.test(key) || out.has(key)) throw new HttpError(400, 'BAD_UPLOAD_METADATA', 'Upload-Metadata is not a list of "key base64" pairs.');
    if (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new HttpError(400, 'BAD_UPLOAD_METADATA', `Upload-Metadata "${key.slice(0, 30)}" is not base64.`);
    out.set(key, value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8'));
  }
  return out;
}

function parseLength(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d{1,16}$/.test(value)) throw new HttpError(400, 'BAD_UPLOAD_HEADER', `${name} must be a whole number of bytes.`, name);
  return Number(value);
}

export class ResumableUploads {
  /** Requests streaming into an upload in this process, so a newer one (or a stop) can end them. */
  private readonly active = new Map<string, { abort(): void; done: Promise<void> }>();

  readonly quotas: UploadQuotas;

  constructor(
    private readonly ctx: AppContext,
    clientOf: (req: FastifyRequest) => string,
  ) {
    this.quotas = new UploadQuotas(ctx, clientOf);
  }

  // ---- sessions --------------------------------------------------------------

  /** `sealed`: for a case sealed in the browser (POST /api/public/case/new/sealed): no key is made, its uploads carry ciphertext only. */
  async createSession(company: { id: string }, opts: { sealed?: boolean } = {}): Promise<{ uploadSession: string; expiresAt: string }> {
    const id = randomUUID();
    const caseId = randomUUID();
    const secret = randomBytes(32);
    const wrapped = opts.sealed ? null : (await this.ctx.caseKeys.create(caseId)).wrapped;
    const now = this.ctx.clock.now();
    await this.ctx.db
      .insertInto('upload_session')
      .values({ id, secret_hash: hashSecret(secret), case_id: caseId, wrapped_key: wrapped, company_id: company.id, created_at: now, touched_at: now, used_at: null })
      .execute();
    return { uploadSession: `${id}.${secret.toString('base64url')}`, expiresAt: new Date(now.getTime() + ABANDONED_AFTER_MS).toISOString() };
  }

  /**
   * A session bound to the signed-in reporter's existing case: its uploads are sealed
   * with that case's key (the row's wrapping, copied) and may join only a message of it.
   */
  async createCaseSession(reportCase: { id: string; wrapped_key: Uint8Array | null; company_id: string; sealed?: boolean }): Promise<{ uploadSession: string; expiresAt: string }> {
    // A sealed case's files are sealed in the browser: its session holds no key.
    if (!reportCase.wrapped_key && !reportCase.sealed) throw new HttpError(409, 'CASE_SEALED', 'This case has no server key.');
    const id = randomUUID();
    const secret = randomBytes(32);
    const now = this.ctx.clock.now();
    await this.ctx.db
      .insertInto('upload_session')
      .values({
        id,
        secret_hash: hashSecret(secret),
        case_id: reportCase.id,
        wrapped_key: reportCase.wrapped_key ? Buffer.from(reportCase.wrapped_key) : null,
        bound_case_id: reportCase.id,
        company_id: reportCase.company_id,
        created_at: now,
        touched_at: now,
        used_at: null,
      })
      .execute();
    return { uploadSession: `${id}.${secret.toString('base64url')}`, expiresAt: new Date(now.getTime() + ABANDONED_AFTER_MS).toISOString() };
  }

  /** The session a `X-Upload-Session` value names; 401 when it names none (or one made over 24 hours ago). */
  async session(token: unknown): Promise<UploadSession> {
    const refuse = () => new HttpError(401, 'UPLOAD_SESSION_INVALID', `Send the upload session from POST ${UPLOAD_SESSIONS_PATH} in X-Upload-Session.`);
    if (typeof token !== 'string') throw refuse();
    const [id, secret64, ...rest] = token.split('.');
    if (!id || !UUID.test(id) || !secret64 || rest.length || !/^[A-Za-z0-9_-]{43}$/.test(secret64)) throw refuse();
    const row = await this.ctx.db.selectFrom('upload_session').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), hashSecret(Buffer.from(secret64, 'base64url')))) throw refuse();
    if (new Date(row.created_at).getTime() < this.ctx.clock.now().getTime() - ABANDONED_AFTER_MS) throw refuse();
    const wrappedKey = row.wrapped_key ? Buffer.from(row.wrapped_key) : null;
    return {
      id: row.id,
      caseId: row.case_id,
      key: wrappedKey ? await this.ctx.caseKeys.unwrap(row.case_id, wrappedKey) : null,
      wrappedKey,
      sealed: !wrappedKey,
      usedAt: row.used_at ? new Date(row.used_at) : null,
      boundCaseId: row.bound_case_id,
      companyId: row.company_id,
    };
  }

  // ---- tus calls ---------------------------------------------------------------

  /**
   * POST (creation): a new upload of `Upload-Length` bytes named by the `filename`
   * metadata, for the client `client` (a keyed hash of its address). The declared
   * length counts against every byte quota at once.
   */
  async create(session: UploadSession, headers: { length?: string; deferLength?: string; metadata?: string }, client: string): Promise<{ id: string; state: UploadState }> {
    if (session.usedAt) throw new HttpError(409, 'UPLOAD_SESSION_USED', 'This upload session was already used; open a new one.');
    if (headers.deferLength !== undefined) throw new HttpError(400, 'UPLOAD_LENGTH_REQUIRED', 'Declare Upload-Length when creating an upload (creation-defer-length is not offered).', 'Upload-Length');
    const length = parseLength(headers.length, 'Upload-Length');
    const metadata = parseUploadMetadata(headers.metadata);
    if (session.sealed) return this.createSealed(session, length, metadata, client);
    const key = session.key!;
    const name = cleanFileName(metadata.get('filename') ?? '');
    if (!name) throw new HttpError(400, 'FILE_NAME_REQUIRED', 'Name the file in Upload-Metadata (filename).', 'filename');
    if (!isAllowedFileName(name)) throw new HttpError(415, 'FORBIDDEN_FILE_TYPE', `"${name.slice(0, 100)}" is not an allowed file; allowed are ${ALLOWED_EXTENSIONS.join(', ')}.`, 'filename');
    if (length > this.ctx.config.maxFileBytes) throw new HttpError(413, 'FILE_TOO_LARGE', `"${name.slice(0, 100)}" is larger than ${this.ctx.config.maxFileBytes} bytes.`, 'Upload-Length');
    await this.quotas.assertDisk(length, 'Upload-Length');

    const id = randomUUID();
    const sealer = this.ctx.crypto.chunkSealer(key, id);
    // An empty file is complete at once: its one (empty) chunk is the final one.
    const first = length === 0 ? Buffer.concat([sealer.header, sealer.seal(0, Buffer.alloc(0), true)]) : sealer.header;
    await this.insertUpload(session, length, client, {
      id,
      name_enc: this.ctx.crypto.seal(key, session.caseId, FILE_NAME_COLUMN, name, id),
      file_header: sealer.header,
    });
    // After the row: an object on disk that no row knows is only ever a crash's leftover (the sweep's).
    try {
      await this.ctx.files.createUpload(id, first);
    } catch (err) {
      await this.ctx.db.deleteFrom('file_upload').where('id', '=', id).execute();
      await this.ctx.files.discardUpload(id);
      throw err;
    }
    if (length === 0) await this.verify(session, id);
    return { id, state: { offset: 0, length } };
  }

  /**
   * POST for a sealed case's session: the browser names the file by `fileId` (the id its
   * subkey and its name's additional data are bound to) and `name` (the name sealed
   * under the case's data key, base64); `Upload-Length` is the sealed size, which must be
   * one a plain size seals to. Limits and quotas count the sealed size.
   */
  private async createSealed(session: UploadSession, length: number, metadata: Map<string, string>, client: string): Promise<{ id: string; state: UploadState }> {
    const id = (metadata.get('fileId') ?? '').toLowerCase();
    if (!UUID.test(id)) throw new HttpError(400, 'FILE_ID_REQUIRED', 'Name the file by a UUID in Upload-Metadata (fileId): its sealed name and chunks are bound to it.', 'fileId');
    const nameEnc = parseEnvelope(metadata.get('name') ?? '', 'name');
    if (nameEnc.length > SEALED_NAME_MAX) throw new HttpError(400, 'BAD_ENVELOPE', 'A sealed file name is at most 2 KiB.', 'name');
    if (plainFileSize(length) === null) throw new HttpError(400, 'BAD_SEALED_SIZE', `${length} bytes is not the size of a sealed file (header, 64 KiB chunks, a tag each).`, 'Upload-Length');
    // The per-file limit is on the plain size the browser may send (padded): what that seals to.
    if (length > sealedFileSize(this.ctx.config.maxFileBytes)) throw new HttpError(413, 'FILE_TOO_LARGE', `This file is larger than ${this.ctx.config.maxFileBytes} bytes.`, 'Upload-Length');
    await this.quotas.assertDisk(length, 'Upload-Length');
    if (await this.ctx.db.selectFrom('case_file').select('id').where('id', '=', id).executeTakeFirst()) throw new HttpError(409, 'FILE_ID_TAKEN', 'This file id is in use; choose another.', 'fileId');
    try {
      // No header of our own: the file's first bytes are the browser's `WBF1` header.
      await this.insertUpload(session, length, client, { id, name_enc: nameEnc, file_header: Buffer.alloc(0) });
    } catch (err) {
      if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'FILE_ID_TAKEN', 'This file id is in use; choose another.', 'fileId');
      throw err;
    }
    try {
      await this.ctx.files.createUpload(id, new Uint8Array(0));
    } catch (err) {
      await this.ctx.db.deleteFrom('file_upload').where('id', '=', id).execute();
      await this.ctx.files.discardUpload(id);
      throw err;
    }
    return { id, state: { offset: 0, length } };
  }

  private async insertUpload(session: UploadSession, length: number, client: string, row: { id: string; name_enc: Buffer; file_header: Buffer }): Promise<void> {
    const now = this.ctx.clock.now();
    // With the session's row locked, parallel creations on one session take turns:
    // the count and the sums read here are what the insert adds to (read-then-write
    // without the lock let 40 parallel requests put 29 to 50 uploads in one session).
    await this.ctx.db.transaction().execute(async (trx) => {
      const locked = await trx.selectFrom('upload_session').select('used_at').where('id', '=', session.id).forUpdate().executeTakeFirst();
      if (!locked) throw new HttpError(401, 'UPLOAD_SESSION_INVALID', `Send the upload session from POST ${UPLOAD_SESSIONS_PATH} in X-Upload-Session.`);
      if (locked.used_at) throw new HttpError(409, 'UPLOAD_SESSION_USED', 'This upload session was already used; open a new one.');
      // The sessions of one existing case take turns too, for the case's quota.
      if (session.boundCaseId) await trx.selectFrom('report_case').select('id').where('id', '=', session.boundCaseId).forNoKeyUpdate().execute();
      const held = await trx
        .selectFrom('file_upload')
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<string | null>('length').as('bytes')])
        .where('session_id', '=', session.id)
        .executeTakeFirstOrThrow();
      if (Number(held.n) >= LIMITS.maxFiles) throw new HttpError(400, 'TOO_MANY_FILES', `At most ${LIMITS.maxFiles} files may be sent.`, 'files');
      this.quotas.assertSession(Number(held.bytes ?? 0) + length, 'Upload-Length');
      this.quotas.assertCase((await this.quotas.caseBytes(trx, session.caseId)) + length, 'Upload-Length');
      // Last, so a refusal above costs the client nothing; undone with the transaction.
      await this.quotas.chargeClient(trx, client, length, 'Upload-Length');
      await trx
        .insertInto('file_upload')
        .values({
          ...row,
          session_id: session.id,
          length,
          offset: 0,
          tail_enc: null,
          mime_type: null,
          metadata_remaining: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    });
  }

  private async row(session: UploadSession, id: string) {
    const row = UUID.test(id) ? await this.ctx.db.selectFrom('file_upload').selectAll().where('id', '=', id).where('session_id', '=', session.id).executeTakeFirst() : undefined;
    if (!row) throw new HttpError(404, 'UPLOAD_NOT_FOUND', 'No such upload in this upload session.');
    return row;
  }

  /** Ends a request still streaming into `id` in this process and waits until it saved its offset. */
  private async takeOver(id: string) {
    for (let current = this.active.get(id); current; current = this.active.get(id)) {
      current.abort();
      await current.done;
    }
  }

  /**
   * A process killed mid-request may have written whole chunks after the offset it
   * last saved. They are taken as received when they open (each was sealed exactly
   * once, under its own nonce, and is never sealed again: no nonce is reused), and a
   * torn chunk after them is cut off by the next PATCH.
   */
  private async reconcile(session: UploadSession, row: { id: string; offset: string | number; length: string | number; file_header: Uint8Array }): Promise<void> {
    // A sealed upload's bytes are stored as they came: what lies past the saved offset is cut off by the next PATCH.
    if (session.sealed) return;
    const length = Number(row.length);
    const offset = Number(row.offset);
    if (offset >= length) return;
    let index = (offset - (offset % FILE_CHUNK)) / FILE_CHUNK;
    const at = FILE_HEADER + index * FILE_BLOCK;
    if ((await this.ctx.files.uploadSize(row.id)) < at + FILE_BLOCK) return;
    const sealer = this.ctx.crypto.chunkSealer(session.key!, row.id, row.file_header);
    let buf: Buffer = Buffer.alloc(0);
    let opened = 0;
    try {
      reading: for await (const chunk of this.ctx.files.readUpload(row.id, at) as AsyncIterable<Buffer>) {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        for (;;) {
          const final = (index + 1) * FILE_CHUNK >= length;
          const size = final ? length - index * FILE_CHUNK + (FILE_BLOCK - FILE_CHUNK) : FILE_BLOCK;
          if (buf.length < size) break;
          sealer.open(index, buf.subarray(0, size), final);
          buf = buf.subarray(size);
          index++;
          opened++;
          if (final) break reading;
        }
      }
    } catch {
      // The first chunk that does not open ends what was received.
    }
    if (!opened) return;
    const received = Math.min(length, index * FILE_CHUNK);
    await this.ctx.db.updateTable('file_upload').set({ offset: received, tail_enc: null, updated_at: this.ctx.clock.now() }).where('id', '=', row.id).execute();
  }

  /** HEAD: where the upload stands. */
  async state(session: UploadSession, id: string): Promise<UploadState> {
    await this.takeOver(id);
    await this.reconcile(session, await this.row(session, id));
    let row = await this.row(session, id);
    // Complete but not yet checked (a stop during the check): check it now.
    if (Number(row.offset) === Number(row.length) && !row.mime_type) {
      await this.verify(session, id);
      row = await this.row(session, id);
    }
    return { offset: Number(row.offset), length: Number(row.length) };
  }

  /** DELETE (termination). */
  async terminate(session: UploadSession, id: string): Promise<void> {
    await this.takeOver(id);
    await this.row(session, id);
    await this.ctx.db.deleteFrom('file_upload').where('id', '=', id).execute();
    await this.ctx.files.discardUpload(id);
  }

  /** Ends every request streaming into an upload (the app is closing); each saves its offset. */
  async stop(): Promise<void> {
    const all = [...this.active.values()];
    for (const a of all) a.abort();
    await Promise.allSettled(all.map((a) => a.done));
  }

  /**
   * PATCH: appends `body` at `clientOffset`, which must be the upload's offset (409
   * otherwise). Whatever arrived before a failure or a dropped connection is kept.
   */
  async append(session: UploadSession, id: string, clientOffset: string | undefined, body: Readable): Promise<UploadState> {
    const given = parseLength(clientOffset, 'Upload-Offset');
    await this.takeOver(id);
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    let abortedByServer = false;
    this.active.set(id, {
      abort: () => {
        abortedByServer = true;
        body.destroy(new HttpError(409, 'UPLOAD_SUPERSEDED', 'A newer request for this upload took over.'));
      },
      done,
    });
    try {
      await this.reconcile(session, await this.row(session, id));
      const row = await this.row(session, id);
      const length = Number(row.length);
      const offset = Number(row.offset);
      if (given !== offset) throw new HttpError(409, 'UPLOAD_OFFSET_MISMATCH', `This upload is at offset ${offset}, not ${given}.`, 'Upload-Offset');
      if (offset === length) {
        if (!row.mime_type) await this.verify(session, id);
        return { offset, length };
      }
      if (session.sealed) return await this.appendSealed(session, id, offset, length, body, () => abortedByServer);
      const key = session.key!;

      // Received but not sealed yet: fewer than FILE_CHUNK bytes, kept as the pieces of
      // the request's reads they arrived in (Node sizes each read to its bytes, so a
      // piece keeps no more than its own read alive). Every byte is copied once, by the
      // cipher: a chunk that straddles two reads is sealed from both pieces, and what is
      // sealed goes to the disk in pieces too (bench/upload.ts, performance.md
      // twenty-first round).
      const tail = row.tail_enc ? this.ctx.crypto.open(key, session.caseId, TAIL_COLUMN, row.tail_enc, `${id}:${offset}`) : undefined;
      let pending: Buffer[] = tail?.length ? [tail] : [];
      let pendingBytes = tail?.length ?? 0;
      let sealed = offset - pendingBytes; // always a whole number of chunks
      let index = sealed / FILE_CHUNK;
      const sealer = this.ctx.crypto.chunkSealer(key, id, row.file_header);
      // Cuts off chunks a killed process wrote after its last saved offset.
      const writer = await this.ctx.files.openUpload(id, FILE_HEADER + index * FILE_BLOCK);
      let received = offset;
      let saved = sealed;
      let savedAt = this.ctx.clock.now().getTime();
      let aliveAt = received;
      let out: Buffer[] = [];
      let outBytes = 0;
      const flush = async (checkDisk = true) => {
        if (!outBytes) return;
        // Refused before the disk fills (the bytes received so far are kept).
        if (checkDisk) await this.quotas.assertDisk(outBytes);
        const pieces = out;
        out = [];
        outBytes = 0;
        await writer.write(pieces);
      };
      const sealChunk = (pieces: readonly Buffer[], final: boolean) => {
        for (const block of sealer.sealPieces(index++, pieces, final)) {
          out.push(block);
          outBytes += block.length;
        }
        sealed += pieces.reduce((n, p) => n + p.length, 0);
      };
      const save = async (at: number, tail: Buffer | null) => {
        await this.ctx.db
          .updateTable('file_upload')
          .set({ offset: at, tail_enc: tail && tail.length ? this.ctx.crypto.seal(key, session.caseId, TAIL_COLUMN, tail, `${id}:${at}`) : null, updated_at: this.ctx.clock.now() })
          .where('id', '=', id)
          .execute();
      };

      // The first bytes must fit the name (as the SPA checks before sending): a file
      // that cannot be what it says is refused at once, not after 2 GB.
      const ext = fileExtension(this.ctx.crypto.open(key, session.caseId, FILE_NAME_COLUMN, row.name_enc, id).toString('utf8'));
      const headWanted = offset === 0 && !isTextExtension(ext) && Object.hasOwn(ALLOWED_FILE_TYPES, ext) ? Math.min(FILE_HEAD_BYTES, length) : 0;
      let failure: unknown;
      const receiving = this.ctx.metrics?.uploadStarted('tus');
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          if (received + chunk.length > length) throw new HttpError(400, 'UPLOAD_TOO_LONG', `The body goes beyond Upload-Length (${length}).`, 'Upload-Length');
          this.ctx.metrics?.uploadBytes('tus', chunk.length);
          if (headWanted && received < headWanted && received + chunk.length >= headWanted) {
            const head = Buffer.concat([...pending, chunk]).subarray(0, headWanted);
            if (!headMatches(ext as AllowedExtension, head)) throw new HttpError(415, 'FILE_CONTENT_MISMATCH', `The content of this upload is not a .${ext} file.`, 'filename');
          }
          received += chunk.length;
          let at = 0;
          if (pendingBytes && pendingBytes + chunk.length >= FILE_CHUNK) {
            at = FILE_CHUNK - pendingBytes;
            sealChunk([...pending, chunk.subarray(0, at)], sealed + FILE_CHUNK === length);
            pending = [];
            pendingBytes = 0;
          }
          while (chunk.length - at >= FILE_CHUNK) {
            sealChunk([chunk.subarray(at, at + FILE_CHUNK)], sealed + FILE_CHUNK === length);
            at += FILE_CHUNK;
          }
          if (at < chunk.length) {
            pending.push(chunk.subarray(at));
            pendingBytes += chunk.length - at;
          }
          if (outBytes >= WRITE_BUFFER) await flush();
          if (sealed - saved >= CHECKPOINT_BYTES) {
            await flush();
            await writer.sync();
            await save(sealed, null);
            saved = sealed;
            savedAt = this.ctx.clock.now().getTime();
            aliveAt = received;
          } else if (received > aliveAt && this.ctx.clock.now().getTime() - savedAt >= ALIVE_EVERY_MS) {
            // Bytes are arriving, too slowly for a checkpoint: not stalled.
            await this.ctx.db.updateTable('file_upload').set({ updated_at: this.ctx.clock.now() }).where('id', '=', id).execute();
            savedAt = this.ctx.clock.now().getTime();
            aliveAt = received;
          }
        }
        if (received === length && sealed < length) {
          sealChunk(pending, true);
          pending = [];
          pendingBytes = 0;
        }
      } catch (err) {
        failure = err;
      } finally {
        receiving?.();
      }
      try {
        // What was sealed is written whatever the disk check says: the reserve has room
        // for one buffer, and the saved offset must match the chunks on disk.
        await flush(false);
        await writer.sync();
      } finally {
        await writer.close();
      }
      // A request that brought no bytes leaves the upload as it was: it does not make a stalled upload look alive.
      if (received > offset) await save(received, pendingBytes ? Buffer.concat(pending, pendingBytes) : null);
      if (failure) {
        if (failure instanceof HttpError && failure.code === 'FILE_CONTENT_MISMATCH') {
          await this.ctx.db.deleteFrom('file_upload').where('id', '=', id).execute();
          await this.ctx.files.discardUpload(id);
        }
        if (failure instanceof HttpError) throw failure;
        // The client went away (or a newer request took over): what arrived is kept.
        if (abortedByServer || body.destroyed || (failure as { code?: string }).code === 'ECONNRESET') {
          throw new HttpError(400, 'UPLOAD_ABORTED', 'The upload was interrupted; ask for its offset (HEAD) and continue.');
        }
        throw failure;
      }
      if (received === length) await this.verify(session, id);
      return { offset: received, length };
    } finally {
      this.active.delete(id);
      release();
    }
  }

  /**
   * PATCH of a sealed case's upload: the bytes are the browser's ciphertext, stored as
   * they come at the saved offset (nothing to seal, nothing held back). What the server
   * can check without the key: the file begins with `WBF1` (else 400 BAD_SEALED_FILE
   * and the upload is removed, nothing kept) and it does not grow past its sealed size.
   */
  private async appendSealed(session: UploadSession, id: string, offset: number, length: number, body: Readable, abortedByServer: () => boolean): Promise<UploadState> {
    const writer = await this.ctx.files.openUpload(id, offset);
    let received = offset;
    let saved = offset;
    let savedAt = this.ctx.clock.now().getTime();
    let out: Buffer[] = [];
    let outBytes = 0;
    const flush = async (checkDisk = true) => {
      if (!outBytes) return;
      if (checkDisk) await this.quotas.assertDisk(outBytes);
      const pieces = out;
      out = [];
      outBytes = 0;
      await writer.write(pieces);
    };
    const save = (at: number) => this.ctx.db.updateTable('file_upload').set({ offset: at, updated_at: this.ctx.clock.now() }).where('id', '=', id).execute();
    let failure: unknown;
    let refused = false;
    const receiving = this.ctx.metrics?.uploadStarted('tus');
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (received + chunk.length > length) throw new HttpError(400, 'UPLOAD_TOO_LONG', `The body goes beyond Upload-Length (${length}).`, 'Upload-Length');
        this.ctx.metrics?.uploadBytes('tus', chunk.length);
        for (let i = 0; received + i < FILE_MAGIC.length && i < chunk.length; i++) {
          if (chunk[i] !== FILE_MAGIC[received + i]) {
            refused = true;
            throw new HttpError(400, 'BAD_SEALED_FILE', 'This is not a sealed file: it does not begin with the WBF1 header.', 'body');
          }
        }
        received += chunk.length;
        out.push(chunk);
        outBytes += chunk.length;
        if (outBytes >= WRITE_BUFFER) await flush();
        if (received - saved >= CHECKPOINT_BYTES) {
          await flush();
          await writer.sync();
          await save(received);
          saved = received;
          savedAt = this.ctx.clock.now().getTime();
        } else if (this.ctx.clock.now().getTime() - savedAt >= ALIVE_EVERY_MS) {
          await this.ctx.db.updateTable('file_upload').set({ updated_at: this.ctx.clock.now() }).where('id', '=', id).execute();
          savedAt = this.ctx.clock.now().getTime();
        }
      }
    } catch (err) {
      failure = err;
    } finally {
      receiving?.();
    }
    try {
      if (!refused) await flush(false);
      await writer.sync();
    } finally {
      await writer.close();
    }
    if (refused) {
      await this.ctx.db.deleteFrom('file_upload').where('id', '=', id).execute();
      await this.ctx.files.discardUpload(id);
      throw failure;
    }
    // Everything written is saved: the object holds exactly the offset's bytes.
    if (received > saved) await save(received);
    if (failure) {
      if (failure instanceof HttpError) throw failure;
      if (abortedByServer() || body.destroyed || (failure as { code?: string }).code === 'ECONNRESET') {
        throw new HttpError(400, 'UPLOAD_ABORTED', 'The upload was interrupted; ask for its offset (HEAD) and continue.');
      }
      throw failure;
    }
    if (received === length) await this.verify(session, id);
    return { offset: received, length };
  }

  /**
   * Reads a complete upload back through the same checks as a multipart file. A file
   * whose bytes do not fit its name is deleted and refused (415). A sealed case's
   * upload cannot be read: it is complete once all its bytes came, and its type is
   * the one coarse category (`SEALED_FILE_TYPE`).
   */
  private async verify(session: UploadSession, id: string): Promise<void> {
    if (session.sealed) {
      await this.ctx.db.updateTable('file_upload').set({ mime_type: SEALED_FILE_TYPE, updated_at: this.ctx.clock.now() }).where('id', '=', id).execute();
      return;
    }
    const key = session.key!;
    const row = await this.row(session, id);
    const name = this.ctx.crypto.open(key, session.caseId, FILE_NAME_COLUMN, row.name_enc, id).toString('utf8');
    const sniffer = new ContentSniffer(name);
    const check = new MetadataCheck(name);
    const sink = new Writable({ highWaterMark: FILE_CHUNK, write: (_c, _e, cb) => cb() });
    await pipeline(this.ctx.files.readUpload(id), this.ctx.crypto.decryptFile(key, id), sniffer, check, sink);
    const mimeType = sniffer.verdict();
    if (!mimeType) {
      await this.ctx.db.deleteFrom('file_upload').where('id', '=', id).execute();
      await this.ctx.files.discardUpload(id);
      throw new HttpError(415, 'FILE_CONTENT_MISMATCH', `The content of "${name.slice(0, 100)}" is not a .${sniffer.ext} file.`, 'filename');
    }
    const remaining = await check.remaining();
    await this.ctx.db
      .updateTable('file_upload')
      .set({ mime_type: mimeType, metadata_remaining: remaining ? JSON.stringify(remaining) : null, updated_at: this.ctx.clock.now() })
      .where('id', '=', id)
      .execute();
  }

  // ---- the case takes its uploads ----------------------------------------------

  /**
   * Inside the transaction that creates the case (`forCase` null) or writes a message
   * of case `forCase`: marks the session used (once) and takes its complete uploads
   * `ids`, in order, as the files. Any id that is not a complete, checked upload of
   * this session refuses the whole case or message; so does a session bound to
   * another case, or to none when a message asks (and the reverse).
   */
  async claim(trx: Transaction<DB>, session: UploadSession, ids: readonly string[], forCase: string | null = null): Promise<StagedFile[]> {
    assertSessionFor(session, forCase);
    const used = await trx.updateTable('upload_session').set({ used_at: this.ctx.clock.now() }).where('id', '=', session.id).where('used_at', 'is', null).executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw new HttpError(409, 'UPLOAD_SESSION_USED', 'This upload session already made its case.');
    if (!ids.length) return [];
    const rows = await trx.selectFrom('file_upload').selectAll().where('session_id', '=', session.id).where('id', 'in', [...ids]).forUpdate().execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    const files = ids.map((id, i): StagedFile => {
      const row = byId.get(id);
      if (!row) throw new HttpError(400, 'UNKNOWN_UPLOAD', 'No such upload in this upload session.', `uploads.${i}`);
      if (Number(row.offset) !== Number(row.length) || !row.mime_type) {
        throw new HttpError(409, 'UPLOAD_INCOMPLETE', 'This upload has not finished; finish it (or remove it) and send again.', `uploads.${i}`);
      }
      // A sealed case's upload: its name stays the browser's envelope.
      if (session.sealed) return { id, name: '', nameEnc: Buffer.from(row.name_enc), size: Number(row.length), mimeType: row.mime_type, metadataRemaining: null };
      return {
        id,
        name: this.ctx.crypto.open(session.key!, session.caseId, FILE_NAME_COLUMN, row.name_enc, id).toString('utf8'),
        size: Number(row.length),
        mimeType: row.mime_type,
        metadataRemaining: row.metadata_remaining ? (JSON.parse(row.metadata_remaining) as string[]) : null,
      };
    });
    await trx.deleteFrom('file_upload').where('id', 'in', [...ids]).execute();
    return files;
  }

  /**
   * The sealed upload session a sealed case's creation (`forCase` null) or a message of
   * sealed case `forCase` sends in X-Upload-Session, checked before anything is stored:
   * bound to what it is sent with, sealed, unused; null when none is sent (then no
   * uploads may be named).
   */
  async sealedSession(token: unknown, forCase: string | null, ids: readonly string[]): Promise<UploadSession | null> {
    if (new Set(ids).size !== ids.length) throw new HttpError(400, 'DUPLICATE_UPLOAD', 'Name each upload once.', 'uploads');
    const session = token === undefined ? null : await this.session(token);
    if (!session) {
      if (ids.length) throw new HttpError(400, 'UPLOAD_SESSION_REQUIRED', 'Uploads are taken only with their upload session in X-Upload-Session.', 'uploads');
      return null;
    }
    assertSessionFor(session, forCase);
    if (!session.sealed) throw new HttpError(409, 'UPLOAD_SESSION_NOT_SEALED', 'This upload session seals its files on the server; a sealed case takes only uploads of a sealed session.', UPLOAD_SESSION_HEADER);
    if (session.usedAt) throw new HttpError(409, 'UPLOAD_SESSION_USED', 'This upload session was already used; open a new one.');
    return session;
  }

  /** After the commit: the claimed uploads become final files (a crash before is finished by the store's `recover`). */
  async commit(files: readonly { id: string }[]): Promise<void> {
    for (const f of files) await this.ctx.files.commitUpload(f.id);
  }
}

/**
 * A session serves only what it was opened for: an anonymous one a new case, a bound
 * one a message of its own case (403 `UPLOAD_SESSION_FOREIGN` otherwise).
 */
export function assertSessionFor(session: UploadSession, forCase: string | null): void {
  if (session.boundCaseId !== forCase) {
    throw new HttpError(
      403,
      'UPLOAD_SESSION_FOREIGN',
      forCase === null
        ? 'This upload session belongs to an existing case; a new case needs its own session from POST ' + UPLOAD_SESSIONS_PATH + '.'
        : 'This upload session does not belong to this case; open one with POST ' + CASE_UPLOAD_SESSIONS_PATH + '.',
      UPLOAD_SESSION_HEADER,
    );
  }
}

/**
 * A session is used at the company whose host made it (403 `UPLOAD_SESSION_FOREIGN`
 * at another's, as a reporter's token is): an upload session made at one company's
 * portal neither uploads nor makes a case at another's. `companyId` null: the request
 * names no company.
 */
export function assertSessionCompany(session: UploadSession, companyId: string | null): void {
  if (session.companyId === null || session.companyId !== companyId) {
    throw new HttpError(403, 'UPLOAD_SESSION_FOREIGN', "This upload session belongs to another company's portal.", UPLOAD_SESSION_HEADER);
  }
}

/**
 * Removes sessions made 24 hours ago with their uploads (anonymous ones and a
 * reporter's for a message alike), however recently bytes came: activity does not
 * buy time, so one session holds disk space for a day at most. An unfinished upload
 * that received no bytes for an hour goes sooner (a finished one waits for its case).
 * Then upload objects no row knows.
 */
export async function sweepUploads(ctx: AppContext, now: Date): Promise<{ sessions: number; files: number; stalled: number }> {
  const cutoff = new Date(now.getTime() - ABANDONED_AFTER_MS);
  const stale = await ctx.db.selectFrom('upload_session').select('id').where('created_at', '<', cutoff).execute();
  let files = 0;
  if (stale.length) {
    const ids = stale.map((s) => s.id);
    const uploads = await ctx.db.selectFrom('file_upload').select('id').where('session_id', 'in', ids).execute();
    await ctx.db.deleteFrom('upload_session').where('id', 'in', ids).execute();
    for (const u of uploads) {
      await ctx.files.discardUpload(u.id);
      files++;
    }
  }
  const stalledCutoff = new Date(now.getTime() - STALLED_AFTER_MS);
  const stalled = await ctx.db
    .deleteFrom('file_upload')
    .where('updated_at', '<', stalledCutoff)
    .where((eb) => eb('offset', '<', eb.ref('length')))
    .returning('id')
    .execute();
  for (const u of stalled) {
    await ctx.files.discardUpload(u.id);
    files++;
  }
  // Objects no row knows: a crash between removing a row and its object. (An upload's
  // row is written before its object, and a claimed one is known by its case_file.)
  const objects = (await ctx.files.listUploads()).filter((o) => o.mtimeMs < stalledCutoff.getTime());
  if (objects.length) {
    const keys = objects.map((o) => o.key);
    const known = new Set([
      ...(await ctx.db.selectFrom('file_upload').select('id').where('id', 'in', keys).execute()).map((r) => r.id),
      ...(await ctx.db.selectFrom('case_file').select('storage_key as id').where('storage_key', 'in', keys).execute()).map((r) => r.id),
    ]);
    for (const key of keys) {
      if (known.has(key)) continue;
      await ctx.files.discardUpload(key);
      files++;
    }
  }
  return { sessions: stale.length, files, stalled: stalled.length };
}

export const uploadSweepJob: Job = {
  name: 'upload-sweep',
  // Often enough that a stalled upload's space comes back soon after its hour.
  intervalMs: 15 * 60 * 1000,
  async run(ctx, now) {
    const swept = await sweepUploads(ctx, now);
    if (swept.sessions || swept.files) ctx.log.info(swept, 'uploads: removed expired and stalled uploads');
  },
};
