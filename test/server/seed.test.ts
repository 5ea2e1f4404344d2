import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call } from './api.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

describe('the demo companies seeded on first start', () => {
  it('serves the single-officer company on localhost', async () => {
    const res = await call(server, 'GET', '/api/public/case/company-info', { host: 'localhost' });
    expect(res.status).toBe(200);
    expect(res.data.protectionOfficers).toHaveLength(1);
    expect(res.data.subsidiaries).toEqual([]);
    const lf = await call(server, 'GET', '/api/public/site-look-and-feel/language/da', { host: 'localhost' });
    expect(lf.data.siteFrontPage).toMatchObject({ showVerbalOption: true, showBookingOption: true });
  });

  it('serves the group on group.localhost: three officers, three subsidiaries, every about page visible, seven languages', async () => {
    const res = await call(server, 'GET', '/api/public/case/company-info', { host: 'group.localhost' });
    expect(res.status).toBe(200);
    expect(res.data.protectionOfficers).toHaveLength(3);
    expect(res.data.subsidiaries).toHaveLength(3);
    for (const lang of ['da', 'no', 'se', 'en', 'es', 'pl', 'de']) {
      const lf = await call(server, 'GET', `/api/public/site-look-and-feel/language/${lang}`, { host: 'group.localhost' });
      expect(lf.status).toBe(200);
      expect(lf.data.siteAboutPages.every((p: { visible: boolean }) => p.visible)).toBe(true);
      const logo = await fetch(`${server.url}/api/public/site-look-and-feel/logo/${lf.data.logoFileName}`, { headers: { 'x-company-host': 'group.localhost' } });
      expect(logo.status).toBe(200);
    }
    for (const o of res.data.protectionOfficers) {
      if (o.logoUrl) expect((await fetch(`${server.url}${o.logoUrl}`, { headers: { 'x-company-host': 'group.localhost' } })).status).toBe(200);
    }
  });

  it('seeds nothing with seedDemo off (SEED_DEMO=false)', async () => {
    const again = await startTestServer({ seedDemo: false });
    try {
      expect((await call(again, 'GET', '/api/public/case/company-info', { host: 'localhost' })).status).toBe(404);
    } finally {
      await again.cleanup();
    }
  });
});
