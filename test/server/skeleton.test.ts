import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

describe('the portal server', () => {
  it('publishes its runtime config with the identity settings', async () => {
    const res = await fetch(`${server.url}/config/config.json`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.api).toEqual({ protocol: 'http', host: '127.0.0.1', port: server.port });
    expect(body.idSettings).toMatchObject({ realm: 'whistleblower', clientId: 'whistleblower-app' });
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('sets the security headers on every answer', async () => {
    for (const p of ['/config/config.json', '/api/nothing-here']) {
      const res = await fetch(`${server.url}${p}`);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers an unknown API path with a JSON 404 error', async () => {
    const res = await fetch(`${server.url}/api/public/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('serving the SPA', () => {
  let spa: TestServer;
  beforeAll(async () => {
    const { mkdtempSync, writeFileSync, mkdirSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dist = mkdtempSync(path.join(os.tmpdir(), 'wb-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>spa</title>');
    writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    spa = await startTestServer({ distDir: dist });
  });
  afterAll(async () => spa?.cleanup());

  it('answers a client route with index.html, uncached', async () => {
    const res = await fetch(`${spa.url}/private/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toContain('<title>spa</title>');
    const head = await fetch(`${spa.url}/private/status`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('text/html');
  });

  it('serves a built asset with a long cache, and a missing one as 404 rather than HTML', async () => {
    const ok = await fetch(`${spa.url}/assets/app-1.js`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${spa.url}/assets/app-0.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/json');
  });
});
