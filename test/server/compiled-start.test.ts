/**
 * `npm start` runs the compiled server: plain JavaScript on plain Node, with no
 * TypeScript transpiler (tsx, esbuild, typescript, Node's type stripping) loaded.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startChildServer, type ChildServer } from '../helpers/child-server.ts';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const TRANSPILERS = /\b(tsx|ts-node|esbuild|typescript|swc|--import|--loader|--experimental-strip-types|--experimental-transform-types)\b/;

let tmp: string;
let server: ChildServer;
let probeFile: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-compiled-'));
  probeFile = path.join(tmp, 'modules.txt');
  writeFileSync(probeFile, '');
  server = await startChildServer({
    dataDir: path.join(tmp, 'data'),
    nodeArgs: ['--import', path.join(ROOT, 'test/helpers/module-probe.mjs')],
    env: { MODULE_PROBE_FILE: probeFile },
  });
});

afterAll(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the production start', () => {
  it('starts the compiled JavaScript with plain node', () => {
    // Memory settings may come first (docs/decisions/performance.md, "Idle memory"); the program is plain node.
    expect(pkg.scripts.serve).toMatch(/^(MALLOC_[A-Z_]+=\d+ )*node( --max-semi-space-size=\d+)? build\/server\/main\.js$/);
    expect(pkg.scripts.start).toMatch(/^npm run build && (node build\/server\/main\.js|npm run serve)$/);
    expect(pkg.scripts.serve).not.toMatch(TRANSPILERS);
  });

  it('serves while loading no TypeScript file and no transpiler', async () => {
    // Exercise the provider and an API route too, so lazily loaded modules show up.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const discovery = await fetch(`${server.url}/idp/realms/whistleblower/.well-known/openid-configuration`, { headers: { host: `localhost:${server.port}` } });
    expect(discovery.status).toBe(200);
    expect((await fetch(`${server.url}/api/public/case/company-info`, { headers: { host: `localhost:${server.port}` } })).status).toBe(200);

    const modules = readFileSync(probeFile, 'utf8').split('\n').filter(Boolean);
    // The probe really saw the server's own modules and its dependencies.
    expect(modules).toContain(`file://${path.join(ROOT, 'build/server/app.js')}`);
    expect(modules.some((u) => u.includes('/node_modules/oidc-provider/'))).toBe(true);
    const typescriptFiles = modules.filter((u) => /\.[cm]?tsx?$/.test(u));
    expect(typescriptFiles).toEqual([]);
    const transpilers = modules.filter((u) => /\/node_modules\/(tsx|esbuild|@esbuild|typescript|@typescript|ts-node|@swc)\//.test(u));
    expect(transpilers).toEqual([]);
  });

  it('writes nothing but JSON log lines', () => {
    const out = server.output().split('\n').filter(Boolean);
    expect(out.some((l) => l.includes('running on http://localhost:'))).toBe(true);
    for (const line of out) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('runs no helper process (tsx keeps an esbuild service running beside the server)', () => {
    const children = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === server.pid;
        } catch {
          return false;
        }
      });
    expect(children).toEqual([]);
  });
});
