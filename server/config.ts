import path from 'node:path';
import { PROJECT_ROOT } from './paths.ts';

/** Everything the operator can set, read once from the environment (docs/operations.md). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  masterKey?: string;
  /** Where the master key file is (made on first start when missing); DATA_DIR/master.key when not set. Keep it off the data volume (docs/operations.md). */
  masterKeyFile?: string;
  /** Base64 of 32 bytes; otherwise generated into DATA_DIR/pepper. */
  passwordPepper?: string;
  /** Where encrypted files live with FILE_STORE=disk; DATA_DIR/files when not set. */
  filesDir?: string;
  /**
   * Where sealed file bytes live (docs/decisions/file-store.md): `disk` (FILES_DIR) or
   * `postgres` (chunk rows in the database). FILE_STORE; `postgres` when DATABASE_URL
   * is set, `disk` otherwise.
   */
  fileStore: 'disk' | 'postgres';
  /**
   * The cases' shred keys (server/crypto/case-keys.ts): never in the database, under
   * any store. KEYS_DIR; FILES_DIR/keys when not set. Several machines share it.
   */
  keysDir?: string;
  /** Largest accepted upload per file, in bytes (2 GB, spec §9). */
  maxFileBytes: number;
  /** Byte quotas on uploads, tus and multipart alike (docs/operations.md "Upload quotas"). */
  uploadQuota: UploadQuota;
  distDir: string;
  /** Public base URL of the portal when behind a proxy; otherwise derived per request. */
  publicUrl?: string;
  /**
   * A host with no company where the operator signs in to the workspace (/handler) to
   * set companies up (OPERATOR_HOST); the operator can sign in on any company's host too.
   */
  operatorHost?: string;
  /** How long a handler's API token works (HANDLER_TOKEN_TTL_DAYS, default 90 days). */
  handlerTokenTtlMs: number;
  seedDemo: boolean;
  logLevel: string;
  /** `smtp://user:pass@host:587` or `smtps://…:465`; without it no mail is sent (docs/operations.md "Mail"). */
  smtpUrl?: string;
  /** The sender of every mail, e.g. `Whistleblower portal <no-reply@example.com>`. */
  mailFrom: string;
  /** How long news for a reporter (and a reporter's messages for a handler) is gathered into one mail. */
  mailBatchMs: number;
  /** Set false to run no background job (mail, reminders, retention) in this process. */
  jobs: boolean;
  /** How long running requests and uploads may take after SIGTERM before they are cut (ms). */
  shutdownGraceMs: number;
  /** Anonymous submissions (every state-changing public call) per client and window (docs/decisions/submission-abuse.md). */
  /** Look-ups of a case's salt and derivation before sign-in (issue 37), per client. */
  signinKdfRateLimit: RateBudget;
  submitRateLimit: RateBudget;
  /** Upload sessions (for a message's files) a signed-in reporter may open per case and window. */
  caseUploadSessionRateLimit: RateBudget;
  /**
   * A signed-in reporter's messages, comments on the record, approvals and identity or
   * password changes per case and window (docs/decisions/submission-abuse.md).
   */
  caseWriteRateLimit: RateBudget;
  /** Every state-changing private call (/api/private/) per client and window, counted before the token check. */
  reporterClientRateLimit: RateBudget;
  /** Proof-of-work challenges handed out per client and window. */
  challengeRateLimit: RateBudget;
  /** Calls to the handlers' enrolment-link endpoints per client and window (docs/decisions/submission-abuse.md). */
  enrolRateLimit: RateBudget;
  /** Leading zero bits the proof-of-work needs; 0 turns the proof off. */
  powDifficulty: number;
  /** How long a challenge may be solved and spent, in seconds. */
  powTtlSeconds: number;
  /**
   * The proxies whose X-Forwarded-For / -Proto / -Host are believed (addresses or
   * CIDRs); empty: none, the socket's own address is the client.
   */
  trustProxy: string[];
  /** The child process that re-checks received files for hidden data (docs/decisions/metadata-removal.md). */
  metadataCheck: MetadataCheckLimits;
  /**
   * Sealed cases (issue 37, docs/decisions/sealed-cases.md "Sealed cases"): `browser`
   * lets a company with a key anchor and a certified handler key for the chosen officer
   * take cases sealed in the reporter's browser (the server never knows their data
   * key), seals its plain cases on arrival, runs the `key-wraps` migration job
   * (server/keys/migrate-wraps.ts), and serves the mail key the notification address is
   * sealed to (server/mail/mail-key.ts); the default. A company without an anchor stays
   * on the server-keyed path until its first handler makes the recovery key. `off`:
   * every case on the server-keyed path, whatever keys a company has.
   */
  sealedCases: 'off' | 'browser';
  /** `GET /metrics` on a port of its own (docs/operations.md "Metrics"); off unless METRICS_PORT is set. */
  metrics?: MetricsSettings;
}

