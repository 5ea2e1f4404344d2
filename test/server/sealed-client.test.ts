/**
 * The scripted client of docs/api.md (scripts/lib/sealed-client.ts, scripts/sealed-client.ts)
 * against a real server with SEALED_CASES=browser, a key anchor and a certified handler
 * key: it reserves, derives once, verifies the log, seals and sends a case, signs in by
 * verifier through the embedded provider, opens the case and a handler's message with the
 * reporter key, and sends a sealed message the handler opens. The CLI runs it as a child
 * process; `npm run handler -- show` refuses the sealed case and still shows a
 * server-keyed one (docs/decisions/sealed-migration.md "Scripted clients; the CLI").
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import {
  fieldContext, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openCaseKey, openFieldText, sealMessage, signKeyLogEntry, toBase64, SEALED_COLUMNS,
  type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';
import { openFileName, openSealedFile } from '../../core/crypto/index.ts';
import { deriveForCase, openMyCase, sendSealedCase, sendSealedMessage, SealedClientError, type Derived } from '../../scripts/lib/sealed-client.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// The script's origin is the company's portal: here the test server's own address is the company's host.
const HOST = '127.0.0.1';
const MARKER = 'MARKER-scripted-5c1e';
const PASSWORD = 'a scripted sealed password';
let server: TestServer;
let officers: string[];
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };
let everyCase: { token: string };

function run(script: string, args: string[], env: Record<string, string> = {}, stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], { cwd: ROOT, env: { ...process.env, CASE_PASSWORD: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    child.stdin!.end(stdin ?? '');
  });
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officers = (await addCompany(server.ctx.db, { id: 'scripted', hosts: [HOST], officers: 2 })).officerIds;
  const recovery = await makeHandlerKeys();
  const anchor = await call(server, 'PUT', '/api/admin/companies/scripted/key-anchor', { headers: { authorization: `Bearer ${server.ctx.adminToken}` }, json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } });
  expect(anchor.status).toBe(201);
  hanne = await createHandlerAccount(server.ctx.db, 'scripted', 'Hanne', { officers: [officers[0]!] });
  everyCase = await createHandlerAccount(server.ctx.db, 'scripted', 'Olga', {});
  hanneKeys = await makeHandlerKeys();
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: hanne.id, ecdhSpki: toBase64(hanneKeys.ecdhSpki), ecdsaSpki: toBase64(hanneKeys.ecdsaSpki), officerIds: [officers[0]!],
    addedAt: new Date().toISOString(), action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: hanne.token, json: entry })).status).toBe(201);
  // The public halves enrolment stores (server/handlers/keys.ts).
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(hanneKeys.ecdhSpki), ecdsa_spki: Buffer.from(hanneKeys.ecdsaSpki) }).where('id', '=', hanne.id).execute();
});
afterAll(async () => server?.cleanup());

const hanneOpens = async (caseNumber: string) => {
  const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}/sealed`, { token: hanne.token });
  expect(view.status, JSON.stringify(view.data)).toBe(200);
  const dataKey = await openCaseKey(view.data, { ecdh: hanneKeys.ecdh, keyId: await keyId(hanneKeys.ecdhSpki) });
  return { view: view.data, dataKey };
};

let sent: { caseNumber: string; caseId: string; derived: Derived | null };

describe('the scripted client of sealed cases', () => {
  it('seals and sends a followed case with one derivation; the entitled handler opens it', async () => {
    sent = await sendSealedCase(server.url, {
      officerId: officers[0]!,
      details: { description: `Invoices were forged ${MARKER}`, violation: null, repeatedViolations: false, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: null },
      whistleblower: { name: `Wanda ${MARKER}` },
      password: PASSWORD,
    });
    expect(sent.caseNumber).toMatch(/^\d{16}$/);
    // Node runs WebAssembly: the script chose Argon2id, as the portal's page does.
    expect(sent.derived!.kdf.name).toBe('argon2id-v1');
    const row = await server.ctx.db.selectFrom('report_case').select(['sealed', 'wrapped_key', 'details_enc']).where('id', '=', sent.caseId).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(true);
    expect(row.wrapped_key).toBeNull();
    expect(Buffer.from(row.details_enc!).toString('latin1')).not.toContain(MARKER);
    const { view, dataKey } = await hanneOpens(sent.caseNumber);
    expect(await openFieldText(dataKey, fieldContext(sent.caseId, SEALED_COLUMNS.details), fromBase64(view.envelopes.details))).toContain(MARKER);
  });

  it('sends files sealed by tus and a notification address sealed to the mail key; the handler opens the files, the mail key the address', async () => {
    const files = [
      { name: `Bilag ${MARKER}.csv`, type: 'text/csv', bytes: new TextEncoder().encode(`a;b\n${'1;2\n'.repeat(30_000)}${MARKER}-bytes\n`) },
      { name: `Noter ${MARKER}.txt`, type: 'text/plain', bytes: new TextEncoder().encode(`notes ${MARKER}-bytes\n`) },
    ];
    const address = 'scripted.notify.5c1e@example.org';
    const withFiles = await sendSealedCase(server.url, {
      officerId: officers[0]!,
      details: { description: `With files ${MARKER}`, violation: null, repeatedViolations: false, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: null },
      whistleblower: { name: `Wanda ${MARKER}`, notification: true },
      password: PASSWORD,
      files,
      notifyAddress: address,
      language: 'de',
    });
    const { view, dataKey } = await hanneOpens(withFiles.caseNumber);
    expect(view.files).toHaveLength(2);
    for (const [i, f] of (view.files as { id: string; name: string }[]).entries()) {
      const name = await openFileName(dataKey, withFiles.caseId, f.id, f.name);
      expect(name).toEqual({ name: files[i]!.name, size: files[i]!.bytes.length, type: files[i]!.type });
      const res = await fetch(`${server.url}/api/handler/cases/${withFiles.caseNumber}/files/${f.id}`, { headers: { authorization: `Bearer ${hanne.token}` } });
      const parts: Uint8Array[] = [];
      for await (const p of openSealedFile(dataKey, { id: f.id, ...name }, res.body!) as unknown as AsyncIterable<Uint8Array>) parts.push(p);
      expect(Buffer.concat(parts).equals(Buffer.from(files[i]!.bytes))).toBe(true);
    }
    const notify = await server.ctx.db.selectFrom('case_notify').select('box').where('case_id', '=', withFiles.caseId).executeTakeFirstOrThrow();
    expect(await server.ctx.mailKeys.openNotify(withFiles.caseId, new Uint8Array(notify.box))).toEqual({ address, language: 'de' });
    const stored = await server.ctx.db.selectFrom('case_file').select(['name_enc']).where('case_id', '=', withFiles.caseId).execute();
    for (const r of stored) expect(Buffer.from(r.name_enc).toString('latin1')).not.toContain(MARKER);
    // Notification on a case nobody follows: stopped here, nothing sent.
    await expect(sendSealedCase(server.url, { officerId: officers[0]!, details: {}, notifyAddress: address })).rejects.toThrow(/nobody follows/);
  });

  it('signs in by verifier, opens the case and the handler\'s message with the reporter key, and sends a sealed message the handler opens', async () => {
    const { dataKey: handlerDk } = await hanneOpens(sent.caseNumber);
    const question = await sealMessage(handlerDk, sent.caseId, `What was forged? ${MARKER}`);
    expect((await call(server, 'POST', `/api/handler/cases/${sent.caseNumber}/messages/sealed`, { token: hanne.token, json: { ...question, answerWanted: true } })).status).toBe(201);

    // The derivation of the send is reused: no second Argon2id in this run.
    const mine = await openMyCase(server.url, sent.derived!);
    expect(mine.opened.caseNumber).toBe(sent.caseNumber);
    expect((mine.opened.details as { description: string }).description).toContain(MARKER);
    expect(mine.opened.whistleblower).toEqual({ name: `Wanda ${MARKER}` });
    expect(mine.opened.messages).toEqual([expect.objectContaining({ id: question.id, from: 'handler', answerWanted: true, text: `What was forged? ${MARKER}` })]);

    const { id } = await sendSealedMessage(server.url, mine.tokens.access_token, { dataKey: mine.dataKey, caseId: mine.view.caseId }, `The March invoices ${MARKER}`);
    const stored = await server.ctx.db.selectFrom('case_message').select('body_enc').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Buffer.from(stored.body_enc!).toString('latin1')).not.toContain(MARKER);
    const { view } = await hanneOpens(sent.caseNumber);
    const answer = view.messages.find((m: { id: string }) => m.id === id);
    expect(await openFieldText(handlerDk, fieldContext(sent.caseId, SEALED_COLUMNS.messageBody, id), fromBase64(answer.body))).toBe(`The March invoices ${MARKER}`);
  });

  it('a wrong password signs in nowhere (one derivation, refused by the provider)', async () => {
    const wrong = await deriveForCase(server.url, sent.caseNumber, 'not the password');
    await expect(openMyCase(server.url, wrong)).rejects.toMatchObject({ code: 'SIGNIN_REFUSED' });
    await expect(openMyCase(server.url, wrong)).rejects.toBeInstanceOf(SealedClientError);
  });

  it('the CLI opens the case (the password from CASE_PASSWORD) and prints the opened thread', async () => {
    const r = await run('scripts/sealed-client.ts', ['open', '--url', server.url, '--case', sent.caseNumber], { CASE_PASSWORD: PASSWORD });
    expect(r.code, r.stderr).toBe(0);
    const opened = JSON.parse(r.stdout);
    expect(opened.details.description).toContain(MARKER);
    expect(opened.messages.map((m: { from: string; text: string }) => `${m.from}: ${m.text}`)).toEqual([`handler: What was forged? ${MARKER}`, `reporter: The March invoices ${MARKER}`]);
  });

  it('the CLI reports a case (the password on stdin) and sends a sealed message the handler opens', async () => {
    const r = await run('scripts/sealed-client.ts', ['report', '--url', server.url, '--officer', officers[0]!, '--description', `By the CLI ${MARKER}`, '--relation', 'Supplier'], {}, `${PASSWORD}\n`);
    expect(r.code, r.stderr).toBe(0);
    const caseNumber = r.stdout.trim();
    expect(caseNumber).toMatch(/^\d{16}$/);
    const m = await run('scripts/sealed-client.ts', ['message', '--url', server.url, '--case', caseNumber, 'Sent', 'by', `script ${MARKER}`], { CASE_PASSWORD: PASSWORD });
    expect(m.code, m.stderr).toBe(0);
    const id = /^sent message ([0-9a-f-]{36})$/.exec(m.stdout.trim())![1]!;
    const { view, dataKey } = await hanneOpens(caseNumber);
    expect(JSON.parse(await openFieldText(dataKey, fieldContext(view.caseId, SEALED_COLUMNS.details), fromBase64(view.envelopes.details)))).toMatchObject({ description: `By the CLI ${MARKER}`, whistleblowerRelation: 'Supplier' });
    const body = view.messages.find((x: { id: string }) => x.id === id).body;
    expect(await openFieldText(dataKey, fieldContext(view.caseId, SEALED_COLUMNS.messageBody, id), fromBase64(body))).toBe(`Sent by script ${MARKER}`);
  });

  it('the CLI refuses a sealed case that cannot be sealed to a verified key (no certified key for the officer), sending nothing', async () => {
    const before = await server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const r = await run('scripts/sealed-client.ts', ['report', '--url', server.url, '--officer', officers[1]!, '--description', 'x', '--anonymous']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the key log does not verify for this officer: no-keys/);
    const after = await server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});

describe('a server that swaps a handler\'s key', () => {
  it('is caught by the script before anything is sealed or sent', async () => {
    const row = await server.ctx.db.selectFrom('key_log_entry').select(['entry']).where('company_id', '=', 'scripted').where('seq', '=', 1).executeTakeFirstOrThrow();
    const swapped = { ...JSON.parse(row.entry), ecdhSpki: toBase64((await makeHandlerKeys()).ecdhSpki) };
    const count = async () => Number((await server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    await server.ctx.db.updateTable('key_log_entry').set({ entry: JSON.stringify(swapped) }).where('company_id', '=', 'scripted').where('seq', '=', 1).execute();
    try {
      expect((await call(server, 'GET', '/api/public/key-log', { host: HOST })).data.entries[0].ecdhSpki).toBe(swapped.ecdhSpki);
      const details = { description: 'never sent', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: null };
      await expect(sendSealedCase(server.url, { officerId: officers[0]!, details, password: PASSWORD })).rejects.toThrow(/the key log does not verify for this officer: signature at entry 1/);
      expect(await count()).toBe(before);
    } finally {
      await server.ctx.db.updateTable('key_log_entry').set({ entry: row.entry }).where('company_id', '=', 'scripted').where('seq', '=', 1).execute();
    }
  });
});

describe('the scripted client\'s imports', () => {
  it('uses core/ and Node only, never the server\'s code (what it shows is what any client can do)', () => {
    for (const file of ['scripts/sealed-client.ts', 'scripts/lib/sealed-client.ts']) {
      const source = readFileSync(path.join(ROOT, file), 'utf8');
      const specifiers = [...source.matchAll(/^import[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
      expect(specifiers.length).toBeGreaterThan(1);
      for (const s of specifiers) expect(s, `${file} imports ${s}`).toMatch(/^(node:|\.\/lib\/|\.\.\/core\/|\.\.\/\.\.\/core\/)/);
    }
  });
});

describe('npm run handler -- show', () => {
  it('refuses a sealed case, pointing to the web workspace, and still shows a server-keyed case', async () => {
    const sealed = await run('server/cli/handler.ts', ['show', sent.caseNumber, '--url', server.url], { HANDLER_TOKEN: everyCase.token });
    expect(sealed.code).toBe(1);
    expect(sealed.stderr).toMatch(/this case is sealed: .*the server holds no key for it\. Open it in the web workspace \(\/handler/);
    expect(sealed.stdout).toBe('');

    // Officer B has no certified key: the plain path keeps a server-keyed case, which the CLI reads.
    const plain = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officers[1]!, { description: `Plain ${MARKER}` })) });
    expect(plain.status, JSON.stringify(plain.data)).toBe(201);
    const shown = await run('server/cli/handler.ts', ['show', plain.data.caseDto.caseNumber, '--url', server.url], { HANDLER_TOKEN: everyCase.token });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Plain ${MARKER}`);
  });
});
