/**
 * Table types for Kysely. Columns named `*_enc` hold AES-256-GCM ciphertext
 * (server/crypto), never plain text. Each module's tables are added with its migration.
 */
import type { ColumnType, Generated } from 'kysely';

export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** bytea: node-postgres gives a Buffer, PGlite a Uint8Array; write either. */
export type Bytes = ColumnType<Uint8Array, Uint8Array, Uint8Array>;
/** jsonb: read parsed, written as a JSON string (arrays would otherwise become PostgreSQL arrays). */
export type Json<T> = ColumnType<T, string, string>;
/** bigint: node-postgres reads it as a string. */
export type BigIntColumn = ColumnType<string | number, number, number>;

/** The public half of a company's recovery key: the key log's trust anchor (migration 0160). */
export interface CompanyKeyAnchorTable {
  company_id: string;
  ecdh_spki: Uint8Array;
  ecdsa_spki: Uint8Array;
  created_at: ColumnType<Date, Date | string, never>;
}

/** One signed entry of a company's key log, as the certifier's browser sent it (canonical JSON). */
export interface KeyLogEntryTable {
  company_id: string;
  seq: number;
  entry: string;
  hash: string;
  created_at: ColumnType<Date, Date | string, never>;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface CompanyTable {
  id: string;
  name: string;
  default_language: string;
  settings: Json<unknown>;
  created_at: Generated<Timestamp>;
}

export interface CompanyHostTable {
  host: string;
  company_id: string;
}

export interface CompanyAssetTable {
  id: string;
  company_id: string;
  kind: 'logo' | 'officer-logo';
  name: string;
  content_type: string;
  bytes: Bytes;
}

/** Every image a company has had, by content hash (migration 0200, docs/decisions/company-editor.md). */
export interface CompanyImageTable {
  company_id: string;
  sha256: string;
  content_type: string;
  bytes: Bytes;
  created_at: Generated<Timestamp>;
}

/** Every saved company file, numbered per company; the newest is what `company` holds. */
export interface CompanyVersionTable {
  company_id: string;
  version: number;
  /** The company file exactly as imported or saved (no `logoFileName`). */
  file: Json<unknown>;
  /** Image path in the file → { sha256, contentType } in company_image. */
  images: Json<Record<string, { sha256: string; contentType: string }>>;
  action: 'import' | 'save' | 'revert';
  reverted_to: number | null;
  actor_name: string;
  actor_role: string;
  created_at: Timestamp;
}

/** A draft shown in the editor's preview frame, for a few minutes. */
export interface CompanyPreviewTable {
  id: string;
  company_id: string;
  file: Json<unknown>;
  images: Json<Record<string, { sha256: string; contentType: string }>>;
  expires_at: Timestamp;
}

export interface ReportCaseTable {
  id: string;
  company_id: string;
  case_number: string;
  submission_type: string;
  creation_channel: string;
  status: string;
  created_at: Timestamp;
  approved_at: Timestamp | null;
  pending_whistleblower_action: Generated<boolean>;
  protection_officer_id: string;
  subsidiary_id: string | null;
  /** The data key under the server's master and shred keys; null for a sealed case (migration 0240). */
  wrapped_key: Bytes | null;
  /** Sealed in the reporter's browser: the server never knew the data key (docs/decisions/blind-server.md). */
  sealed: Generated<boolean>;
  /** How a report a handler entered reached the company (migration 0460); null for a report the reporter sent. */
  entry_channel: Generated<string | null>;
  details_enc: Bytes;
  whistleblower_enc: Bytes | null;
  report_enc: Bytes | null;
  report_updated_at: Timestamp | null;
  /** The interface language at submission (mails to the reporter), sealed; migration 0020. */
  language_enc: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  /** The handler who runs the case; null while unassigned (migration 0370). */
  assignee_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CaseStatusEventTable {
  id: Generated<number>;
  case_id: string;
  status: string;
  at: Timestamp;
}

export interface CaseMessageTable {
  id: string;
  case_id: string;
  type: string;
  /** The case number for the reporter's own messages, else the handler account id. */
  created_by: string;
  created_at: Timestamp;
  body_enc: Bytes;
  answer_wanted: Generated<boolean>;
  /** The key epoch whose data key sealed a sealed case's message (migration 0360); 1 for every other. */
  epoch: Generated<number>;
}

export interface CaseFileTable {
  id: string;
  case_id: string;
  message_id: string | null;
  name_enc: Bytes;
  size: BigIntColumn;
  mime_type: string;
  storage_key: string;
  created_at: Timestamp;
  /** Order within its submission or message. */
  position: Generated<number>;
  /** JSON array of metadata kinds the server still found (images, PDFs); null: not checked. */
  metadata_remaining: string | null;
  /** The key epoch whose data key sealed a sealed case's file (migration 0360); 1 for every other. */
  epoch: Generated<number>;
  /** The internal note this file belongs to (migration 0540): never on a reporter's read. */
  note_id: string | null;
}

export interface CaseRecordVersionTable {
  id: string;
  case_id: string;
  version: number;
  text_enc: Bytes;
  /** Hex SHA-256 of the text's UTF-8 bytes. */
  sha256: string;
  created_at: Timestamp;
  approved_at: Timestamp | null;
  /** The handler account that saved it (migration 0440); null before authors were kept or after the account's deletion. */
  created_by: string | null;
  /** The voice file this version transcribes (migration 0550); null: the oral report's record. */
  file_id: Generated<string | null>;
}

export interface CaseCommentTable {
  id: string;
  case_id: string;
  body_enc: Bytes;
  created_at: Timestamp;
  /** The voice file whose transcript this comment is on (migration 0550); null: the oral report's record. */
  file_id: Generated<string | null>;
}

export interface CaseAccountTable {
  case_id: string;
  password_hash: string;
  created_at: Timestamp;
  last_login_at: Timestamp | null;
  must_change_password: Generated<boolean>;
  /** Moved on by sign-out and password change: access tokens of an older generation answer 401. */
  token_generation: Generated<number>;
  /** The reporter's salt and derivation (JSON); both null for a case made before verifiers (`legacy`, issue 37). */
  salt: Uint8Array | null;
  kdf: string | null;
}

/** A case number and salt handed out before the case is sealed: single use, short-lived (issue 37). */
export interface CaseReservationTable {
  token_hash: string;
  company_id: string;
  case_number: string;
  salt: Uint8Array;
  expires_at: Timestamp;
  /** A creation call passed the submission budget and proof on it (once only). */
  passed: Generated<boolean>;
}

export interface HandlerAccountTable {
  id: string;
  /** Null for an operator's account (role_operator): the portal's owner belongs to no company. */
  company_id: string | null;
  name: string;
  /** No longer read: API tokens live in handler_token (migration 0190). */
  token_hash: string | null;
  created_at: Timestamp;
  /** The web sign-in: trimmed and lower-cased; unique within the company (migration 0010). */
  email: string | null;
  /** Argon2id with the pepper (server/cases/passwords.ts); null until enrolled. */
  password_hash: string | null;
  /** The TOTP secret sealed with the master key (CaseCrypto.sealWithMaster). */
  totp_secret_enc: Bytes | null;
  /** The last TOTP time step accepted, so one code signs in once. */
  totp_last_step: BigIntColumn | null;
  /** SHA-256 of the one-time enrolment code; cleared when used. */
  enrolment_code_hash: string | null;
  enrolment_expires_at: Timestamp | null;
  enrolled_at: Timestamp | null;
  /** The handler's key salt and derivation (JSON of core/crypto Kdf), chosen by the browser at enrolment (migration 0180). */
  key_salt: Bytes | null;
  key_kdf: string | null;
  /** Public keys, SPKI; the private keys only sealed, under the password and under the key recovery code. */
  ecdh_spki: Bytes | null;
  ecdsa_spki: Bytes | null;
  keys_sealed: Bytes | null;
  keys_sealed_recovery: Bytes | null;
  /** Argon2id(verifier of the key recovery code, pepper): signs in in place of the password. */
  recovery_verifier_hash: string | null;
  /** Roles (server/security/roles.ts, docs/decisions/administration.md). */
  role_handler: Generated<boolean>;
  role_admin: Generated<boolean>;
  role_operator: Generated<boolean>;
  /** Set: no sign-in, no session, no token works. */
  disabled_at: Timestamp | null;
  last_signin_at: Timestamp | null;
  /** Failed sign-ins on this address since the last success, shown to the owner at the next one. */
  failed_signins: Generated<number>;
}

/** A handler's API token: only its SHA-256 is kept; it expires and can be revoked. */
export interface HandlerTokenTable {
  id: string;
  handler_id: string;
  token_hash: string;
  label: string;
  /** 'handler' (made in the workspace after a fresh second-factor check) or 'operator' (automation). */
  made_by: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

/** Every administration act; append-only (a trigger refuses update and delete). */
export interface AdminTrailTable {
  id: Generated<string | number>;
  company_id: string | null;
  at: Timestamp;
  actor_id: string | null;
  actor_name: string;
  actor_role: string;
  action: string;
  target_id: string | null;
  target_name: string | null;
  /** JSON object. */
  detail: Generated<string>;
}

/** A handler tied to these protection officers sees only their cases; no rows: every officer. */
export interface HandlerOfficerTable {
  handler_id: string;
  officer_id: string;
}

export interface HandlerRecoveryCodeTable {
  handler_id: string;
  /** SHA-256 of the code (high-entropy, shown once). */
  code_hash: string;
  used_at: Timestamp | null;
}

export interface HandlerSessionTable {
  /** SHA-256 of the session token kept in the handler's HttpOnly cookie. */
  token_hash: string;
  handler_id: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
}

export interface HandlerCaseSeenTable {
  handler_id: string;
  case_id: string;
  seen_at: Timestamp;
}

/** Colleagues a case is shared with beside its assignee (migration 0370). */
export interface CaseShareTable {
  case_id: string;
  handler_id: string;
  shared_by: string | null;
  created_at: Timestamp;
}

/** An internal note of the case's handlers (migration 0430): its current text sealed, its version, who wrote and who last edited. */
export interface CaseNoteTable {
  id: string;
  case_id: string;
  version: number;
  body_enc: Uint8Array;
  epoch: number | null;
  author_id: string | null;
  author_name: string;
  edited_by_id: string | null;
  edited_by_name: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A company's reply template: its name and one text per language, in clear (migration 0450). */
export interface ReplyTemplateTable {
  id: string;
  company_id: string;
  name: string;
  texts: Json<Record<string, string>>;
  position: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: string;
}

/** A sitting (a session, or an API token on one UTC day) that already logged opening the case (migration 0370). */
export interface HandlerCaseSittingTable {
  sitting: string;
  case_id: string;
  at: Timestamp;
}

/** Append-only (a trigger refuses update and delete); the entry is sealed with the case's key. */
export interface CaseAuditTable {
  id: Generated<string | number>;
  case_id: string;
  at: Timestamp;
  /** Sealed with the case's server-held key; null for a sealed case (migration 0330). */
  entry_enc: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  /** A sealed case's entry in clear (JSON of { handlerId, handlerName, action, detail }); null otherwise. */
  entry: ColumnType<unknown, string | null | undefined, string | null>;
}

// ---- mail and retention (server/mail, server/retention; migrations 0020, 0021) ----

/** A mail waiting to go; `message_enc` = { to, subject, text } sealed with the case's data key. */
export interface MailOutboxTable {
  id: string;
  case_id: string;
  coalesce_key: string;
  message_enc: Bytes;
  attempts: Generated<number>;
  due_at: Timestamp;
  created_at: Timestamp;
  /** The SMTP error class of the last attempt (never an address). */
  last_error: string | null;
}

export interface DeadlineReminderTable {
  case_id: string;
  reminder: string;
  due_at: Timestamp;
  queued_at: Timestamp;
}

/** What stays of a case deleted at the end of its retention period: no personal data. */
export interface CaseDeletionTable {
  id: Generated<number>;
  company_id: string;
  case_number_hash: string;
  submission_type: string;
  creation_channel: string;
  reason: string;
  created_on: ColumnType<Date | string, string, string>;
  closed_on: ColumnType<Date | string | null, string | null, string | null>;
  deleted_at: Timestamp;
}

// ---- identity (server/idp, migration 0100) ----------------------------------

export interface OidcPayloadTable {
  /** Keyed hash (HMAC) of the provider's id, never the id (server/idp/adapter.ts, migration 0110). */
  id: string;
  type: string;
  /** The provider's payload, sealed (AES-256-GCM) under a key the master key protects. */
  sealed: Bytes;
  /** Keyed hashes, like `id`. */
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  /** Keyed hash of the account (case id), so ending a case's sign-ins finds its rows. */
  account_key: string | null;
  expires_at: Timestamp | null;
  consumed_at: Timestamp | null;
}

export interface IdpSecretTable {
  name: string;
  wrapped: Bytes;
  created_at: Generated<Timestamp>;
}

export interface IdpKeyTable {
  kid: string;
  kind: 'signing' | 'cookie';
  secret_enc: Bytes;
  created_at: Timestamp;
  retired_at: Timestamp | null;
}

export interface SigninThrottleTable {
  key: string;
  failures: Generated<number>;
  window_started_at: Timestamp;
  last_attempt_at: Timestamp;
  locked_until: Timestamp | null;
}

export interface IdpPasswordChangeTable {
  interaction_uid: string;
  case_id: string;
  expires_at: Timestamp;
}

/** Rate-limit counters: key is `<bucket>:<keyed hash of the client address>` (migration 0070). */
export interface RateLimitTable {
  key: string;
  count: number;
  reset_at: Timestamp;
}

/** Proof-of-work challenges already spent, until they expire (migration 0070). */
export interface PowSpentTable {
  id: string;
  expires_at: Timestamp;
}

/** A sealed case's data key wrapped to one recipient for one key epoch (migration 0240). */
export interface CaseKeyWrapTable {
  case_id: string;
  epoch: number;
  /** keyId of the recipient's ECDH SPKI, or `reporter`. */
  recipient_key_id: string;
  /** `previous` / `next`: a link between two epochs' keys (migration 0360, core/crypto/epochs.ts), recipient `previous` / `reporter-next`. */
  kind: 'reporter' | 'handler' | 'recovery' | 'previous' | 'next';
  wrap: Bytes;
  created_at: Timestamp;
}

/** A key revoked from a sealed case (migration 0360): its holder is refused the case's key routes from then on. */
export interface CaseKeyRevocationTable {
  case_id: string;
  recipient_key_id: string;
  handler_id: string;
  epoch: number;
  created_at: Timestamp;
}

/** The reporter's notification address of a sealed case, sealed to the mail key (migration 0290). */
export interface CaseNotifyTable {
  case_id: string;
  mail_key_id: string;
  box: Bytes;
  created_at: Timestamp;
}

/** A company's statistics public key as a handler's browser signed it (migration 0380); one per rotation, the highest `seq` sealed to (0510). */
export interface CompanyStatisticsKeyTable {
  company_id: string;
  spki: Bytes;
  key_id: string;
  certifier_key_id: string;
  signature: string;
  created_at: Timestamp;
  seq: Generated<number>;
  /** The key id this one replaced; null on the company's first. */
  replaces: string | null;
}

/** One statistics private key sealed to one handler's ECDH key (migration 0380; one per statistics key since 0510). */
export interface StatisticsKeyWrapTable {
  company_id: string;
  stats_key_id: string;
  recipient_key_id: string;
  box: Bytes;
  created_at: Timestamp;
}

/** A case's categories for statistics, sealed to the statistics key (migration 0380). */
export interface CaseCategoriesTable {
  case_id: string;
  stats_key_id: string;
  box: Bytes;
  created_at: Timestamp;
}

export interface DB {
  meta: MetaTable;
  company: CompanyTable;
  company_host: CompanyHostTable;
  company_asset: CompanyAssetTable;
  company_image: CompanyImageTable;
  company_version: CompanyVersionTable;
  company_preview: CompanyPreviewTable;
  report_case: ReportCaseTable;
  case_status_event: CaseStatusEventTable;
  case_message: CaseMessageTable;
  case_file: CaseFileTable;
  case_comment: CaseCommentTable;
  case_record_version: CaseRecordVersionTable;
  case_account: CaseAccountTable;
  case_key_wrap: CaseKeyWrapTable;
  case_key_revocation: CaseKeyRevocationTable;
  case_notify: CaseNotifyTable;
  case_categories: CaseCategoriesTable;
  company_statistics_key: CompanyStatisticsKeyTable;
  statistics_key_wrap: StatisticsKeyWrapTable;
  case_reservation: CaseReservationTable;
  handler_account: HandlerAccountTable;
  handler_token: HandlerTokenTable;
  admin_trail: AdminTrailTable;
  handler_officer: HandlerOfficerTable;
  handler_recovery_code: HandlerRecoveryCodeTable;
  handler_session: HandlerSessionTable;
  handler_case_seen: HandlerCaseSeenTable;
  case_audit: CaseAuditTable;
  case_share: CaseShareTable;
  case_note: CaseNoteTable;
  reply_template: ReplyTemplateTable;
  handler_case_sitting: HandlerCaseSittingTable;
  mail_outbox: MailOutboxTable;
  deadline_reminder: DeadlineReminderTable;
  case_deletion: CaseDeletionTable;
  oidc_payload: OidcPayloadTable;
  idp_secret: IdpSecretTable;
  idp_key: IdpKeyTable;
  signin_throttle: SigninThrottleTable;
  idp_password_change: IdpPasswordChangeTable;
  server_process: ServerProcessTable;
  rate_limit: RateLimitTable;
  pow_spent: PowSpentTable;
  upload_session: UploadSessionTable;
  file_upload: FileUploadTable;
  upload_quota: UploadQuotaTable;
  company_key_anchor: CompanyKeyAnchorTable;
  key_log_entry: KeyLogEntryTable;
  file_object: FileObjectTable;
  file_chunk: FileChunkTable;
}

export type { Generated };

/** A running server process (server/presence.ts); stale rows mean a process that died. */
export interface ServerProcessTable {
  id: string;
  hostname: string;
  pid: number;
  started_at: Generated<Timestamp>;
  seen_at: Generated<Timestamp>;
}

/** What one solved proof-of-work buys for resumable uploads (migration 0130). */
export interface UploadSessionTable {
  id: string;
  /** SHA-256 of the session secret; the secret itself is only the client's. */
  secret_hash: Bytes;
  /** The id the case will have; its data key, wrapped as report_case.wrapped_key. */
  case_id: string;
  /** Null: a sealed case's session (migration 0280): the browser seals its files, the server has no key. */
  wrapped_key: Bytes | null;
  created_at: Timestamp;
  /** When the session was made; no longer moved by activity (the sweep goes by `created_at`, migration 0150). */
  touched_at: Timestamp;
  /** When a case (or, bound, a message) took its uploads; a session does that once. */
  used_at: Timestamp | null;
  /** A signed-in reporter's session: the case its uploads may join as a message's files (migration 0135); null for a case still to come. */
  bound_case_id: string | null;
  /** The company whose host made the session; used at no other (migration 0150). Null: made before, refused. */
  company_id: string | null;
}

/** Bytes a client (keyed hash of its address) uploaded in the window ending `reset_at` (migration 0150). */
export interface UploadQuotaTable {
  key: string;
  bytes: BigIntColumn;
  reset_at: Timestamp;
}

/** One file received with tus (docs/decisions/resumable-uploads.md). */
export interface FileUploadTable {
  id: string;
  session_id: string;
  name_enc: Bytes;
  length: BigIntColumn;
  offset: BigIntColumn;
  /** The received bytes after the last sealed 64 KiB chunk, sealed; null when none. */
  tail_enc: Bytes | null;
  /** `WBF1 ‖ salt ‖ nonce prefix`, also the file's first bytes. */
  file_header: Bytes;
  /** Set once complete and checked. */
  mime_type: string | null;
  metadata_remaining: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An object of the database file store (FILE_STORE=postgres, migration 0220). */
export interface FileObjectTable {
  key: string;
  state: 'temp' | 'upload' | 'final';
  /** Set when the object became final. */
  size: BigIntColumn | null;
  updated_at: Timestamp;
}

/** Up to 1 MiB of a stored object's sealed bytes, starting at byte `pos`. */
export interface FileChunkTable {
  key: string;
  pos: BigIntColumn;
  data: Bytes;
}