export interface MetricsSettings {
  /** The metrics listener's port; undefined: no metrics at all. 0: any free port (tests). */
  port?: number;
  /** Its interface: 127.0.0.1 unless METRICS_HOST names another (a private one the scraper reaches). */
  host: string;
  /** Base64 of 32 bytes (METRICS_TOKEN); otherwise generated into DATA_DIR/metrics.token. */
  token?: string;
}

export interface MetadataCheckLimits {
  /** Wall time one file's check may take before its child is killed. */
  timeoutMs: number;
  /** Resident memory the child may reach before it is killed. */
  memoryBytes: number;
  /** Bytes the child may answer. */
  maxOutputBytes: number;
  /** Checks running at once. */
  concurrency: number;
  /** Checks waiting; past it a file is stored not checked. */
  queue: number;
}

export interface UploadQuota {
  /** Declared (tus) and received (multipart) bytes of one upload session or one multipart submission. */
  sessionBytes: number;
  /** Bytes one client (a keyed hash of its address) may upload in 24 hours. */
  clientDailyBytes: number;
  /** Bytes of files one case may hold: its report's, its messages' and its uploads in progress. */
  caseBytes: number;
  /** Free space on the file store below which uploads are refused (507). */
  diskReserveBytes: number;
}

export interface RateBudget {
  max: number;
  windowSeconds: number;
}

