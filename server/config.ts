import path from 'node:path';
import { PROJECT_ROOT } from './paths.ts';

/** Everything the operator can set, read once from the environment (docs/operations.md). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  masterKey?: string;
  /** Base64 of 32 bytes; otherwise generated into DATA_DIR/pepper. */
  passwordPepper?: string;
  /** Where encrypted files live; DATA_DIR/files when not set. */
  filesDir?: string;
  /** Largest accepted upload per file, in bytes (2 GB, spec §9). */
  maxFileBytes: number;
  distDir: string;
  /** Public base URL of the portal when behind a proxy; otherwise derived per request. */
  publicUrl?: string;
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
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const root = PROJECT_ROOT;
  return {
    port: Number(env.PORT ?? 9000),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? path.join(root, 'data')),
    databaseUrl: env.DATABASE_URL || undefined,
    masterKey: env.MASTER_KEY || undefined,
    passwordPepper: env.PASSWORD_PEPPER || undefined,
    filesDir: env.FILES_DIR ? path.resolve(env.FILES_DIR) : undefined,
    maxFileBytes: Number(env.MAX_FILE_BYTES ?? 2 * 1024 ** 3),
    distDir: path.resolve(env.DIST_DIR ?? path.join(root, 'dist')),
    publicUrl: env.PUBLIC_URL || undefined,
    seedDemo: env.SEED_DEMO !== 'false',
    logLevel: env.LOG_LEVEL ?? 'info',
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Whistleblower portal <no-reply@localhost>',
    mailBatchMs: Number(env.MAIL_BATCH_SECONDS ?? 300) * 1000,
    jobs: env.BACKGROUND_JOBS !== 'false',
    shutdownGraceMs: Number(env.SHUTDOWN_GRACE_MS ?? 30_000),
  };
}
