/**
 * Code integrity (issue 37, Build 6; docs/decisions/code-integrity.md), against the
 * real build (dist/, `npm run build`): every script and modulepreload a page names
 * carries `integrity` equal to the served bytes' digest; the page's import map pins
 * every chunk its scripts can import, found here by reading the served chunks
 * themselves (not from the build manifest the server uses); the CSP requires Trusted
 * Types and allows the import map by its hash; the build's SHA-256 manifest is served
 * and matches every file as served.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, openSignIn } from './identity-flow.ts';

const dist = path.resolve(import.meta.dirname, '../../dist');
let server: TestServer;

beforeAll(async () => {
  if (!existsSync(path.join(dist, 'manifest-sha256.json'))) throw new Error('dist/manifest-sha256.json is missing: run `npm run build` first');
  server = await startTestServer({ distDir: dist, seedDemo: true });
});
afterAll(async () => {
  await server?.cleanup();
});

const HOST = { 'x-company-host': 'localhost' };
const sri = (bytes: Buffer) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;
const cspHash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

const served = new Map<string, Buffer>();
async function bytesOf(p: string): Promise<Buffer> {
  let b = served.get(p);
  if (!b) {
    const res = await fetch(`http://localhost:${server.port}${p}`, { headers: { "accept-encoding": "br" } });
    expect(res.status, p).toBe(200);
    // fetch decodes the Content-Encoding: these are the bytes a browser checks.
    served.set(p, (b = Buffer.from(await res.arrayBuffer())));
  }
  return b;
}

const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/** Every chunk a module's code names (static and dynamic imports, Vite's preload lists, workers), as served paths. */
function chunkReferences(code: string, base: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(/["'`](?:\.\/|(?:\/handler)?\/assets\/|assets\/)([\w.-]+\.js)["'`]/g)) out.add(`${base}${m[1]}`);
  return [...out];
}

async function checkPage(p: string) {
  const res = await fetch(`${server.url}${p}`, { headers: HOST });
  expect(res.status, p).toBe(200);
  const html = await res.text();
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, p).toContain("require-trusted-types-for 'script'");
  expect(csp, p).toMatch(/(^|;\s*)trusted-types [^;]*\bwb-worker\b/);

  const maps = [...html.matchAll(/<script type="importmap">([^<]*)<\/script>/g)].map((m) => m[1]!);
  expect(maps.length, `${p} has an import map`).toBeGreaterThan(0);
  const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
  for (const map of maps) expect(scriptSrc, `${p}: the CSP allows each import map by its hash`).toContain(cspHash(map));
  const pinned: Record<string, string> = Object.assign({}, ...maps.map((m) => (JSON.parse(m) as { integrity: Record<string, string> }).integrity));
  // The first before every module script and preload: an import map applies to modules fetched after it.
  expect(html.indexOf('<script type="importmap">'), p).toBeLessThan(html.search(/<script type="module"|<link rel="modulepreload"/));
  // What the entry imports statically is in that first map: it is fetched while the page is still arriving.
  const first = (JSON.parse(maps[0]!) as { integrity: Record<string, string> }).integrity;
  const entry = /<script type="module" crossorigin src="([^"]+)"/.exec(html)![1]!;
  const statics = [...(await bytesOf(entry)).toString('utf8').matchAll(/(?:^|[;\n])import\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([\w.-]+\.js)["']/g)].map((m) => `${p.startsWith('/handler') ? '/handler/assets/' : '/assets/'}${m[1]}`);
  for (const dep of statics) {
    expect(first[dep], `${p}: ${dep}, a static import of the entry, is in the first map`).toBeTruthy();
  }

  const tags = [...html.matchAll(/<script\b[^>]*\bsrc="[^"]*"[^>]*>|<link\b[^>]*\brel="(?:modulepreload|stylesheet|preload)"[^>]*>/g)].map((m) => m[0]);
  const scripts = tags.filter((t) => t.startsWith('<script') || t.includes('modulepreload') || t.includes('stylesheet'));
  expect(scripts.length, p).toBeGreaterThan(0);
  for (const tag of scripts) {
    const url = attr(tag, 'src') ?? attr(tag, 'href')!;
    expect(attr(tag, 'integrity'), `${p}: ${tag}`).toBe(sri(await bytesOf(url)));
    expect(tag, `${p}: ${tag}`).toContain(' crossorigin');
  }

  // Crawl from the page's scripts through the chunks' own references.
  const base = p.startsWith('/handler') ? '/handler/assets/' : '/assets/';
  const queue = scripts.map((t) => attr(t, 'src') ?? attr(t, 'href')!).filter((u) => u.endsWith('.js'));
  const seen = new Set<string>();
  while (queue.length) {
    const u = queue.pop()!;
    if (seen.has(u)) continue;
    seen.add(u);
    const bytes = await bytesOf(u);
    expect(pinned[u], `${p}: ${u} is in the import map`).toBe(sri(bytes));
    queue.push(...chunkReferences(bytes.toString('utf8'), base));
  }
  return seen;
}

describe('code integrity', () => {
  it('every script, modulepreload and stylesheet of every page carries the served bytes’ digest, and the import map pins every chunk and worker they reach', async () => {
    let workers = 0;
    for (const p of ['/', '/how-to-report', '/online-form', '/private/status', '/private/callback', '/handler', '/handler/cases']) {
      const reached = await checkPage(p);
      workers += [...reached].filter((u) => /worker/.test(u)).length;
      expect(reached.size, p).toBeGreaterThan(3);
    }
    // The proof-of-work and hidden-data workers are among what the reporter's pages pin.
    expect(workers).toBeGreaterThanOrEqual(2);
  });

  it('the provider’s sign-in page pins its scripts and requires Trusted Types', async () => {
    const b = new Browser(server, 'localhost');
    const { page } = await openSignIn(b);
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toContain("require-trusted-types-for 'script'");
    const tags = [...page.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) {
      const src = attr(tag, 'src');
      expect(src, tag).toBeTruthy();
      expect(attr(tag, 'integrity'), tag).toBe(sri(await bytesOf(src!)));
    }
  });

  it('serves the build’s SHA-256 manifest, and every file in it is served with those bytes', async () => {
    const res = await fetch(`${server.url}/manifest-sha256.json`);
    expect(res.status).toBe(200);
    const manifest = (await res.json()) as { algorithm: string; files: Record<string, string> };
    expect(manifest.algorithm).toBe('sha256');
    const paths = Object.keys(manifest.files);
    expect(paths.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(50);
    for (const f of paths) {
      // The HTML pages are templates the server fills per request (server/spa.ts).
      if (f.endsWith('.html')) continue;
      expect(createHash('sha256').update(await bytesOf(f)).digest('hex'), f).toBe(manifest.files[f]);
    }
  });

  it('an auditor’s check (scripts/check-served.mjs) finds the running portal equal to the build, and names a file that differs', async () => {
    const script = path.resolve(import.meta.dirname, '../../scripts/check-served.mjs');
    const origin = `http://localhost:${server.port}`;
    const same = await promisify(execFile)(process.execPath, [script, origin, path.join(dist, 'manifest-sha256.json')]);
    expect(same.stdout).toContain('matches this build');
    // A "rebuild" that differs in one chunk: the check fails and names it.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-manifest-'));
    try {
      const manifest = JSON.parse(readFileSync(path.join(dist, 'manifest-sha256.json'), 'utf8')) as { files: Record<string, string> };
      const chunk = Object.keys(manifest.files).find((f) => /^\/assets\/how-to-report-[\w-]+\.js$/.test(f))!;
      manifest.files[chunk] = '0'.repeat(64);
      writeFileSync(path.join(dir, 'm.json'), JSON.stringify(manifest));
      const differs = await promisify(execFile)(process.execPath, [script, origin, path.join(dir, 'm.json')]).then(
        () => null,
        (err: { code: number; stdout: string }) => err,
      );
      expect(differs?.code).toBe(1);
      expect(differs?.stdout).toContain(`${chunk}: served bytes have SHA-256`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