function int(value: string | undefined, fallback: number, name: string, min = 0): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number of at least ${min} (got "${value}")`);
  return n;
}

/** On unless told otherwise (docs/decisions/sealed-cases.md "On by default"): `off` keeps a portal server-keyed. */
function sealedCasesSetting(value: string | undefined): ServerConfig['sealedCases'] {
  if (value === undefined || value === '' || value === 'browser') return 'browser';
  if (value === 'off') return 'off';
  throw new Error(`SEALED_CASES must be "off" or "browser" (got "${value}")`);
}

function fileStoreFrom(env: NodeJS.ProcessEnv): ServerConfig['fileStore'] {
  const v = env.FILE_STORE?.trim();
  if (!v) return env.DATABASE_URL ? 'postgres' : 'disk';
  if (v !== 'disk' && v !== 'postgres') throw new Error(`FILE_STORE must be "disk" or "postgres" (got "${v}")`);
  return v;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const root = PROJECT_ROOT;
  return {
    port: Number(env.PORT ?? 9000),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? path.join(root, 'data')),
    databaseUrl: env.DATABASE_URL || undefined,
    masterKey: env.MASTER_KEY || undefined,
    masterKeyFile: env.MASTER_KEY_FILE ? path.resolve(env.MASTER_KEY_FILE) : undefined,
    passwordPepper: env.PASSWORD_PEPPER || undefined,
    filesDir: env.FILES_DIR ? path.resolve(env.FILES_DIR) : undefined,
    fileStore: fileStoreFrom(env),
    keysDir: env.KEYS_DIR ? path.resolve(env.KEYS_DIR) : undefined,
    maxFileBytes: Number(env.MAX_FILE_BYTES ?? 2 * 1024 ** 3),
    uploadQuota: {
      sessionBytes: int(env.UPLOAD_SESSION_MAX_BYTES, 10 * 1024 ** 3, 'UPLOAD_SESSION_MAX_BYTES', 1),
      clientDailyBytes: int(env.UPLOAD_CLIENT_DAILY_BYTES, 20 * 1024 ** 3, 'UPLOAD_CLIENT_DAILY_BYTES', 1),
      caseBytes: int(env.UPLOAD_CASE_MAX_BYTES, 20 * 1024 ** 3, 'UPLOAD_CASE_MAX_BYTES', 1),
      diskReserveBytes: int(env.UPLOAD_DISK_RESERVE_BYTES, 1024 ** 3, 'UPLOAD_DISK_RESERVE_BYTES'),
    },
    distDir: path.resolve(env.DIST_DIR ?? path.join(root, 'dist')),
    publicUrl: env.PUBLIC_URL || undefined,
    operatorHost: env.OPERATOR_HOST?.trim().toLowerCase() || undefined,
    handlerTokenTtlMs: int(env.HANDLER_TOKEN_TTL_DAYS, 90, 'HANDLER_TOKEN_TTL_DAYS', 1) * 24 * 3600_000,
    seedDemo: env.SEED_DEMO !== 'false',
    logLevel: env.LOG_LEVEL ?? 'info',
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Whistleblower portal <no-reply@localhost>',
    mailBatchMs: Number(env.MAIL_BATCH_SECONDS ?? 300) * 1000,
    jobs: env.BACKGROUND_JOBS !== 'false',
    shutdownGraceMs: Number(env.SHUTDOWN_GRACE_MS ?? 30_000),
    submitRateLimit: {
      max: int(env.SUBMIT_RATE_LIMIT_MAX, 10, 'SUBMIT_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.SUBMIT_RATE_LIMIT_WINDOW_SECONDS, 3600, 'SUBMIT_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    signinKdfRateLimit: {
      max: int(env.SIGNIN_KDF_RATE_LIMIT_MAX, 60, 'SIGNIN_KDF_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.SIGNIN_KDF_RATE_LIMIT_WINDOW_SECONDS, 600, 'SIGNIN_KDF_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    caseUploadSessionRateLimit: {
      max: int(env.CASE_UPLOAD_SESSION_RATE_LIMIT_MAX, 30, 'CASE_UPLOAD_SESSION_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.CASE_UPLOAD_SESSION_RATE_LIMIT_WINDOW_SECONDS, 3600, 'CASE_UPLOAD_SESSION_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    caseWriteRateLimit: {
      max: int(env.CASE_WRITE_RATE_LIMIT_MAX, 30, 'CASE_WRITE_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.CASE_WRITE_RATE_LIMIT_WINDOW_SECONDS, 600, 'CASE_WRITE_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    reporterClientRateLimit: {
      max: int(env.REPORTER_RATE_LIMIT_MAX, 60, 'REPORTER_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.REPORTER_RATE_LIMIT_WINDOW_SECONDS, 600, 'REPORTER_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    challengeRateLimit: {
      max: int(env.CHALLENGE_RATE_LIMIT_MAX, 120, 'CHALLENGE_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.SUBMIT_RATE_LIMIT_WINDOW_SECONDS, 3600, 'SUBMIT_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    enrolRateLimit: {
      max: int(env.ENROL_RATE_LIMIT_MAX, 30, 'ENROL_RATE_LIMIT_MAX', 1),
      windowSeconds: int(env.ENROL_RATE_LIMIT_WINDOW_SECONDS, 900, 'ENROL_RATE_LIMIT_WINDOW_SECONDS', 1),
    },
    powDifficulty: int(env.POW_DIFFICULTY, 18, 'POW_DIFFICULTY'),
    powTtlSeconds: int(env.POW_TTL_SECONDS, 7200, 'POW_TTL_SECONDS', 60),
    sealedCases: sealedCasesSetting(env.SEALED_CASES),
    trustProxy: (env.TRUST_PROXY ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    metrics: {
      port: env.METRICS_PORT ? int(env.METRICS_PORT, 0, 'METRICS_PORT', 1) : undefined,
      host: env.METRICS_HOST || '127.0.0.1',
      token: env.METRICS_TOKEN || undefined,
    },
    metadataCheck: {
      timeoutMs: int(env.METADATA_CHECK_TIMEOUT_MS, 10_000, 'METADATA_CHECK_TIMEOUT_MS', 100),
      memoryBytes: int(env.METADATA_CHECK_MEMORY_MB, 256, 'METADATA_CHECK_MEMORY_MB', 64) * 1024 * 1024,
      maxOutputBytes: 4096,
      concurrency: int(env.METADATA_CHECK_CONCURRENCY, 2, 'METADATA_CHECK_CONCURRENCY', 1),
      queue: int(env.METADATA_CHECK_QUEUE, 8, 'METADATA_CHECK_QUEUE'),
    },
  };
}
