/**
 * Cases: creation by channel, the case as read back (spec §3, docs/architecture.md
 * "Wire shapes"), and what handlers do to a case. Every text a reporter or a
 * handler writes is sealed with the case's own data key before it reaches the
 * database (server/crypto/case-crypto.ts).
 */
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { CaseStatus, CreationChannel, EntryChannel, Language, MessageType, ReportedPerson, SubmissionType, Violation, Whistleblower } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import type { DB, ReportCaseTable } from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import { companyById, type Company } from '../companies/service.ts';
import { newCaseNumber } from './numbers.ts';
import { fromBase64, sealNewCase, sealNotifyAddress, sealedFileSize, type Kdf, type Recipients as SealingKeys } from '../../core/crypto/index.ts';
import { DEFAULT_KDF, kdfText, newSalt, parseKdf, parseVerifier, serverReporterKeys, serverVerifier, type AccountSecret } from './reporter-keys.ts';
import { takeReservation } from './reservations.ts';
import type { StagedFile } from './upload.ts';
import { metadataView, storedMetadata, type MetadataCheckState } from '../files/metadata-check.ts';
import { loadVersions, recordVersion, type RecordVersionView, type RecordWriter } from './record.ts';
import { transcriptViews, type TranscriptView } from './transcript.ts';
import { assertCheckValue, CHECK_ROW } from '../crypto/master-key.ts';
import { LANGUAGE_COLUMN, onCaseEvent } from '../mail/notify.ts';
import { retentionOf, scheduledDeletion } from '../retention/policy.ts';

export const COLUMNS = {
  details: 'report_case.details_enc',
  whistleblower: 'report_case.whistleblower_enc',
  report: 'report_case.report_enc',
  messageBody: 'case_message.body_enc',
  fileName: 'case_file.name_enc',
  comment: 'case_comment.body_enc',
} as const;

export interface OfficerSnapshot {
  id: string;
  name: string;
  jobTitle: string;
  company: string;
  phone: string;
  customerRelation: string;
  logoUrl: string | null;
}

/** The sealed part of a case: what the reporter wrote, and the officer as chosen. */
export interface CaseDetails {
  description: string | null;
  violation: Violation | null;
  repeatedViolations: boolean | null;
  whistleblowerRelation: string;
  reportedPersons: ReportedPerson[];
  reportedUnit: string | null;
  protectionOfficer: OfficerSnapshot;
  subsidiary: { id: string; name: string } | null;
}

export interface NewCaseInput {
  company: Company;
  caseId: string;
  /** The data key and its server wrapping; null for a sealed case (the server never knows its key). */
  key: Buffer | null;
  wrappedKey: Buffer | null;
  /** A case sealed in the reporter's browser (server/cases/sealed.ts): its envelopes and wraps, stored as sent. */
  sealed?: SealedParts;
  /**
   * Sealed on arrival (the weaker plain path at a company that takes sealed cases,
   * docs/decisions/sealed-migration.md "Sealed on arrival; migration"): `key` is the data
   * key the request's files were encrypted under; the case is sealed to these keys (and
   * to the reporter key the server derives from the plain password), stored as a
   * browser-sealed case, and `key` is not kept (no server wrapping, no shred key).
   */
  sealOnArrival?: SealingKeys;
  submissionType: SubmissionType;
  creationChannel: CreationChannel;
  whistleblowerRelation: string;
  protectionOfficerId: string;
  subsidiaryId?: string | null;
  whistleblower?: Whistleblower | null;
  follow: boolean;
  /**
   * The follow account (issue 37): the verifier a browser derived for a reserved case
   * number (`reservation`), or, the weaker path of scripted clients, the plain
   * `password` the server derives the same verifier from. Null: not followed.
   */
  account?: AccountInput | null;
  description?: string | null;
  violation?: Violation | null;
  repeatedViolations?: boolean | null;
  reportedPersons?: ReportedPerson[];
  reportedUnit?: string | null;
  files?: StagedFile[];
  /**
   * Resumable uploads the case takes (server/uploads/resumable.ts): `claim` runs first
   * in the case's transaction and refuses the case when an upload is not complete;
   * `commit` makes them final files after the commit.
   */
  uploads?: { claim(trx: Transaction<DB>): Promise<StagedFile[]>; commit(files: readonly StagedFile[]): Promise<void> };
  /** The interface language the report was sent in: the language of mails to the reporter. */
  language?: Language | null;
  /**
   * A report a handler entered (docs/decisions/handler-entered-reports.md): how it came,
   * and when the company received it, where the legal clocks start (the first RECEIVED
   * event), checked by the caller (machines/schema.ts receivedDayIssue).
   */
  entered?: { channel: EntryChannel; receivedAt: Date };
}

