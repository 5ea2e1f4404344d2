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
  wrapped_key: Bytes;
  details_enc: Bytes;
  whistleblower_enc: Bytes | null;
  report_enc: Bytes | null;
  report_updated_at: Timestamp | null;
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
}

export interface CaseCommentTable {
  id: string;
  case_id: string;
  body_enc: Bytes;
  created_at: Timestamp;
}

export interface CaseAccountTable {
  case_id: string;
  password_hash: string;
  created_at: Timestamp;
  last_login_at: Timestamp | null;
  must_change_password: Generated<boolean>;
  /** Moved on by sign-out and password change: access tokens of an older generation answer 401. */
  token_generation: Generated<number>;
}

export interface HandlerAccountTable {
  id: string;
  company_id: string;
  name: string;
  /** SHA-256 of the token, hex; the token itself is shown once and never stored. */
  token_hash: string;
  created_at: Timestamp;
}

// ---- identity (server/idp, migration 0100) ----------------------------------

export interface OidcPayloadTable {
  id: string;
  type: string;
  payload: Json<Record<string, unknown>>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
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

export interface DB {
  meta: MetaTable;
  company: CompanyTable;
  company_host: CompanyHostTable;
  company_asset: CompanyAssetTable;
  report_case: ReportCaseTable;
  case_status_event: CaseStatusEventTable;
  case_message: CaseMessageTable;
  case_file: CaseFileTable;
  case_comment: CaseCommentTable;
  case_record_version: CaseRecordVersionTable;
  case_account: CaseAccountTable;
  handler_account: HandlerAccountTable;
  oidc_payload: OidcPayloadTable;
  idp_secret: IdpSecretTable;
  idp_key: IdpKeyTable;
  signin_throttle: SigninThrottleTable;
  idp_password_change: IdpPasswordChangeTable;
}

export type { Generated };
