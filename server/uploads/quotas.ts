/**
 * Byte quotas on uploads (issue 36, finding 2; docs/decisions/resumable-uploads.md
 * "Limits"), for resumable (tus) uploads and multipart files alike:
 *
 * - per upload session (or one multipart submission): `UPLOAD_SESSION_MAX_BYTES`;
 * - per case: its files (report and messages) and its uploads in progress,
 *   `UPLOAD_CASE_MAX_BYTES`;
 * - per client and 24 hours: `UPLOAD_CLIENT_DAILY_BYTES`, the client being the keyed
 *   hash of its address that the rate limits use (server/security/abuse.ts); counted
 *   by one conditional upsert, so parallel requests and several processes cannot pass
 *   it together;
 * - free space on the file store: nothing is written that would leave less than
 *   `UPLOAD_DISK_RESERVE_BYTES` free (507), so the disk never fills.
 *
 * A tus upload is counted by its declared length when it is created (its bytes can
 * never exceed it); a multipart file, whose length nobody declares, by its bytes as
 * they arrive, and it is cut (and removed) at the byte that passes a quota.
 */
import { statfs } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { sql, type Kysely } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { HttpError } from '../errors.ts';

/** The client quota's window. */
export const CLIENT_QUOTA_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A multipart stream reserves its client's bytes (and checks the disk) this much at a time, not per read. */
const CHARGE_STEP = 4 * 1024 * 1024;

const mib = (n: number) => `${Math.floor(n / (1024 * 1024))} MiB`;

/** What one multipart request may still write, counted across its files. */
export interface ByteBudget {
  /** A pass-through for one file's bytes that refuses (413 or 507) the read that would pass a quota. */
  meter(field: string): Transform;
  /** Gives the client back what was reserved and never arrived; call once, when the request's files are read. */
  settle(): Promise<void>;
}

export class UploadQuotas {
  private charges = 0;

  constructor(
    private readonly ctx: AppContext,
    /** The keyed hash of a request's address (server/security/abuse.ts `clientOf`). */
    readonly clientOf: (req: FastifyRequest) => string,
  ) {}

  private get limits() {
    return this.ctx.config.uploadQuota;
  }

  /** 507 `INSUFFICIENT_STORAGE` when writing `bytes` more would leave less than the reserve free. */
  async assertDisk(bytes: number, field?: string): Promise<void> {
    // Chunk rows: the database's disk is PostgreSQL's to watch (docs/decisions/file-store.md).
    if (this.ctx.files.kind === 'postgres') return;
    const s = await statfs(this.ctx.config.filesDir!);
    const free = Number(s.bavail) * Number(s.bsize);
    if (free - bytes < this.limits.diskReserveBytes) {
      throw new HttpError(507, 'INSUFFICIENT_STORAGE', 'The portal has no room for this file at the moment; try again later.', field);
    }
  }

  assertSession(bytes: number, field?: string): void {
    if (bytes > this.limits.sessionBytes) {
      throw new HttpError(413, 'UPLOAD_QUOTA_SESSION', `The files of one submission may hold at most ${mib(this.limits.sessionBytes)} in all.`, field);
    }
  }

  assertCase(bytes: number, field?: string): void {
    if (bytes > this.limits.caseBytes) {
      throw new HttpError(413, 'UPLOAD_QUOTA_CASE', `The files of one case may hold at most ${mib(this.limits.caseBytes)} in all.`, field);
    }
  }

  private clientRefusal(field?: string) {
    return new HttpError(413, 'UPLOAD_QUOTA_CLIENT', `At most ${mib(this.limits.clientDailyBytes)} of files may be sent from one connection in 24 hours; try again later.`, field);
  }