export interface SealedParts {
  details: Buffer;
  whistleblower: Buffer | null;
  /** The reporter's notification address sealed to the mail key (core/crypto/mail.ts), kept apart in `case_notify`. */
  notify?: { mailKeyId: string; box: Buffer } | null;
  /** The case's categories for statistics sealed to the statistics key (core/crypto/statistics.ts), kept apart in `case_categories`. */
  categories?: { statsKeyId: string; box: Buffer } | null;
  epoch: number;
  wraps: { recipientKeyId: string; kind: 'reporter' | 'handler' | 'recovery'; wrap: Buffer }[];
}

export type AccountInput = { password: string } | { reservation: string; verifier: string; kdf: Kdf };

export interface CreatedCase {
  caseNumber: string;
  status: CaseStatus;
  created: string;
  submission: { type: SubmissionType };
}

export function officerLogoUrl(officerId: string): string {
  return `/api/public/case/protection-officer/${officerId}/logo`;
}

export function officerSnapshot(company: Company, id: string): OfficerSnapshot | null {
  const o = company.settings.protectionOfficers.find((x) => x.id === id);
  if (!o) return null;
  return { id: o.id, name: o.name, jobTitle: o.jobTitle, company: o.company, phone: o.phone, customerRelation: o.customerRelation, logoUrl: o.logo ? officerLogoUrl(o.id) : null };
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/**
 * Creates a case with its first status event, its follow account and its
 * submission files in one transaction. The files' temporaries are made final only
 * after the commit; the caller discards them if this throws.
 */
export async function createCase(ctx: AppContext, input: NewCaseInput): Promise<CreatedCase> {
  const officer = officerSnapshot(input.company, input.protectionOfficerId);
  if (!officer) throw new HttpError(400, 'UNKNOWN_OFFICER', 'No such protection officer in this company.', 'protectionOfficer.id');
  let subsidiary: CaseDetails['subsidiary'] = null;
  if (input.subsidiaryId) {
    const s = input.company.settings.subsidiaries.find((x) => x.id === input.subsidiaryId);
    if (!s) throw new HttpError(400, 'UNKNOWN_SUBSIDIARY', 'No such subsidiary in this company.', 'subsidiary');
    subsidiary = { id: s.id, name: s.name };
  }
  const status: CaseStatus = input.submissionType === 'ONLINE_FORM' ? 'RECEIVED' : 'PENDING_WHISTLEBLOWER_CONTACT';
  const details: CaseDetails = {
    description: input.description ?? null,
    violation: input.violation ?? null,
    repeatedViolations: input.repeatedViolations ?? null,
    whistleblowerRelation: input.whistleblowerRelation,
    reportedPersons: input.reportedPersons ?? [],
    reportedUnit: input.reportedUnit || null,
    protectionOfficer: officer,
    subsidiary,
  };
  // Argon2id runs on libuv's thread pool (@node-rs/argon2), before the transaction:
  // the embedded database's single connection never waits on a hash.
  const account = input.follow ? (input.account ?? null) : null;
  const reserved = account && 'reservation' in account ? account : null;
  const verifierHash = reserved ? await ctx.passwords.hash(parseVerifier(reserved.verifier, 'caseAccount.verifier')) : null;
  if (reserved) parseKdf(reserved.kdf, 'caseAccount.kdf');
  const { caseId } = input;
  const now = new Date();
  const onArrival = input.sealOnArrival ?? null;
  let inBrowser = input.sealed ?? null;
  const key = input.key;
  if (!inBrowser && !key) throw new Error('a case not sealed in the browser needs its data key');
  if (onArrival && (inBrowser || input.wrappedKey || input.uploads)) throw new Error('a case sealed on arrival has only its data key and its sent files');
  if (inBrowser && input.files?.length) throw new HttpError(400, 'CASE_SEALED', 'A sealed case takes its files sealed in the browser, by resumable upload.', 'uploads');
  // The server never had the reporter key of a verifier the client derived: it could not wrap the data key to it.
  if (onArrival && reserved) throw new Error('a case whose verifier the client derived cannot be sealed on arrival (sealableOnArrival)');
  // Sealed before the transaction too: nothing but statements runs while it is open.
  // A sealed case's envelopes are stored as the browser sent them; it has no sealed language (mails wait for the mail key).
  let sealed = inBrowser
    ? { details_enc: inBrowser.details, whistleblower_enc: inBrowser.whistleblower, language_enc: null }
    : onArrival
      ? { details_enc: Buffer.alloc(0), whistleblower_enc: null, language_enc: null } // sealed per attempt below (the reporter key depends on the case number)
      : {
        details_enc: ctx.crypto.sealJson(key!, caseId, COLUMNS.details, details),
        whistleblower_enc: input.whistleblower ? ctx.crypto.sealJson(key!, caseId, COLUMNS.whistleblower, input.whistleblower) : null,
        language_enc: input.language ? ctx.crypto.seal(key!, caseId, LANGUAGE_COLUMN, input.language) : null,
      };
  const sentFiles = key ? fileRows(ctx, caseId, key, null, input.files ?? [], now) : [];
  // A sealed case's file size is what is stored and downloaded: the sealed size (sealed-cases.md "Sealed files").
  if (onArrival) for (const f of sentFiles) f.size = sealedFileSize(f.size);

  for (let attempt = 0; ; attempt++) {
    let caseNumber = reserved ? '' : newCaseNumber();
    // The plain path: the server derives the verifier the browser would have, for this number.
    let secret: AccountSecret | null = null;
    let reporterKey: CryptoKey | null = null;
    if (account && 'password' in account) {
      const salt = newSalt();
      // Sealed on arrival: the one derivation gives the verifier and the reporter key the case is wrapped to.
      const derived = onArrival ? await serverReporterKeys(caseNumber, account.password, salt, DEFAULT_KDF) : { verifier: await serverVerifier(caseNumber, account.password, salt, DEFAULT_KDF), reporterKey: null };
      reporterKey = derived.reporterKey;
      secret = { salt, kdf: DEFAULT_KDF, passwordHash: await ctx.passwords.hash(derived.verifier) };
    }
    if (onArrival) {
      // The same module and shape as the reporter's browser (the details as the reporter wrote them; the officer stays in clear ids).
      const parts = await sealNewCase(onArrival, { caseId, dataKey: new Uint8Array(key!), reporterKey, details: plainDetails(details), whistleblower: input.whistleblower ?? undefined });
      inBrowser = {
        details: Buffer.from(fromBase64(parts.envelopes.details)),
        whistleblower: parts.envelopes.whistleblower ? Buffer.from(fromBase64(parts.envelopes.whistleblower)) : null,
        epoch: 1,
        wraps: parts.wraps.map((w) => ({ recipientKeyId: w.recipientKeyId, kind: w.kind, wrap: Buffer.from(fromBase64(w.wrap)) })),
      };
      sealed = { details_enc: inBrowser.details, whistleblower_enc: inBrowser.whistleblower, language_enc: null };
      // The address given for notifications, apart from the identity and sealed to the mail key, as the browser seals it.
      const who = input.whistleblower;
      if (who?.notification && who.email && account) {
        const n = await sealNotifyAddress(await ctx.mailKeys.publicKey(), caseId, who.email, input.language ?? undefined);
        inBrowser.notify = { mailKeyId: n.keyId, box: Buffer.from(fromBase64(n.box)) };
      }
    }
    let claimed: StagedFile[] = [];
    try {
      await ctx.db.transaction().execute(async (trx) => {
        if (reserved) {
          // Single use: the reservation goes with the case it names, or stays if the case fails.
          const r = await takeReservation(trx, input.company.id, reserved.reservation, now);
          caseNumber = r.case_number;
          secret = { salt: Buffer.from(r.salt), kdf: reserved.kdf, passwordHash: verifierHash! };
        }
        claimed = input.uploads ? await input.uploads.claim(trx) : [];
        const files = key ? [...sentFiles, ...fileRows(ctx, caseId, key, null, claimed, now, sentFiles.length)] : sealedFileRows(caseId, null, claimed, now);
        // The browser chose a sealed case's id: one an upload session holds is not free either.
        if (inBrowser && (await trx.selectFrom('upload_session').select('id').where('case_id', '=', caseId).executeTakeFirst())) {
          throw new HttpError(409, 'CASE_ID_TAKEN', 'This case id is in use; choose another.', 'caseId');
        }
        // One statement (one round trip on the embedded database's single connection)
        // inserts the case, its first status event, its follow account and its files,
        // and reads the master key's check value under the shared lock that
        // assertCurrentMasterKey takes. The check is tested after the statement, in the
        // transaction: a rotated key throws and the inserts roll back. The events and
        // files refer to the case inserted beside them: PostgreSQL checks foreign keys
        // at the end of the statement, when the case row is there.
        let q = trx
          .with('checked', (db) => db.selectFrom('meta').select('value').where('key', '=', CHECK_ROW).forShare())
          .with('new_case', (db) =>
            db
              .insertInto('report_case')
              .values({
                id: caseId,
                company_id: input.company.id,
                case_number: caseNumber,
                submission_type: input.submissionType,
                creation_channel: input.creationChannel,
                status,
                created_at: now,
                approved_at: null,
                protection_officer_id: officer.id,
                subsidiary_id: subsidiary?.id ?? null,
                wrapped_key: inBrowser ? null : input.wrappedKey,
                sealed: !!inBrowser,
                entry_channel: input.entered?.channel ?? null,
                ...sealed,
                report_enc: null,
                report_updated_at: null,
              })
              .returning('id'),
          )
          .with('new_event', (db) => db.insertInto('case_status_event').values({ case_id: caseId, status, at: input.entered?.receivedAt ?? now }).returning('case_id'));
        const acc = secret as AccountSecret | null;
        if (acc) q = q.with('new_account', (db) => db.insertInto('case_account').values({ case_id: caseId, password_hash: acc.passwordHash, salt: acc.salt, kdf: kdfText(acc.kdf), created_at: now }).returning('case_id')) as unknown as typeof q;
        if (inBrowser) {
          const { epoch } = inBrowser;
          const wraps = inBrowser.wraps.map((w) => ({ case_id: caseId, epoch, recipient_key_id: w.recipientKeyId, kind: w.kind, wrap: w.wrap, created_at: now }));
          q = q.with('new_wraps', (db) => db.insertInto('case_key_wrap').values(wraps).returning('case_id')) as unknown as typeof q;
        }
        if (files.length) q = q.with('new_files', (db) => db.insertInto('case_file').values(files).returning('id')) as unknown as typeof q;
        const inserted = await q
          .selectFrom('new_case')
          .leftJoin('checked', (join) => join.onTrue())
          .select(['new_case.id', 'checked.value'])
          .executeTakeFirstOrThrow();
        assertCheckValue(ctx.crypto, inserted.value ?? undefined);
        if (inBrowser?.notify) await trx.insertInto('case_notify').values({ case_id: caseId, mail_key_id: inBrowser.notify.mailKeyId, box: inBrowser.notify.box, created_at: now }).execute();
        if (inBrowser?.categories) await trx.insertInto('case_categories').values({ case_id: caseId, stats_key_id: inBrowser.categories.statsKeyId, box: inBrowser.categories.box, created_at: now }).execute();
        await onCaseEvent(ctx, trx, caseId, 'created');
      });
      await commitFiles(ctx, input.files ?? []);
      if (input.uploads) await input.uploads.commit(claimed);
      return { caseNumber, status, created: now.toISOString(), submission: { type: input.submissionType } };
    } catch (err) {
      // A clash of 16 random digits (about 1 in 9·10^15 per existing case): draw again.
      if (inBrowser && isUniqueViolation(err) && String((err as { constraint?: string }).constraint ?? (err as Error).message).includes('report_case_pkey')) {
        throw new HttpError(409, 'CASE_ID_TAKEN', 'This case id is in use; choose another.', 'caseId');
      }
      if (!reserved && isUniqueViolation(err) && String((err as { constraint?: string }).constraint ?? (err as Error).message).includes('case_number') && attempt < 5) continue;
      throw err;
    }
  }
}

/** What a case sealed on arrival seals as its details: the fields the reporter's browser seals (the officer is in clear ids beside it). */
function plainDetails(d: CaseDetails) {
  return { description: d.description, violation: d.violation, repeatedViolations: d.repeatedViolations, whistleblowerRelation: d.whistleblowerRelation, reportedPersons: d.reportedPersons, reportedUnit: d.reportedUnit };
}

/** The case_file rows of staged files, their names sealed; `first` numbers them on after files already listed. */
export function fileRows(ctx: AppContext, caseId: string, key: Buffer, messageId: string | null, files: readonly StagedFile[], now: Date, first = 0) {
  return files.map((f, i) => ({
    id: f.id,
    position: first + i,
    case_id: caseId,
    message_id: messageId,
    name_enc: ctx.crypto.seal(key, caseId, COLUMNS.fileName, f.name, f.id),
    size: f.size,
    mime_type: f.mimeType,
    metadata_remaining: f.metadataRemaining ? JSON.stringify(f.metadataRemaining) : null,
    storage_key: f.id,
    created_at: now,
  }));
}

/** The case_file rows of a sealed case's files: the name and bytes as the browser sealed them, the size the sealed size. */
export function sealedFileRows(caseId: string, messageId: string | null, files: readonly StagedFile[], now: Date, first = 0) {
  return files.map((f, i) => {
    if (!f.nameEnc) throw new Error('a sealed case takes only files sealed in the browser');
    return { id: f.id, position: first + i, case_id: caseId, message_id: messageId, name_enc: f.nameEnc, size: f.size, mime_type: f.mimeType, metadata_remaining: null, storage_key: f.id, created_at: now };
  });
}

async function insertFiles(ctx: AppContext, trx: Transaction<DB> | Kysely<DB>, caseId: string, key: Buffer, messageId: string | null, files: readonly StagedFile[], now: Date) {
  if (!files.length) return;
  await trx.insertInto('case_file').values(fileRows(ctx, caseId, key, messageId, files, now)).execute();
}

export async function commitFiles(ctx: AppContext, files: readonly StagedFile[]) {
  for (const f of files) await ctx.files.commit(f.id);
}

// ---- reading -----------------------------------------------------------------

export interface FileView {
  id: string;
  name: string;
  size: number;
  mimeType: string;
  created: string;
  /** Metadata kinds the server still found in this image or PDF ([] none); null: not checked, or could not be (docs/decisions/metadata-removal.md). */
  metadataRemaining: string[] | null;
  /** `checked`; `notChecked` (a type or size the server does not check); `couldNotCheck` (the check hit a limit: open with care). */
  metadataCheck: MetadataCheckState;
}

export interface MessageView {
  id: string;
  message: string;
  time: string;
  type: MessageType;
  createdByUserId: string;
  answerWanted: boolean;
  files: FileView[];
}

export interface StatusEvent {
  status: CaseStatus;
  dateTime: string;
}

export interface CaseView {
  caseNumber: string;
  status: CaseStatus;
  description: string | null;
  violation: Violation | null;
  repeatedViolations: boolean | null;
  created: string;
  receivedDate: string | null;
  submission: { type: SubmissionType };
  creationChannel: CreationChannel;
  /** How a report a handler entered came (docs/decisions/handler-entered-reports.md); null: the reporter sent it. */
  entryChannel: EntryChannel | null;
  approvedAt: string | null;
  pendingWhistleblowerAction: boolean;
  protectionOfficer: OfficerSnapshot;
  whistleblowerRelation: string;
  reportedPersons: ReportedPerson[];
  reportedUnit: string | null;
  subsidiary: { id: string; name: string } | null;
  caseAccount: { follow: boolean };
  files: FileView[];
  messages: MessageView[];
  /** The status history without PENDING_WHISTLEBLOWER_CONTACT (spec §4: not a step). */
  events: StatusEvent[];
  caseStatusHistory: StatusEvent[];
  whistleblower: Whistleblower | null;
  /** The latest version's text and time, its number and hash, and every version (docs/decisions/record-versions.md). */
  report: { text: string; updatedAt: string; version: number; sha256: string; versions: RecordVersionView[] } | null;
  comments: { comment: string; created: string }[];
  /** The transcripts of the case's voice files (server/cases/transcript.ts), one per file that has one. */
  transcripts: TranscriptView[];
  /** When the retention period ends and the case will be deleted (server/retention/policy.ts); null while it is handled. */
  scheduledDeletion: string | null;
}

export type CaseRow = Selectable<ReportCaseTable>;

export async function caseKey(ctx: AppContext, row: { id: string; wrapped_key: Uint8Array | null }): Promise<Buffer> {
  return ctx.caseKeys.unwrap(row.id, row.wrapped_key);
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** What a case view is built from besides the case row. */
interface CaseParts {
  events: { status: string; at: Date | string }[];
  messages: { id: string; type: string; created_by: string; created_at: Date | string; answer_wanted: boolean; body_enc: Uint8Array }[];
  files: { id: string; message_id: string | null; name_enc: Uint8Array; size: number | string | bigint; mime_type: string; created_at: Date | string; metadata_remaining: string | null }[];
  comments: { id: string; body_enc: Uint8Array; created_at: Date | string }[];
  hasAccount: boolean;
}

/** Milliseconds since the epoch, cut as the pg driver cuts microseconds, so JSON-built rows equal column-read ones. */
const ms = (column: string) => sql.raw(`floor(extract(epoch from ${column}) * 1000)::float8`);

/**
 * The case as read back (spec §3), decrypted, in one statement (one round trip on
 * PostgreSQL and PGlite): the row and its events, messages, files and comments as
 * JSON arrays; null when there is no such case.
 */
export async function loadCaseView(ctx: AppContext, caseId: string): Promise<CaseView | null> {
  const { rows } = await sql<CaseRow & { events: Json[]; messages: Json[]; files: Json[]; comments: Json[]; has_account: boolean }>`
    select rc.*,
      coalesce((select json_agg(json_build_object('status', e.status, 'at', ${ms('e.at')}) order by e.id)
        from case_status_event e where e.case_id = rc.id), '[]') as events,
      coalesce((select json_agg(json_build_object('id', m.id, 'type', m.type, 'created_by', m.created_by, 'created_at', ${ms('m.created_at')},
          'answer_wanted', m.answer_wanted, 'body_enc', encode(m.body_enc, 'base64')) order by m.created_at, m.id)
        from case_message m where m.case_id = rc.id), '[]') as messages,
      coalesce((select json_agg(json_build_object('id', f.id, 'message_id', f.message_id, 'name_enc', encode(f.name_enc, 'base64'), 'size', f.size,
          'mime_type', f.mime_type, 'metadata_remaining', f.metadata_remaining, 'created_at', ${ms('f.created_at')}) order by f.created_at, f.position)
        -- A note's files are the handlers' only (internal-notes.md "Files"): never in the case as the reporter reads it.
        from case_file f where f.case_id = rc.id and f.note_id is null), '[]') as files,
      coalesce((select json_agg(json_build_object('id', c.id, 'body_enc', encode(c.body_enc, 'base64'), 'created_at', ${ms('c.created_at')}) order by c.created_at)
        from case_comment c where c.case_id = rc.id and c.file_id is null), '[]') as comments,
      exists(select 1 from case_account a where a.case_id = rc.id) as has_account
    from report_case rc where rc.id = ${caseId}`.execute(ctx.db);
  const r = rows[0];
  if (!r) return null;
  const { events, messages, files, comments, has_account, ...row } = r;
  const b64 = (v: unknown) => Buffer.from(String(v), 'base64');
  const date = (v: unknown) => new Date(Number(v));
  return assembleCaseView(ctx, row as CaseRow, {
    events: events.map((e) => ({ status: String(e.status), at: date(e.at) })),
    messages: messages.map((m) => ({ id: String(m.id), type: String(m.type), created_by: String(m.created_by), created_at: date(m.created_at), answer_wanted: m.answer_wanted === true, body_enc: b64(m.body_enc) })),
    files: files.map((f) => ({ id: String(f.id), message_id: f.message_id == null ? null : String(f.message_id), name_enc: b64(f.name_enc), size: Number(f.size), mime_type: String(f.mime_type), created_at: date(f.created_at), metadata_remaining: f.metadata_remaining == null ? null : String(f.metadata_remaining) })),
    comments: comments.map((c) => ({ id: String(c.id), body_enc: b64(c.body_enc), created_at: date(c.created_at) })),
    hasAccount: has_account,
  });
}
type Json = Record<string, unknown>;

export async function buildCaseView(ctx: AppContext, row: CaseRow): Promise<CaseView> {
  return (await loadCaseView(ctx, row.id)) ?? assembleCaseView(ctx, row, { events: [], messages: [], files: [], comments: [], hasAccount: false });
}

async function assembleCaseView(ctx: AppContext, row: CaseRow, { events, messages, files, comments, hasAccount }: CaseParts): Promise<CaseView> {
  const key = await caseKey(ctx, row);
  const id = row.id;
  // The company's settings come from the process's parsed cache, not from another read of its document.
  const company = await companyById(ctx.db, row.company_id);
  const details = ctx.crypto.openJson<CaseDetails>(key, id, COLUMNS.details, row.details_enc);
  const [versions, transcripts] = await Promise.all([loadVersions(ctx, row, key), transcriptViews(ctx, row, key)]);
  const latest = versions.at(-1);
  const fileViews = files.map((f) => ({
    messageId: f.message_id,
    view: { id: f.id, name: ctx.crypto.open(key, id, COLUMNS.fileName, f.name_enc, f.id).toString('utf8'), size: Number(f.size), mimeType: f.mime_type, created: iso(f.created_at), ...metadataView(f.metadata_remaining) } satisfies FileView,
  }));
  const history = events.map((e) => ({ status: e.status as CaseStatus, dateTime: iso(e.at) }));
  const received = history.find((e) => e.status === 'RECEIVED');
  const closedAt = history.filter((e) => e.status === 'CLOSED').at(-1)?.dateTime;
  const deletion = scheduledDeletion(
    { status: row.status, submissionType: row.submission_type, createdAt: new Date(row.created_at), closedAt: closedAt ? new Date(closedAt) : null },
    retentionOf(company?.settings),
  );
  return {
    caseNumber: row.case_number,
    status: row.status as CaseStatus,
    description: details.description,
    violation: details.violation,
    repeatedViolations: details.repeatedViolations,
    created: iso(row.created_at),
    receivedDate: received?.dateTime ?? null,
    submission: { type: row.submission_type as SubmissionType },
    creationChannel: row.creation_channel as CreationChannel,
    entryChannel: (row.entry_channel ?? null) as EntryChannel | null,
    approvedAt: row.approved_at ? iso(row.approved_at) : null,
    pendingWhistleblowerAction: row.pending_whistleblower_action,
    protectionOfficer: details.protectionOfficer,
    whistleblowerRelation: details.whistleblowerRelation,
    reportedPersons: details.reportedPersons,
    reportedUnit: details.reportedUnit,
    subsidiary: details.subsidiary,
    caseAccount: { follow: hasAccount },
    files: fileViews.map((f) => f.view),
    messages: messages.map((m) => ({
      id: m.id,
      message: ctx.crypto.open(key, id, COLUMNS.messageBody, m.body_enc, m.id).toString('utf8'),
      time: iso(m.created_at),
      type: m.type as MessageType,
      createdByUserId: m.created_by,
      answerWanted: m.answer_wanted,
      files: fileViews.filter((f) => f.messageId === m.id).map((f) => f.view),
    })),
    events: history.filter((e) => e.status !== 'PENDING_WHISTLEBLOWER_CONTACT'),
    caseStatusHistory: history,
    whistleblower: row.whistleblower_enc ? ctx.crypto.openJson<Whistleblower>(key, id, COLUMNS.whistleblower, row.whistleblower_enc) : null,
    report: latest
      ? { text: latest.text, updatedAt: iso(row.report_updated_at ?? latest.createdAt), version: latest.version, sha256: latest.sha256, versions }
      : null,
    comments: comments.map((c) => ({ comment: ctx.crypto.open(key, id, COLUMNS.comment, c.body_enc, c.id).toString('utf8'), created: iso(c.created_at) })),
    transcripts,
    scheduledDeletion: deletion ? deletion.at.toISOString() : null,
  };
}

// ---- changing ------------------------------------------------------------------

/**
 * Appends a status event and sets the case's status. Closing a sealed case deletes its
 * notification address (`case_notify`) in the same transaction, after the news of the
 * close is queued: that one mail carries the box until it is sent, and nothing after.
 */
export async function setStatus(ctx: AppContext, caseId: string, status: CaseStatus): Promise<void> {
  const at = new Date();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('report_case').set({ status }).where('id', '=', caseId).execute();
    await trx.insertInto('case_status_event').values({ case_id: caseId, status, at }).execute();
    await onCaseEvent(ctx, trx, caseId, 'reporterNews');
    if (status === 'CLOSED') await trx.deleteFrom('case_notify').where('case_id', '=', caseId).execute();
  });
}

