/**
 * The SPA's API client and runtime config against the real server (no browser):
 * the company header, typed errors with the HTTP status or 'no status', the
 * 401/403 hook, and the config fallback when config.json cannot be read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createApiClient } from '../../src/api/client.ts';
import { FALLBACK_API_BASE_URL, loadRuntimeConfig } from '../../src/api/config.ts';
import { getCompanyInfo, getLookAndFeel, logoUrl } from '../../src/api/public.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: true });
}, 120_000);
afterAll(async () => {
  await server?.cleanup();
});

const viaServer = (): typeof fetch => (input, init) => fetch(new URL(String(input), server.url), init);

describe('runtime config', () => {
  it('reads the API address from /config/config.json', async () => {
    const config = await loadRuntimeConfig(viaServer());
    expect(config.fromFile).toBe(true);
    expect(config.apiBaseUrl).toBe(server.url);
    expect(config.idSettings?.clientId).toBe('whistleblower-app');
  });

  it('falls back to http://localhost:9000 when the file cannot be read', async () => {
    const notJson: typeof fetch = (input, init) => fetch(new URL('/no/such/config.json', server.url), init);
    const config = await loadRuntimeConfig(notJson);
    expect(config).toMatchObject({ apiBaseUrl: FALLBACK_API_BASE_URL, fromFile: false });
    const down = await loadRuntimeConfig((() => fetch('http://127.0.0.1:1/config/config.json')) as typeof fetch);
    expect(down.apiBaseUrl).toBe('http://localhost:9000');
  });
});

describe('API client', () => {
  it('names the company by the page host on public calls', async () => {
    const local = createApiClient({ baseUrl: server.url, companyHost: 'localhost' });
    const group = createApiClient({ baseUrl: server.url, companyHost: 'group.localhost' });
    const a = await getLookAndFeel(local, 'en');
    const b = await getLookAndFeel(group, 'en');
    expect(a.languageCode).toBe('en');
    expect(a.logoFileName).not.toBe(b.logoFileName);
    expect(a.siteColors.primaryColorCode).not.toBe(b.siteColors.primaryColorCode);
    const info = await getCompanyInfo(group);
    expect(info.subsidiaries.length).toBeGreaterThan(0);
    const logo = await fetch(logoUrl(local, a.logoFileName!), { headers: { 'x-company-host': 'localhost' } });
    expect(logo.status).toBe(200);
  });

  it('throws ApiError with the HTTP status (404 for an unknown host or language)', async () => {
    const unknown = createApiClient({ baseUrl: server.url, companyHost: 'nobody.example' });
    const err = await getCompanyInfo(unknown).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).code).toBe('UNKNOWN_COMPANY');
    const local = createApiClient({ baseUrl: server.url, companyHost: 'localhost' });
    const lang = await local.json('/api/public/site-look-and-feel/language/xx').catch((e: unknown) => e);
    expect((lang as ApiError).status).toBe(404);
  });

  it('reports 401/403 to onUnauthorized (the app navigates to /)', async () => {
    const seen: number[] = [];
    const client = createApiClient({ baseUrl: server.url, companyHost: 'localhost', onUnauthorized: (s) => void seen.push(s) });
    const err = await client.json('/api/private/case/my-case').catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(401);
    expect(seen).toEqual([401]);
    const withToken = client.withAccessToken(() => 'not-a-real-token');
    const err2 = await withToken.json('/api/private/case/my-case').catch((e: unknown) => e);
    expect([401, 403]).toContain((err2 as ApiError).status);
    expect(seen).toHaveLength(2);
  });

  it("has 'no status' when the server does not answer", async () => {
    const own = await startTestServer({ seedDemo: true });
    const client = createApiClient({ baseUrl: own.url, companyHost: 'localhost' });
    expect((await getLookAndFeel(client, 'da')).languageCode).toBe('da');
    await own.cleanup();
    const err = await getLookAndFeel(client, 'da').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe('no status');
  });
});
