/**
 * npm run db -- copy-to-postgres
 *
 * Moves the embedded database (PGlite in DATA_DIR/db) into an empty PostgreSQL
 * database named by TARGET_DATABASE_URL (an environment variable, so its password
 * never shows in the process list). The target gets the portal's migrations, then
 * every row (server/db/copy.ts). The data folder keeps the files and, unless
 * MASTER_KEY is set, the master key: start the portal afterwards with DATABASE_URL
 * set and the same DATA_DIR. The PGlite folder is left as it was.
 */
import { openDatabase } from '../db/database.ts';
import { CopyRefused, copyDatabase } from '../db/copy.ts';
import { loadMasterKey } from '../crypto/master-key.ts';
import { cliConfig, fail, parseCli, runningServer, usageError } from './common.ts';

const USAGE = `usage:
  TARGET_DATABASE_URL=postgres://… npm run db -- copy-to-postgres
      copy the embedded database of DATA_DIR into that empty PostgreSQL database
      (stop the server first)`;

const SYNOPSIS = 'TARGET_DATABASE_URL=postgres://… npm run db -- copy-to-postgres';

const { values, positionals } = parseCli({ options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true }, SYNOPSIS);
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}
if (!positionals[0]) usageError('missing command', SYNOPSIS);
if (positionals[0] !== 'copy-to-postgres') usageError(`unknown command "${positionals[0]}"`, SYNOPSIS);
if (positionals.length > 1) usageError(`unexpected argument "${positionals[1]}"`, SYNOPSIS);

const config = cliConfig();
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
  const report = await copyDatabase(source.db, dest.db);
  const total = report.tables.reduce((n, t) => n + t.rows, 0);
  process.stdout.write(report.tables.map((t) => `  ${t.name.padEnd(22)} ${t.rows}`).join('\n') + '\n');
  process.stdout.write(`copied ${total} rows in ${report.tables.length} tables.\nStart the portal with DATABASE_URL set to the target and the same DATA_DIR${config.masterKey ? ' and MASTER_KEY' : ''}.\n`);
} catch (err) {
  await dest?.close();
  await source.close();
  fail(err instanceof CopyRefused ? err.message : `the copy failed and was rolled back: ${(err as Error).message}`);
}
await dest?.close();
await source.close();