  /**
   * Counts `bytes` against `client`'s 24-hour quota, or refuses (413
   * `UPLOAD_QUOTA_CLIENT`) and counts nothing. One statement: a row lock taken by the
   * upsert makes parallel charges of one client take turns. Pass a transaction to
   * have the charge undone with it.
   */
  async chargeClient(db: Kysely<DB>, client: string, bytes: number, field?: string): Promise<void> {
    if (bytes <= 0) return;
    const max = this.limits.clientDailyBytes;
    if (bytes > max) throw this.clientRefusal(field);
    const now = this.ctx.clock.now();
    const reset = new Date(now.getTime() + CLIENT_QUOTA_WINDOW_MS);
    const key = `client:${client}`;
    const r = await sql<{ bytes: string }>`
      INSERT INTO upload_quota (key, bytes, reset_at) VALUES (${key}, ${bytes}, ${reset})
      ON CONFLICT (key) DO UPDATE SET
        bytes = CASE WHEN upload_quota.reset_at <= ${now} THEN excluded.bytes ELSE upload_quota.bytes + excluded.bytes END,
        reset_at = CASE WHEN upload_quota.reset_at <= ${now} THEN excluded.reset_at ELSE upload_quota.reset_at END
      WHERE upload_quota.reset_at <= ${now} OR upload_quota.bytes + excluded.bytes <= ${max}
      RETURNING bytes`.execute(db);
    if (!r.rows.length) throw this.clientRefusal(field);
    // Ended windows are cleared now and then, so the table stays small.
    if (++this.charges % 200 === 0) await this.ctx.db.deleteFrom('upload_quota').where('reset_at', '<', now).execute();
  }

  async refundClient(client: string, bytes: number): Promise<void> {
    if (bytes <= 0) return;
    await sql`UPDATE upload_quota SET bytes = GREATEST(0, bytes - ${bytes}) WHERE key = ${`client:${client}`}`.execute(this.ctx.db);
  }

  /** Bytes of uploads session `sessionId` holds, by their declared lengths. */
  async sessionBytes(db: Kysely<DB>, sessionId: string): Promise<number> {
    const r = await db.selectFrom('file_upload').select((eb) => eb.fn.sum<string | null>('length').as('n')).where('session_id', '=', sessionId).executeTakeFirstOrThrow();
    return Number(r.n ?? 0);
  }

  /** Bytes case `caseId` holds or will: its files, and the uploads of its sessions not yet used. */
  async caseBytes(db: Kysely<DB>, caseId: string): Promise<number> {
    // A note's files do not count against the case's files: the reporter's quota must not tell that they exist.
    const files = await db.selectFrom('case_file').select((eb) => eb.fn.sum<string | null>('size').as('n')).where('case_id', '=', caseId).where('note_id', 'is', null).executeTakeFirstOrThrow();
    const pending = await db
      .selectFrom('file_upload')
      .innerJoin('upload_session', 'upload_session.id', 'file_upload.session_id')
      .select((eb) => eb.fn.sum<string | null>('file_upload.length').as('n'))
      .where('upload_session.case_id', '=', caseId)
      .where('upload_session.used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(files.n ?? 0) + Number(pending.n ?? 0);
  }

  /**
   * The budget of one multipart request for case `caseId` (new or existing) with the
   * upload session `sessionId`, if any. What the case and session hold is read at the
   * first byte of a file, not for requests without files.
   */
  budget(req: FastifyRequest, opts: { caseId: string; sessionId: string | null }): ByteBudget {
    const client = this.clientOf(req);
    let held: Promise<{ session: number; case: number }> | undefined;
    const heldBytes = () =>
      (held ??= (async () => ({
        session: opts.sessionId ? await this.sessionBytes(this.ctx.db, opts.sessionId) : 0,
        case: await this.caseBytes(this.ctx.db, opts.caseId),
      }))());
    let received = 0;
    let reserved = 0;
    const admit = async (n: number, field: string) => {
      const h = await heldBytes();
      const next = received + n;
      this.assertSession(h.session + next, field);
      this.assertCase(h.case + next, field);
      if (next > reserved) {
        const step = Math.max(CHARGE_STEP, next - reserved);
        await this.assertDisk(step, field);
        try {
          await this.chargeClient(this.ctx.db, client, step, field);
          reserved += step;
        } catch (err) {
          // Near the quota a whole step may not fit where the bytes themselves do.
          if (step === next - reserved) throw err;
          await this.chargeClient(this.ctx.db, client, next - reserved, field);
          reserved = next;
        }
      }
      received = next;
    };
    return {
      meter: (field) =>
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            admit(chunk.length, field).then(() => cb(null, chunk), (err: unknown) => cb(err as Error));
          },
        }),
      settle: async () => {
        const unused = reserved - received;
        reserved = received;
        await this.refundClient(client, unused);
      },
    };
  }
}
