/**
 * A private PostgreSQL cluster in a temporary folder, as .ci/run starts one (initdb,
 * trust on 127.0.0.1, a free port), for what the shared DATABASE_URL server must never
 * suffer: a restart in the middle of a test (the soak), a bench's large database.
 * Runs the binaries as `postgres` when this process is root (initdb refuses root).
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The newest installed PostgreSQL's bin folder, or undefined. */
export function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin/initdb')))
    .sort((a, b) => Number(a) - Number(b));
  return versions.length ? path.join(base, versions.at(-1)!, 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** Stops the server (`fast`: ends every connection, checkpoint; `immediate`: as a crash) and starts it again after `downMs`. */
  restart(opts?: { mode?: 'fast' | 'immediate'; downMs?: number }): Promise<void>;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const root = mkdtempSync(path.join(os.tmpdir(), 'wb-pg-'));
  chmodSync(root, 0o755);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(root, Number(stdout.trim()), Number(gid.trim()));
  }
  const sh = async (cmd: string) => {
    if (asRoot) await run('su', ['postgres', '-s', '/bin/sh', '-c', cmd]);
    else await run('/bin/sh', ['-c', cmd]);
  };
  const port = await freePort();
  const data = path.join(root, 'data');
  const ctl = (what: string) => `'${bin}/pg_ctl' -D '${data}' -l '${root}/log' ${what}`;
  const startCmd = ctl(`-o "-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off" -w start`);
  await sh(`'${bin}/initdb' -D '${data}' -A trust -U postgres >/dev/null`);
  await sh(`${startCmd} >/dev/null`);
  let up = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart({ mode = 'fast', downMs = 0 } = {}) {
      await sh(`${ctl(`-m ${mode} -w stop`)} >/dev/null`);
      up = false;
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      await sh(`${startCmd} >/dev/null`);
      up = true;
    },
    async destroy() {
      if (up) await sh(`${ctl('-m immediate -w stop')} >/dev/null`).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
