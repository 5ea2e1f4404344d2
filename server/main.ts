// First: an unsupported Node stops here, before any dependency warns or fails.
import './runtime.ts';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFromEnv } from './config.ts';
import { buildApp } from './app.ts';
import { MasterKeyMismatch } from './crypto/master-key.ts';
import { logLine } from './logging.ts';
import { privateUmask } from './security/private-files.ts';

// Before anything is created in DATA_DIR (PGlite's files, keys, uploads): private to this user.
privateUmask();
const config = configFromEnv();
const { app, lifecycle } = await buildApp(config).catch((err: unknown) => {
  if (!(err instanceof MasterKeyMismatch)) throw err;
  // An operator's mistake, not a crash: say what to do, without a stack trace.
  logLine('fatal', `portal: ${err.message}`);
  process.exit(1);
});

// The CLIs find the running server here (server/cli/common.ts), and know not to
// open an embedded database that this process holds.
const serverFile = path.join(config.dataDir, 'server.json');

// SIGTERM (orchestrators, systemd) and SIGINT (Ctrl-C): stop accepting, let running
// requests finish within SHUTDOWN_GRACE_MS, close the database, exit. A second signal
// exits at once; a shutdown stuck beyond the grace period by more than 15 s too.
let stopping = false;
// Several processes may share DATA_DIR (PostgreSQL): remove the file only while it names this one.
const removeServerFile = () => {
  try {
    if ((JSON.parse(readFileSync(serverFile, 'utf8')) as { pid?: number }).pid === process.pid) rmSync(serverFile, { force: true });
  } catch {
    // absent or unreadable: nothing of ours to remove
  }
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    removeServerFile();
    setTimeout(() => {
      app.log.error('shutdown did not finish in time');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000).unref();
    lifecycle.shutdown(app, config.shutdownGraceMs).then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

await app.listen({ port: config.port, host: config.host });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : config.port;
writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port }) + '\n', { mode: 0o600 });
// The address operators open first (`localhost` serves the first demo company): a log
// line like the others, but written whatever LOG_LEVEL says, except `silent`.
if (config.logLevel !== 'silent') logLine('info', `Whistleblower portal running on http://localhost:${port}`, { url: `http://localhost:${port}` });
