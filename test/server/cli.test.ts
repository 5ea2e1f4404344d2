/** The operator CLIs, run as real child processes against a real server. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany, companyFixture } from './fixtures/company.ts';
import { call, caseDto, form, oralDto, PDF } from './api.ts';
import { openDatabase } from '../../server/db/database.ts';
import { hashToken } from '../../server/handlers/accounts.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function run(script: 'handler' | 'company', args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, `server/cli/${script}.ts`), ...args],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: server.dataDir, DATABASE_URL: server.config.databaseUrl ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let server: TestServer;
let tmp: string;
let token: string;
let onlineCase: string;
let phoneCase: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-cli-'));
  const officer = (await addCompany(server.ctx.db, { hosts: ['acme.test'] })).officerIds[0]!;
  onlineCase = (await call(server, 'POST', '/api/public/case/new/by-form', { host: 'acme.test', body: form('caseDto', caseDto(officer), [{ name: 'evidence.pdf', bytes: PDF }, { name: 'notes.txt', bytes: 'line one\n' }]) })).data.caseDto.caseNumber;
  phoneCase = (await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'acme.test', json: oralDto(officer) })).data.caseDto.caseNumber;
});
afterAll(async () => {
  await server?.cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('npm run handler', () => {
  it('create-account prints a token that works (through the running server)', async () => {
    const r = await run('handler', ['create-account', '--company', 'acme.test', '--name', 'Cli Handler', '--url', server.url]);
    expect(r.stderr).toContain('created for company "acme"');
    expect(r.code).toBe(0);
    token = r.stdout.trim();
    expect(token).toMatch(/^wbh_/);
    expect((await call(server, 'GET', '/api/handler/cases', { token })).status).toBe(200);
  });

  it('create-account with --email and --officer also prints a one-time enrolment link and ties the officer', async () => {
    const officers = (await server.ctx.db.selectFrom('company').select('settings').where('id', '=', 'acme').executeTakeFirstOrThrow()).settings as { protectionOfficers: { id: string }[] };
    const officer = officers.protectionOfficers[0]!.id;
    const r = await run('handler', ['create-account', '--company', 'acme.test', '--name', 'Hanne', '--email', ' Hanne@Example.org ', '--officer', officer, '--url', server.url]);
    expect(r.code).toBe(0);
    const [apiToken, link] = r.stdout.trim().split('\n');
    expect(apiToken).toMatch(/^wbh_/);
    const port = new URL(server.url).port;
    expect(link).toMatch(new RegExp(`^http://acme\\.test:${port}/handler/enrol#[\\w-]{43}$`));
    expect(r.stderr).toContain('hanne@example.org');
    const row = await server.ctx.db.selectFrom('handler_account').innerJoin('handler_token', 'handler_token.handler_id', 'handler_account.id').selectAll('handler_account').select('handler_token.made_by').where('handler_token.token_hash', '=', hashToken(apiToken!)).executeTakeFirstOrThrow();
    // The operator's token for automation, marked as such, and expiring (docs/decisions/administration.md).
    expect(row.made_by).toBe('operator');
    expect(row.email).toBe('hanne@example.org');
    expect(row.enrolment_code_hash).toBe(hashToken(link!.split('#')[1]!));
    expect(new Date(row.enrolment_expires_at!).getTime() - Date.now()).toBeGreaterThan(71.9 * 3600_000);
    const ties = await server.ctx.db.selectFrom('handler_officer').select('officer_id').where('handler_id', '=', row.id).execute();
    expect(ties.map((t) => t.officer_id)).toEqual([officer]);

    const again = await run('handler', ['create-account', '--company', 'acme.test', '--email', 'hanne@example.org', '--url', server.url]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('EMAIL_TAKEN');
    const unknown = await run('handler', ['create-account', '--company', 'acme.test', '--email', 'other@example.org', '--officer', 'no-such-officer', '--url', server.url]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('UNKNOWN_OFFICER');
  });

  it('list and show a case, saving its files decrypted', async () => {
    const list = await run('handler', ['list', '--url', server.url, '--token', token]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(onlineCase);
    expect(list.stdout).toContain(phoneCase);
    const dir = path.join(tmp, 'saved');
    const show = await run('handler', ['show', onlineCase.replace(/(\d{4})(?=\d)/g, '$1 '), '--save', dir, '--url', server.url], { HANDLER_TOKEN: token });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('Someone took money from the till.');
    expect(show.stdout).toContain('RECEIVED');
    expect(readFileSync(path.join(dir, 'evidence.pdf')).equals(PDF)).toBe(true);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('line one\n');
  });

  it('sets a status, records a report and sends a message with a file', async () => {
    expect((await run('handler', ['status', onlineCase, 'being_investigated', '--url', server.url, '--token', token])).stdout).toContain('BEING_INVESTIGATED');
    const rep = await run('handler', ['report', phoneCase, 'Caller', 'described', 'the', 'fraud.', '--url', server.url, '--token', token]);
    expect(rep.stdout).toContain('status RECEIVED');
    const attachment = path.join(tmp, 'answer.txt');
    writeFileSync(attachment, 'see attached\n');
    const msg = await run('handler', ['message', onlineCase, 'Please', 'confirm.', '--type', 'feedback', '--answer-wanted', '--file', attachment, '--url', server.url, '--token', token]);
    expect(msg.code).toBe(0);
    expect(msg.stdout).toContain('sent FEEDBACK message');
    const view = (await call(server, 'GET', `/api/handler/cases/${onlineCase}`, { token })).data;
    expect(view.status).toBe('BEING_INVESTIGATED');
    expect(view.pendingWhistleblowerAction).toBe(true);
    expect(view.messages[0]).toMatchObject({ message: 'Please confirm.', type: 'FEEDBACK', files: [{ name: 'answer.txt' }] });
    const phone = (await call(server, 'GET', `/api/handler/cases/${phoneCase}`, { token })).data;
    expect(phone.report.text).toBe('Caller described the fraud.');
  });

  it('prints the API error and exits 1 on bad input', async () => {
    const bad = await run('handler', ['status', onlineCase, 'FINISHED', '--url', server.url, '--token', token]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 VALIDATION: .*status/);
    // A missing token is a missing argument: a usage error (exit 2), test/server/cli-usage.test.ts.
    const noToken = await run('handler', ['list', '--url', server.url], { HANDLER_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('a handler token is needed');
  });
});

describe('npm run company', () => {
  it('imports a company file through the running server', async () => {
    const dir = path.join(tmp, 'newco');
    mkdirSync(dir);
    const f = companyFixture({ id: 'newco', hosts: ['newco.test'] });
    for (const [p, a] of Object.entries(f.assets)) writeFileSync(path.join(dir, p), a.bytes);
    writeFileSync(path.join(dir, 'company.json'), JSON.stringify(f.file, null, 2));
    const r = await run('company', ['import', path.join(dir, 'company.json'), '--url', server.url]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('created company "newco"');
    expect((await call(server, 'GET', '/api/public/case/company-info', { host: 'newco.test' })).status).toBe(200);
  });

  it('warns, naming the text and the word, when a company text uses a synonym the glossary forbids, and still imports (issue 42)', async () => {
    const dir = path.join(tmp, 'wordco');
    mkdirSync(dir);
    const f = companyFixture({ id: 'wordco', hosts: ['wordco.test'], languages: ['da', 'en'] });
    f.file.lookAndFeel.en!.siteFrontPage.paragraph = 'Send a complaint to the whistleblowing officer.';
    for (const [p, a] of Object.entries(f.assets)) writeFileSync(path.join(dir, p), a.bytes);
    const file = path.join(dir, 'company.json');
    writeFileSync(file, JSON.stringify(f.file, null, 2));
    const checked = await run('company', ['validate', file]);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain('valid company "wordco"');
    const warnings = checked.stderr.trim().split('\n');
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: .*company\.json: field lookAndFeel\.en\.siteFrontPage\.paragraph: uses "whistleblowing officer"/),
      expect.stringMatching(/^warning: .*company\.json: field lookAndFeel\.en\.siteFrontPage\.paragraph: uses "complaint"/),
    ]);
    const imported = await run('company', ['import', file, '--url', server.url]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('created company "wordco"');
    expect(imported.stderr).toContain('uses "complaint"');
  });

  it('names the field of a bad file and exits 1', async () => {
    const dir = path.join(tmp, 'badco');
    mkdirSync(dir);
    const f = companyFixture({ id: 'badco', hosts: ['badco.test'] });
    for (const [p, a] of Object.entries(f.assets)) writeFileSync(path.join(dir, p), a.bytes);
    const file = path.join(dir, 'company.json');
    writeFileSync(file, JSON.stringify({ ...f.file, protectionOfficers: [{ ...f.file.protectionOfficers[0], phone: '12' }] }));
    const r = await run('company', ['import', file, '--url', server.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('field protectionOfficers.0.phone');
    writeFileSync(file, '{ not json');
    const r2 = await run('company', ['validate', file]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('cannot read');
  });
});

describe('with no server running', () => {
  it('create-account opens the database directly', async () => {
    await server.stop();
    const r = await run('handler', ['create-account', '--company', 'acme', '--url', server.url]);
    expect(r.stderr).toContain('created for company "acme"');
    expect(r.code).toBe(0);
    const t = r.stdout.trim();
    const db = await openDatabase({ dataDir: server.dataDir, databaseUrl: server.config.databaseUrl });
    try {
      const row = await db.db.selectFrom('handler_account').innerJoin('handler_token', 'handler_token.handler_id', 'handler_account.id').select(['handler_account.company_id']).where('handler_token.token_hash', '=', hashToken(t)).executeTakeFirst();
      expect(row?.company_id).toBe('acme');
    } finally {
      await db.close();
    }
  });
});
