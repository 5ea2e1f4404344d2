/**
 * The Content-Security-Policy names no origin but the page's own (issue 36, finding
 * 6a): not the SPA's development fallback `http://localhost:9000`, which in a
 * reporter's browser is the reporter's own machine. Checked on every kind of page the
 * real server sends: the public SPA, the report forms, the private area, the handlers'
 * workspace, the provider's sign-in page, and API and error answers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, openSignIn } from './identity-flow.ts';

let server: TestServer;
let dist: string;

beforeAll(async () => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'wb-csp-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  mkdirSync(path.join(dist, 'handler'));
  for (const page of ['index', 'private', 'report']) writeFileSync(path.join(dist, `${page}.html`), `<!doctype html><title>${page}</title>`);
  writeFileSync(path.join(dist, 'handler', 'handler.html'), '<!doctype html><title>handler</title>');
  server = await startTestServer({ distDir: dist, seedDemo: true });
});
afterAll(async () => {
  await server?.cleanup();
  rmSync(dist, { recursive: true, force: true });
});

/** Every source of every directive that is neither the page's own origin nor a keyword, scheme or hash allowed here. */
function foreignSources(csp: string): string[] {
  // 'wasm-unsafe-eval': WebAssembly compilation only (Argon2id in the page, issue 37); no origin.
  const allowed = new Set(["'self'", "'none'", "'unsafe-inline'", "'wasm-unsafe-eval'", 'data:', 'blob:']);
  const out: string[] = [];
  for (const directive of csp.split(';').map((d) => d.trim()).filter(Boolean)) {
    const [name, ...sources] = directive.split(/\s+/);
    // Trusted Types policy names and sink groups, not sources (checked below).
    if (name === 'trusted-types' || name === 'require-trusted-types-for') continue;
    for (const s of sources) {
      if (allowed.has(s) || /^'sha(256|384|512)-[A-Za-z0-9+/=]+'$/.test(s)) continue;
      out.push(`${name} ${s}`);
    }
  }
  return out;
}

function expectOwnOriginOnly(where: string, csp: string | null) {
  expect(csp, `${where} has a CSP`).toBeTruthy();
  expect(csp, where).not.toContain('localhost:9000');
  expect(foreignSources(csp!), where).toEqual([]);
  // data: and blob: where pictures need them, and nowhere they could run or fetch.
  const directive = (name: string) => csp!.split(';').map((d) => d.trim().split(/\s+/)).find((d) => d[0] === name)?.slice(1) ?? [];
  expect(directive('connect-src'), where).toEqual(["'self'"]);
  expect(directive('script-src').filter((s) => !s.startsWith("'sha")), where).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  // A worker from a blob: URL only through the named policies, which make such URLs of
  // checked bytes alone (src/integrity/worker.ts, docs/decisions/code-integrity.md).
  expect(directive('worker-src'), where).toEqual(["'self'", 'blob:']);
  expect(directive('require-trusted-types-for'), where).toEqual(["'script'"]);
  expect(directive('trusted-types'), where).toEqual(['wb-worker', 'wb-idp-worker']);
}

describe('Content-Security-Policy', () => {
  it('every page type (public SPA, report form, private, handler, /idp sign-in) names no origin but its own: no http://localhost:9000', async () => {
    const pages: Record<string, string> = {
      'public SPA page': '/',
      'public sub-page': '/how-to-report',
      'report form': '/online-form',
      'private area': '/private/status',
      'private callback': '/private/callback',
      'handler sign-in': '/handler',
      'handler inbox': '/handler/cases',
    };
    for (const [where, p] of Object.entries(pages)) {
      const res = await fetch(`${server.url}${p}`, { headers: { 'x-company-host': 'localhost' } });
      expect(res.status, `${where} ${p}`).toBe(200);
      expect(res.headers.get('content-type'), where).toContain('text/html');
      expectOwnOriginOnly(where, res.headers.get('content-security-policy'));
      await res.arrayBuffer();
    }
    const b = new Browser(server, 'localhost');
    const { page } = await openSignIn(b);
    expect(page.status).toBe(200);
    expectOwnOriginOnly('/idp sign-in page', String(page.headers['content-security-policy'] ?? ''));
  });

  it('API answers, errors and the runtime config carry the same policy', async () => {
    for (const p of ['/config/config.json', '/api/public/nope', '/api/private/case/my-case', '/api/handler/cases', '/healthz']) {
      const res = await fetch(`${server.url}${p}`);
      expectOwnOriginOnly(p, res.headers.get('content-security-policy'));
      await res.arrayBuffer();
    }
  });
});
