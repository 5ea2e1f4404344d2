/**
 * npm run db -- copy-to-postgres
 *
 * Moves the embedded database (PGlite in DATA_DIR/db) into an empty PostgreSQL
 * database named by TARGET_DATABASE_URL (an environment variable, so its password
 * never shows in the process list). The target gets the portal's migrations, then
 * every row and every file of FILES_DIR as chunk rows (server/db/copy.ts). The data
 * folder keeps the shred keys (KEYS_DIR, never in the database) and, unless
 * MASTER_KEY is set, the master key: start the portal afterwards with DATABASE_URL
 * set and the same DATA_DIR. The PGlite folder and FILES_DIR are left as they were.
 *
 * npm run db -- files-to-postgres
 *
 * A portal already on PostgreSQL (DATABASE_URL) with its files on disk: writes every
 * file of FILES_DIR the rows name into chunk rows, in one transaction, so it can run
 * with FILE_STORE=postgres (docs/decisions/file-store.md).
 */
import path from 'node:path';
import { openDatabase } from '../db/database.ts';
import { CopyRefused, copyDatabase, importFiles } from '../db/copy.ts';
import { DiskFileStore } from '../files/store.ts';
import type { Database } from '../db/database.ts';
import { loadMasterKey } from '../crypto/master-key.ts';
import { cliConfig, fail, parseCli, runningServer, usageError } from './common.ts';

const USAGE = `usage:
  TARGET_DATABASE_URL=postgres://… npm run db -- copy-to-postgres
      copy the embedded database of DATA_DIR into that empty PostgreSQL database
      (stop the server first)
  DATABASE_URL=postgres://… npm run db -- files-to-postgres
      write the files of FILES_DIR into that database's chunk rows, for FILE_STORE=postgres
      (stop every server first)`;

const SYNOPSIS = 'TARGET_DATABASE_URL=postgres://… npm run db -- copy-to-postgres | DATABASE_URL=postgres://… npm run db -- files-to-postgres';

const { values, positionals } = parseCli({ options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true }, SYNOPSIS);
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}
if (!positionals[0]) usageError('missing command', SYNOPSIS);
if (positionals[0] !== 'copy-to-postgres' && positionals[0] !== 'files-to-postgres') usageError(`unknown command "${positionals[0]}"`, SYNOPSIS);
if (positionals.length > 1) usageError(`unexpected argument "${positionals[1]}"`, SYNOPSIS);

const config = cliConfig();
const disk = new DiskFileStore(config.filesDir ?? path.join(config.dataDir, 'files'));

if (positionals[0] === 'files-to-postgres') {
  if (!config.databaseUrl) fail('DATABASE_URL is not set: files-to-postgres writes into the PostgreSQL database the portal runs on');
  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const moved = await opened.db.transaction().execute((trx) => importFiles(trx as unknown as Database, disk));
    process.stdout.write(`wrote ${moved.objects} files (${moved.bytes} bytes) into chunk rows.\nStart the portal with FILE_STORE=postgres (the default with DATABASE_URL); FILES_DIR is then read for nothing but its keys folder.\n`);
  } catch (err) {
    await opened.close();
    fail(err instanceof CopyRefused ? err.message : `the move failed and was rolled back: ${(err as Error).message}`);
  }
  await opened.close();
  process.exit(0);
}

const target = process.env.TARGET_DATABASE_URL?.trim();
if (!target) fail('give the PostgreSQL database to copy into in TARGET_DATABASE_URL');
if (!/^postgres(ql)?:\/\//.test(target)) fail('TARGET_DATABASE_URL must be a postgres:// URL');
if (config.databaseUrl) fail('DATABASE_URL is set: the source is the embedded database of DATA_DIR; unset DATABASE_URL for the copy');
const running = runningServer(config);
if (running) fail(`a server (pid ${running.pid}) is running on ${config.dataDir}: stop it first, so nothing changes during the copy`);

const source = await openDatabase({ dataDir: config.dataDir });
let dest: Awaited<ReturnType<typeof openDatabase>> | undefined;
try {
  // The copy is only of use if the key that opens it is at hand.
  await loadMasterKey({ fromEnv: config.masterKey, dataDir: config.dataDir, keyFile: config.masterKeyFile, db: source.db });
  dest = await openDatabase({ dataDir: config.dataDir, databaseUrl: target });
  const report = await copyDatabase(source.db, dest.db, { files: disk });
  const total = report.tables.reduce((n, t) => n + t.rows, 0);
  process.stdout.write(report.tables.map((t) => `  ${t.name.padEnd(22)} ${t.rows}`).join('\n') + '\n');
  process.stdout.write(`copied ${total} rows in ${report.tables.length} tables and ${report.files.objects} files (${report.files.bytes} bytes) into chunk rows.\nStart the portal with DATABASE_URL set to the target and the same DATA_DIR${config.masterKey ? ' and MASTER_KEY' : ''}.\n`);
} catch (err) {
  await dest?.close();
  await source.close();
  fail(err instanceof CopyRefused ? err.message : `the copy failed and was rolled back: ${(err as Error).message}`);
}
await dest?.close();
await source.close();
