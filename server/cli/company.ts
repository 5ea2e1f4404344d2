/**
 * npm run company -- import FILE [--url URL]
 * npm run company -- validate FILE
 *
 * Imports (creates or replaces, by id) a company from its JSON file and the images
 * it names (server/companies/format.ts). A bad file gets an error that names the
 * field; a text using a synonym the glossary forbids gets a warning on stderr
 * (docs/i18n-glossary.md), and the file still goes in. With a server running on
 * this data folder the import goes through it (loopback admin API); otherwise the
 * database is opened directly.
 */
import { openDatabase } from '../db/database.ts';
import { CompanyFileError, importCompany, readCompanyBundle, type CompanyBundle } from '../companies/service.ts';
import { adminToken, cliConfig, fail, failFromResponse, isConnectionRefused, parseCli, runningServer, serverUrl, usageError } from './common.ts';

const USAGE = `usage:
  npm run company -- import FILE [--url URL]   create or replace the company described by FILE
  npm run company -- validate FILE             check FILE without importing it`;

const SYNOPSIS = 'npm run company -- import FILE [--url URL] | validate FILE';

const { values, positionals } = parseCli({ options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true }, SYNOPSIS);
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}
const [command, file, ...extra] = positionals;
if (!command) usageError('missing command', SYNOPSIS);
if (!['import', 'validate'].includes(command)) usageError(`unknown command "${command}"`, SYNOPSIS);
if (!file) usageError(`${command} needs FILE`, SYNOPSIS);
if (extra.length) usageError(`unexpected argument "${extra[0]}"`, SYNOPSIS);

let bundle: CompanyBundle;
try {
  bundle = readCompanyBundle(file);
} catch (err) {
  if (err instanceof CompanyFileError) fail(`${file}: field ${err.field}: ${err.message.slice(err.field.length + 2)}`);
  throw err;
}

// Warnings, not errors: the file is valid, and the operator is told which text says what.
for (const w of bundle.warnings ?? []) process.stderr.write(`warning: ${file}: field ${w.field}: ${w.message}\n`);

if (command === 'validate') {
  process.stdout.write(`${file}: valid company "${bundle.company.id}" (${bundle.company.hosts.join(', ')})\n`);
  process.exit(0);
}

const config = cliConfig();
const url = serverUrl(config, values.url);
const token = adminToken(config);

async function viaServer(): Promise<boolean> {
  if (!token) return false;
  const assets = Object.fromEntries(Object.entries(bundle.assets).map(([p, a]) => [p, { contentType: a.contentType, base64: a.bytes.toString('base64') }]));
  let res: Response;
  try {
    res = await fetch(`${url}/api/admin/companies`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ file: JSON.parse(JSON.stringify(bundle.company)), assets }),
    });
  } catch (err) {
    if (isConnectionRefused(err) && !runningServer(config)) return false;
    throw err;
  }
  if (!res.ok) await failFromResponse(res);
  const body = (await res.json()) as { id: string; created: boolean };
  process.stdout.write(`${body.created ? 'created' : 'updated'} company "${body.id}" via ${url}\n`);
  return true;
}

if (!(await viaServer())) {
  const db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  try {
    const result = await importCompany(db.db, bundle);
    process.stdout.write(`${result.created ? 'created' : 'updated'} company "${result.id}" in ${config.databaseUrl ? 'the PostgreSQL database' : config.dataDir}\n`);
  } catch (err) {
    if (err instanceof CompanyFileError) fail(`${file}: field ${err.field}: ${err.message.slice(err.field.length + 2)}`);
    throw err;
  } finally {
    await db.close();
  }
}