/**
 * Records the handler's text of an oral report as a new version of the record
 * (server/cases/record.ts). Recording it means the reporter has made contact, so a
 * case still PENDING_WHISTLEBLOWER_CONTACT moves to RECEIVED in the same transaction
 * (docs/decisions/oral-report-record.md, record-versions.md).
 */
export async function recordReport(ctx: AppContext, row: CaseRow, text: string, writer: RecordWriter): Promise<void> {
  await recordVersion(ctx, row, text, writer);
}

export interface NewMessage {
  type: MessageType;
  /** The case number for the reporter, the handler account id for a handler. */
  createdBy: string;
  text: string;
  /** Handler asks for an answer: sets pendingWhistleblowerAction. */
  answerWanted?: boolean;
  /** The reporter's own message clears pendingWhistleblowerAction. */
  fromReporter?: boolean;
  files: StagedFile[];
  /**
   * The reporter's resumable uploads the message takes (a session bound to this case):
   * `claim` runs in the message's transaction and refuses the message when an upload
   * is not complete; `commit` makes them final files after the commit.
   */
  uploads?: { claim(trx: Transaction<DB>): Promise<StagedFile[]>; commit(files: readonly StagedFile[]): Promise<void> };
}

/**
 * Adds a message with its files (already staged under the case's key) in one
 * transaction, then makes the files final. The caller discards the staged files
 * if this throws.
 */
