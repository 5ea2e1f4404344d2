/**
 * npm run cases -- purge [--dry-run] [--json]
 *
 * Deletes the cases whose retention period has ended (server/retention/purge.ts),
 * as the server's hourly `retention` job does. --dry-run lists them and deletes
 * nothing. While the server runs (PGlite lets one process open its data folder) the
 * command asks it through the loopback admin API; otherwise it opens the database
 * itself.
 */
import path from 'node:path';
import { hkdfSync } from 'node:crypto';
import { openDatabase } from '../db/database.ts';
import { openFileStore } from '../files/store.ts';
import { CaseKeys, keysDirOf } from '../crypto/case-keys.ts';
import { loadSecret } from '../crypto/secrets.ts';
import { purge, type PurgeResult } from '../retention/purge.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import { adminToken, cliConfig, fail, failFromResponse, isConnectionRefused, parseCli, runningServer, serverUrl, usageError } from './common.ts';

const USAGE = `usage: npm run cases -- purge [--dry-run] [--json] [--url URL]

  purge        delete every case whose retention period has ended (company file "retention")
  --dry-run    list them, delete nothing`;

const SYNOPSIS = 'npm run cases -- purge [--dry-run] [--json] [--url URL] (--help for all)';

const { values, positionals } = parseCli({
  options: {
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    url: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
  allowPositionals: true,
}, SYNOPSIS);
const out = (s: string) => process.stdout.write(s + '\n');
const [command] = positionals;
if (values.help) {
  out(USAGE);
  process.exit(0);
}
if (!command) usageError('missing command', SYNOPSIS);
if (command !== 'purge') usageError(`unknown command "${command}"`, SYNOPSIS);
if (positionals.length > 1) usageError(`unexpected argument "${positionals[1]}"`, SYNOPSIS);

const config = cliConfig();
const dryRun = !!values['dry-run'];

async function viaServer(): Promise<PurgeResult | null> {
  const admin = adminToken(config);
  if (!admin) return null;
  const url = serverUrl(config, values.url);
  try {
    const res = await fetch(`${url}/api/admin/cases/purge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ dryRun }),
    });
    if (!res.ok) await failFromResponse(res);
    return (await res.json()) as PurgeResult;
  } catch (err) {
    if (!isConnectionRefused(err)) throw err;
    if (runningServer(config)) fail(`the server holding ${config.dataDir} does not answer at ${url}; pass --url`);
    return null;
  }
}

async function direct(): Promise<PurgeResult> {
  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const pepper = loadSecret({ name: 'PASSWORD_PEPPER', fromEnv: config.passwordPepper, dataDir: config.dataDir, file: 'pepper', bytes: 32 });
    const files = await openFileStore(config, opened.db);
    const log = { error: (_obj: object, msg: string) => process.stderr.write(`warning: ${msg}\n`), warn: (_obj: object, msg: string) => process.stderr.write(`warning: ${msg}\n`) };
    const caseKeys = new CaseKeys(null, keysDirOf(config));
    return await purge({ db: opened.db, files, caseKeys, log, recordKey: Buffer.from(hkdfSync('sha256', pepper, Buffer.alloc(0), 'wb:deletion-record', 32)) }, new Date(), { dryRun });
  } finally {
    await opened.close();
  }
}

const result = (await viaServer()) ?? (await direct());
if (values.json) {
  out(JSON.stringify(result, null, 2));
} else {
  const verb = dryRun ? 'due for deletion' : 'deleted';
  if (!result.cases.length) out(dryRun ? 'no case is due for deletion' : 'no case was due for deletion');
  for (const c of result.cases) out(`${formatCaseNumber(c.caseNumber)}  ${c.companyId}  ${c.submissionType.padEnd(11)} ${c.reason.padEnd(11)} due ${c.dueAt.slice(0, 10)}  ${c.files} file(s)  ${verb}`);
  if (result.cases.length) out(`${result.cases.length} case(s) ${verb}`);
}
