/** Shared by the benches (bench/run.ts lists no name starting with `_`). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A port free on 127.0.0.1 at the moment of asking, for a server the bench starts. */
/**
 * Budgets a seeding bench lifts: it makes thousands of cases and accounts from one
 * client in minutes, which the server's limits (rightly) refuse to anyone else.
 */
export const SEEDING_LIMITS = {
  powDifficulty: 0,
  submitRateLimit: { max: 1e9, windowSeconds: 3600 },
  challengeRateLimit: { max: 1e9, windowSeconds: 3600 },
  enrolRateLimit: { max: 1e9, windowSeconds: 3600 },
  caseWriteRateLimit: { max: 1e9, windowSeconds: 3600 },
  reporterClientRateLimit: { max: 1e9, windowSeconds: 3600 },
} as const;

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The server as `npm run serve` (and so `npm start`) starts it, read from package.json's
 * script `[VAR=value …] node [--flag …] build/server/main.js`: the node flags and
 * environment that shape its memory, for the benches whose figures are the production
 * server's (memory, throughput). Exits when `npm run build` has not been run.
 */
export function servedAsNpmStart(bench: string): { script: string; args: string[]; env: Record<string, string> } {
  if (!existsSync(path.join(ROOT, 'build/server/main.js'))) {
    process.stderr.write(`${bench}: build/server/main.js is missing; run \`npm run build\` first\n`);
    process.exit(2);
  }
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.serve!;
  const words = script.split(/\s+/);
  const env = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { script, args: words.slice(words.indexOf('node') + 1), env };
}

/**
 * Starts `node args…` in the project folder with `env` added, and resolves once its
 * output matches `ready`. Its output is drained, not kept, after that; an exit before
 * it rejects with what it printed.
 */
export function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let done = false;
    const onData = (d: Buffer) => {
      if (done) return;
      out += d.toString();
      if (ready.test(out)) {
        done = true;
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited with ${code}:\n${out}`)));
  });
}

/**
 * Files a followed case by phone with a plain POST (the server runs with
 * POW_DIFFICULTY=0) for the company's first officer; returns its case number, to sign
 * in with `password`.
 */
export async function fileFollowedCase(origin: string, password: string): Promise<string> {
  const info = (await (await fetch(`${origin}/api/public/case/company-info`)).json()) as { protectionOfficers: { id: string }[] };
  const res = await fetch(`${origin}/api/public/case/new/by-phone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ whistleblowerRelation: 'Employee', protectionOfficer: { id: info.protectionOfficers[0]!.id }, caseAccount: { follow: true, password } }),
  });
  if (res.status !== 201) throw new Error(`filing a case to sign in with: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { caseDto: { caseNumber: string } }).caseDto.caseNumber;
}
