/**
 * Findings 4, 8 and 10 of issue 11: output the handler can trust.
 * - The handler CLI printed reporter text with raw ESC, BEL and CSI bytes; now every
 *   control and bidi override is shown as a visible `\uXXXX` escape.
 * - Stored file names are cleaned at upload: no path, controls or bidi overrides, at
 *   most 255 bytes of UTF-8 cut at a character boundary, extension kept.
 * - `handler show --save` never fails on a name (it failed with ENAMETOOLONG).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, PDF } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { cleanFileName, cutUtf8 } from '../../machines/schema.ts';
import { escapeForTerminal, freeName, jsonForTerminal } from '../../server/cli/terminal.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
/** No half of a surrogate pair left alone. */
const wellFormed = (s: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
/** Every control or bidi character a terminal would obey. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

describe('file names are cleaned at upload (shared schema)', () => {
  it('drops path separators, controls and bidi overrides', () => {
    expect(cleanFileName('../../etc/passwd.txt')).toBe('passwd.txt');
    expect(cleanFileName('C:\\Users\\x\\report.pdf')).toBe('report.pdf');
    expect(cleanFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(cleanFileName('a\u0000b\u001b[31mc\u0007\u0085\u2066d.pdf')).toBe('ab[31mcd.pdf');
    expect(cleanFileName('..')).toBe('');
  });

  it('keeps at most 255 bytes of UTF-8, cut at a character boundary, with the extension', () => {
    const emoji = '😀'.repeat(200) + '.pdf'; // 4 bytes and two UTF-16 units each
    const cut = cleanFileName(emoji);
    expect(bytes(cut)).toBeLessThanOrEqual(255);
    expect(cut.endsWith('.pdf')).toBe(true);
    expect(wellFormed(cut)).toBe(true);
    expect(cut.slice(0, -4)).toBe('😀'.repeat(62));
    const danish = cleanFileName('æ'.repeat(300) + '.docx');
    expect(bytes(danish)).toBe(255); // 125 two-byte characters and the extension
    expect(danish.endsWith('.docx')).toBe(true);
    expect(cutUtf8('a😀b', 3)).toBe('a');
  });
});

describe('terminal escaping', () => {
  it('shows ESC, BEL, CSI, C1 controls and bidi overrides as visible escapes', () => {
    expect(escapeForTerminal('a\u001b[2Jb\u0007c\u009bd\u202Ee\nf')).toBe('a\\u001B[2Jb\\u0007c\\u009Bd\\u202Ee\\u000Af');
    expect(jsonForTerminal({ t: 'x\u202Ey\u0085' })).toBe('{\n  "t": "x\\u202Ey\\u0085"\n}');
    expect(JSON.parse(jsonForTerminal({ t: 'x\u202Ey' }))).toEqual({ t: 'x\u202Ey' });
  });

  it('gives --save a name every file system takes, and never one that exists', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-free-'));
    try {
      const long = freeName(dir, 'ø'.repeat(250) + '.pdf');
      expect(bytes(path.basename(long))).toBeLessThanOrEqual(255);
      expect(path.dirname(long)).toBe(dir);
      expect(path.basename(freeName(dir, '../../x\u202Efdp.exe'))).toBe('xfdp.exe');
      expect(path.basename(freeName(dir, ''))).toBe('file');
      expect(path.basename(freeName(dir, '.bashrc'))).toBe('file.bashrc');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm run handler -- show, with a hostile report', () => {
  let server: TestServer;
  let token: string;
  let caseNumber: string;
  let tmp: string;
  const HOSTILE = 'Money gone\u001b]0;pwned\u0007\u001b[2J\u001b[31m red \u009b1m \u202Etxt.exe';
  const LONG_NAME = '😀'.repeat(120) + 'ø'.repeat(60) + '.pdf'; // far over 255 bytes
  const BIDI_NAME = 'invoice\u202Efdp.pdf';

  beforeAll(async () => {
    server = await startTestServer({ seedDemo: false });
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-cli-out-'));
    const officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: ['acme.test'] })).officerIds[0]!;
    const res = await call(server, 'POST', '/api/public/case/new/by-form', {
      host: 'acme.test',
      body: form('caseDto', caseDto(officer, { description: HOSTILE, whistleblowerRelation: 'Employee\u001b[1A' }), [
        { name: LONG_NAME, bytes: PDF },
        { name: BIDI_NAME, bytes: PDF },
        { name: 'a/b\\c\u0000.pdf', bytes: PDF },
      ]),
    });
    expect(res.status).toBe(201);
    caseNumber = res.data.caseDto.caseNumber;
    token = (await createHandlerAccount(server.ctx.db, 'acme', 'H')).token;
  });
  afterAll(async () => {
    await server?.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  });

  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'server/cli/handler.ts'), ...args, '--url', server.url],
        { cwd: ROOT, env: { ...process.env, DATA_DIR: server.dataDir, HANDLER_TOKEN: token }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  it('stored the file names cleaned', async () => {
    const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token });
    const names = (view.data.files as Array<{ name: string }>).map((f) => f.name);
    expect(names[1]).toBe('invoicefdp.pdf');
    expect(names[2]).toBe('c.pdf');
    expect(bytes(names[0]!)).toBeLessThanOrEqual(255);
    expect(names[0]!.endsWith('.pdf')).toBe(true);
    expect(wellFormed(names[0]!)).toBe(true);
    for (const n of names) expect(n).not.toMatch(RAW_CONTROL);
  });

  it('prints the report with every control escaped and visible, in text and in JSON', async () => {
    const text = await run(['show', caseNumber]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(RAW_CONTROL);
    expect(text.stdout).toContain('Money gone\\u001B]0;pwned\\u0007\\u001B[2J\\u001B[31m red \\u009B1m \\u202Etxt.exe');
    expect(text.stdout).toContain('relation: Employee\\u001B[1A');
    const json = await run(['show', caseNumber, '--json']);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json.stdout).description).toBe(HOSTILE);
  });

  it('--save writes every file, whatever its name', async () => {
    const res = await run(['show', caseNumber, '--save', tmp]);
    expect(res.code, res.stderr).toBe(0);
    const saved = readdirSync(tmp);
    expect(saved).toHaveLength(3);
    for (const name of saved) {
      expect(bytes(name)).toBeLessThanOrEqual(255);
      expect(name).not.toMatch(RAW_CONTROL);
      expect(readFileSync(path.join(tmp, name)).equals(PDF)).toBe(true);
    }
    expect(res.stderr).not.toMatch(RAW_CONTROL);
  });
});
