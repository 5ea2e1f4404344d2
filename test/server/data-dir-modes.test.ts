/**
 * Finding 2 of issue 11: under the usual umask 0022, PGlite created its database files
 * 0666 and its folders 0755. The real server and a CLI run here as child processes with
 * umask 0022; afterwards every file under DATA_DIR (PGlite's, the keys, uploads) must
 * be 0600 and every folder 0700, and what was looser before the start is narrowed,
 * with one log line saying so.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-modes-'));
let server: ChildProcess | undefined;

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function walk(dir: string): Array<{ p: string; dir: boolean; mode: number }> {
  const out = [{ p: dir, dir: true, mode: lstatSync(dir).mode & 0o777 }];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) out.push(...walk(p));
    else out.push({ p, dir: false, mode: st.mode & 0o777 });
  }
  return out;
}

/** Runs with the umask most systems have; the child inherits it. */
function withUmask<T>(mask: number, f: () => T): T {
  const old = process.umask(mask);
  try {
    return f();
  } finally {
    process.umask(old);
  }
}

const ENV = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', POW_DIFFICULTY: '0', DATABASE_URL: '', MASTER_KEY: '', PASSWORD_PEPPER: '' };

describe('data folder modes', () => {
  it('after the server and a CLI ran with umask 0022, every file is 0600 and every folder 0700, what was looser is narrowed and logged once', async () => {
    // Left by an earlier version: a readable note and an open folder.
    mkdirSync(path.join(dataDir, 'old'), { mode: 0o755 });
    writeFileSync(path.join(dataDir, 'old', 'notes.txt'), 'x', { mode: 0o644 });
    chmodSync(path.join(dataDir, 'old'), 0o755);
    chmodSync(path.join(dataDir, 'old', 'notes.txt'), 0o644);

    let log = '';
    const port = await withUmask(0o022, () => {
      server = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
      return new Promise<number>((resolve, reject) => {
        const onData = (d: Buffer) => {
          log += d.toString();
          const m = /running on http:\/\/localhost:(\d+)/.exec(log);
          if (m) resolve(Number(m[1]));
        };
        server!.stdout!.on('data', onData);
        server!.stderr!.on('data', onData);
        server!.once('exit', (code) => reject(new Error(`server exited ${code}: ${log}`)));
      });
    });
    const base = `http://127.0.0.1:${port}`;
    const info = (await (await fetch(`${base}/api/public/case/company-info`, { headers: { 'x-company-host': 'localhost' } })).json()) as { protectionOfficers: Array<{ id: string }> };
    const fd = new FormData();
    fd.append('caseDto', JSON.stringify({ whistleblowerRelation: 'Employee', protectionOfficer: { id: info.protectionOfficers[0]!.id }, description: 'd', violation: 'THEFT', repeatedViolations: false, caseAccount: { follow: true, password: 'pass1234' }, reportedUnit: 'Unit' }));
    fd.append('files', new Blob(['%PDF-1.4\n%%EOF\n']), 'a.pdf');
    const created = await fetch(`${base}/api/public/case/new/by-form`, { method: 'POST', body: fd, headers: { 'x-company-host': 'localhost' } });
    expect(created.status).toBe(201);
    // A CLI run under the same umask, talking to the running server.
    await withUmask(0o022, () =>
      new Promise<void>((resolve, reject) =>
        execFile(process.execPath, ['--import', 'tsx', 'server/cli/handler.ts', 'create-account', '--company', 'localhost', '--name', 'Modes'], { cwd: ROOT, env: ENV }, (err) => (err ? reject(err) : resolve())),
      ),
    );
    server!.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
    server = undefined;

    const entries = walk(dataDir);
    expect(entries.filter((e) => !e.dir).length).toBeGreaterThan(50); // PGlite's files are among them
    expect(entries.some((e) => e.p.includes(`${path.sep}db${path.sep}`))).toBe(true);
    const loose = entries.filter((e) => (e.dir ? e.mode !== 0o700 : e.mode !== 0o600)).map((e) => `${path.relative(dataDir, e.p)} ${e.mode.toString(8)}`);
    expect(loose).toEqual([]);
    expect(log.match(/narrowed modes/g)?.length).toBe(1);
  }, 120_000);
});
