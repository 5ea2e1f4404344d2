/**
 * Command-line manners (issue 17 §4): every CLI answers an unknown option or a
 * missing argument with one line that says what is wrong and how it is used,
 * exit code 2, and no stack trace. Nothing here reaches a server or a database.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-cli-usage-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, script), ...args],
      // No HANDLER_TOKEN, no database: a usage mistake must be caught before either matters.
      { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', HANDLER_TOKEN: '', TARGET_DATABASE_URL: '' }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const CASES: Array<[script: string, args: string[], says: RegExp]> = [
  ['server/cli/company.ts', ['--bogus'], /unknown option --bogus/],
  ['server/cli/company.ts', [], /missing command/],
  ['server/cli/company.ts', ['import'], /import needs FILE/],
  ['server/cli/company.ts', ['export', 'x.json'], /unknown command "export"/],
  ['server/cli/handler.ts', ['list', '--colour'], /unknown option --colour/],
  ['server/cli/handler.ts', [], /missing command/],
  ['server/cli/handler.ts', ['show'], /show needs a case number/],
  ['server/cli/handler.ts', ['status', '1234567890123456'], /status needs a case number and a status/],
  ['server/cli/handler.ts', ['list', '--url'], /option --url needs a value/],
  ['server/cli/handler.ts', ['list'], /a handler token is needed/],
  ['server/cli/handler.ts', ['create-account'], /create-account needs --company/],
  ['server/cli/handler.ts', ['close', '1'], /unknown command "close"/],
  ['server/cli/keys.ts', ['--force'], /unknown option --force/],
  ['server/cli/keys.ts', [], /missing command/],
  ['server/cli/keys.ts', ['rotate-master', 'now'], /unexpected argument "now"/],
  ['server/cli/keys.ts', ['retire-master', 'now'], /unexpected argument "now"/],
  ['server/cli/keys.ts', ['retire'], /unknown command "retire"/],
  ['server/cli/db.ts', ['--to', 'x'], /unknown option --to/],
  ['server/cli/db.ts', [], /missing command/],
  ['server/cli/db.ts', ['copy'], /unknown command "copy"/],
  ['server/cli/cases.ts', ['purge', '--force'], /unknown option --force/],
  ['server/cli/cases.ts', [], /missing command/],
  ['server/cli/cases.ts', ['delete'], /unknown command "delete"/],
  ['server/cli/cases.ts', ['purge', 'now'], /unexpected argument "now"/],
  ['server/idp/cli.ts', ['rotate-signing-key', '--nope'], /unknown option --nope/],
  ['server/idp/cli.ts', [], /missing command/],
  ['server/idp/cli.ts', ['rotate'], /unknown command "rotate"/],
  ['scripts/sealed-client.ts', ['open', '--pin'], /unknown option --pin/],
  ['scripts/sealed-client.ts', [], /missing command/],
  ['scripts/sealed-client.ts', ['open'], /--url ORIGIN is needed/],
  ['scripts/sealed-client.ts', ['open', '--url', 'http://127.0.0.1:9'], /open needs --case N/],
  ['scripts/sealed-client.ts', ['report', '--url', 'http://127.0.0.1:9'], /report needs --officer ID and --description TEXT/],
  ['scripts/sealed-client.ts', ['close', '--url', 'http://127.0.0.1:9'], /unknown command "close"/],
];

describe('every CLI refuses a usage mistake in one line, with its usage, exit code 2', () => {
  it.each(CASES)('%s %j', async (script, args, says) => {
    const r = await run(script, args);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(says);
    expect(lines[0]).toMatch(/; usage: (TARGET_DATABASE_URL=\S+ )?npm run [\w-]+ -- /);
    expect(r.stderr).not.toMatch(/\n\s+at |TypeError|Error:/);
    expect(r.stdout).toBe('');
  });

  it.each(['server/cli/company.ts', 'server/cli/handler.ts', 'server/cli/keys.ts', 'server/cli/db.ts', 'server/idp/cli.ts', 'scripts/sealed-client.ts'])('%s --help prints the usage and exits 0', async (script) => {
    const r = await run(script, ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/usage/);
  });

  it('the handler CLI says a sealed case opens only in the web workspace (the server holds no key for it)', async () => {
    const r = await run('server/cli/handler.ts', ['--help']);
    expect(r.stdout).toMatch(/show CASE[^]*a sealed case \(issue 37\) opens only in the web workspace\s+at <portal>\/handler/);
  });
});
