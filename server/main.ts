import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configFromEnv } from './config.ts';
import { buildApp } from './app.ts';
import { MasterKeyMismatch } from './crypto/master-key.ts';
import { privateUmask } from './security/private-files.ts';

// Before anything is created in DATA_DIR (PGlite's files, keys, uploads): private to this user.
privateUmask();
const config = configFromEnv();
const { app } = await buildApp(config).catch((err: unknown) => {
  if (!(err instanceof MasterKeyMismatch)) throw err;
  // An operator's mistake, not a crash: say what to do, without a stack trace.
  console.error(`portal: ${err.message}`);
  process.exit(1);
});

// The CLIs find the running server here (server/cli/common.ts), and know not to
// open an embedded database that this process holds.
const serverFile = path.join(config.dataDir, 'server.json');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    rmSync(serverFile, { force: true });
    void app.close().then(() => process.exit(0));
  });
}

await app.listen({ port: config.port, host: config.host });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : config.port;
writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port }) + '\n', { mode: 0o600 });
// The address operators open first; `localhost` serves the first demo company.
console.log(`Whistleblower portal running on http://localhost:${port}`);
