/**
 * `npm run identity -- rotate-signing-key`: a new signing key signs from now on;
 * the old one stays published until the tokens it signed have expired, so nobody
 * is signed out (docs/identity.md "Storage and keys"). While the server runs, it
 * is asked over its loopback admin route (PGlite allows one process per folder);
 * otherwise the database is opened directly.
 */
import { CaseCrypto } from '../crypto/case-crypto.ts';
import { loadMasterKey } from '../crypto/master-key.ts';
import { openDatabase } from '../db/database.ts';
import { adminToken, cliConfig, fail, failFromResponse, parseCli, runningServer, serverUrl, usageError } from '../cli/common.ts';
import type { AppContext } from '../context.ts';
import { IdpKeys } from './keys.ts';

const SYNOPSIS = 'npm run identity -- rotate-signing-key [--url http://localhost:9000]';

async function main(argv: string[]) {
  const { values, positionals } = parseCli(
    { args: argv, options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true },
    SYNOPSIS,
  );
  if (values.help) {
    process.stdout.write(`usage: ${SYNOPSIS}\n`);
    return;
  }
  const [command, ...extra] = positionals;
  if (!command) usageError('missing command', SYNOPSIS);
  if (command !== 'rotate-signing-key') usageError(`unknown command "${command}"`, SYNOPSIS);
  if (extra.length) usageError(`unexpected argument "${extra[0]}"`, SYNOPSIS);
  const given = values.url;
  const config = cliConfig();
  if (given || runningServer(config) || config.databaseUrl) {
    const token = adminToken(config);
    if (!token) fail(`no admin token in ${config.dataDir}/admin.token: is DATA_DIR the server's?`);
    try {
      const res = await fetch(`${serverUrl(config, given)}/api/admin/identity/rotate-signing-key`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 201) await failFromResponse(res);
      const { kid } = (await res.json()) as { kid: string };
      process.stdout.write(`new signing key ${kid}; the previous one stays published for 24 hours\n`);
      return;
    } catch (err) {
      if (!config.databaseUrl) throw err;
      // PostgreSQL and no server listening: open the database below.
    }
  }
  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const masterKey = await loadMasterKey({ fromEnv: config.masterKey, dataDir: config.dataDir, keyFile: config.masterKeyFile, db: opened.db });
    const keys = new IdpKeys({ db: opened.db, crypto: new CaseCrypto(masterKey) } as AppContext);
    await keys.load();
    const kid = await keys.rotateSigningKey();
    process.stdout.write(`new signing key ${kid}; running servers pick it up within a minute\n`);
  } finally {
    await opened.close();
  }
}

main(process.argv.slice(2)).catch((err: Error) => fail(err.message));