export async function addMessage(ctx: AppContext, row: { id: string; wrapped_key: Uint8Array | null }, msg: NewMessage): Promise<MessageView> {
  const key = await caseKey(ctx, row);
  const id = randomUUID();
  const now = new Date();
  let claimed: StagedFile[] = [];
  await ctx.db.transaction().execute(async (trx) => {
    claimed = msg.uploads ? await msg.uploads.claim(trx) : [];
    await trx
      .insertInto('case_message')
      .values({ id, case_id: row.id, type: msg.type, created_by: msg.createdBy, created_at: now, body_enc: ctx.crypto.seal(key, row.id, COLUMNS.messageBody, msg.text, id), answer_wanted: !!msg.answerWanted })
      .execute();
    await insertFiles(ctx, trx, row.id, key, id, [...msg.files, ...claimed], now);
    if (msg.answerWanted) await trx.updateTable('report_case').set({ pending_whistleblower_action: true }).where('id', '=', row.id).execute();
    if (msg.fromReporter) await trx.updateTable('report_case').set({ pending_whistleblower_action: false }).where('id', '=', row.id).execute();
    await onCaseEvent(ctx, trx, row.id, msg.fromReporter ? 'reporterMessage' : 'reporterNews');
  });
  await commitFiles(ctx, msg.files);
  if (msg.uploads) await msg.uploads.commit(claimed);
  const files = [...msg.files, ...claimed];
  return {
    id,
    message: msg.text,
    time: now.toISOString(),
    type: msg.type,
    createdByUserId: msg.createdBy,
    answerWanted: !!msg.answerWanted,
    files: files.map((f) => ({ id: f.id, name: f.name, size: f.size, mimeType: f.mimeType, created: now.toISOString(), ...metadataView(storedMetadata(f.metadataRemaining)) })),
  };
}

/** A case file's name and a stream of its decrypted bytes. */
export async function openCaseFile(ctx: AppContext, row: { id: string; wrapped_key: Uint8Array | null }, fileId: string, opts: { notes?: boolean } = {}) {
  let q = ctx.db.selectFrom('case_file').selectAll().where('case_id', '=', row.id).where('id', '=', fileId);
  if (!opts.notes) q = q.where('note_id', 'is', null);
  const f = await q.executeTakeFirst();
  if (!f) return null;
  const key = await caseKey(ctx, row);
  const name = ctx.crypto.open(key, row.id, COLUMNS.fileName, f.name_enc, f.id).toString('utf8');
  const stream = pipeline(ctx.files.get(f.storage_key), ctx.crypto.decryptFile(key, f.id), (err) => {
    if (err && (err as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') ctx.log.error({ err, fileId: f.id }, 'could not read a case file');
  });
  return { name, size: Number(f.size), mimeType: f.mime_type, stream };
}
