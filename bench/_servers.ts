/** Shared by the benches (bench/run.ts lists no name starting with `_`). */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A port free on 127.0.0.1 at the moment of asking, for a server the bench starts. */
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
