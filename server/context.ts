import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config.ts';
import type { Database } from './db/database.ts';
import type { CaseCrypto } from './crypto/case-crypto.ts';
import type { CaseKeys } from './crypto/case-keys.ts';
import type { Passwords } from './cases/passwords.ts';
import type { FileStore } from './files/store.ts';
import type { Clock } from './clock.ts';
import type { JobRunner } from './jobs/runner.ts';
import type { Mailer } from './mail/transport.ts';
import type { MailKeys } from './mail/mail-key.ts';
import type { Metrics } from './metrics.ts';

/**
 * What every route module gets: configuration and the shared services. Each
 * service is created once in buildApp and closed with the app; none is a module
 * singleton, so tests can run several servers in one process.
 */
export interface AppContext {
  config: ServerConfig;
  db: Database;
  dbKind: 'pglite' | 'postgres';
  /** PGlite only: the raw database folder. */
  pgliteDir?: string;
  version: string;
  log: FastifyBaseLogger;
  /** Wraps case keys with the master key; seals fields and files. */
  crypto: CaseCrypto;
  /** Cases' data keys, wrapped so that deleting a case destroys every way to open it (server/crypto/case-keys.ts). */
  caseKeys: CaseKeys;
  /** Argon2id with the server's pepper: reporters' follow-account passwords. */
  passwords: Passwords;
  /** Encrypted file bytes (DATA_DIR/files by default). */
  files: FileStore;
  /** Secret for /api/admin/** (loopback only), kept in DATA_DIR/admin.token for the CLIs. */
  adminToken: string;
  /** "Now" for scheduled work (mail back-off, reminders, retention); a test may move it. */
  clock: Clock;
  /** Background jobs: the mail worker, deadline reminders, retention (server/jobs). */
  jobs: JobRunner;
  /** SMTP through nodemailer; `enabled` false without SMTP_URL, and then nothing is queued. */
  mailer: Mailer;
  /** The mail worker's key pair (server/mail/mail-key.ts): opens sealed cases' notification addresses and outbox rows, nothing else. */
  mailKeys: MailKeys;
  /** Keyed hashes that must outlive master-key rotation (deletion records): derived from the pepper. */
  recordKey: Buffer;
  /** Ends every stored sign-in of a case (the provider's sealed rows), inside the caller's transaction; set once the provider is up. */
  endSignIns?: (db: Database, caseId: string) => Promise<void>;
  /** Route handlers running now in this process (server/lifecycle.ts): the purge lets them finish between its statements. */
  requestsInFlight?: () => number;
  /** This app's Prometheus registry (server/metrics.ts); undefined unless METRICS_PORT is set. */
  metrics?: Metrics;
}
