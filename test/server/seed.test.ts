import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call } from './api.ts';
import { makeHandlerKeys, toBase64 } from '../../core/crypto/index.ts';

function logSink() {
  const sink = { lines: [] as Record<string, unknown>[] };
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) sink.lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { sink, stream };
}
const anchorLine = (lines: Record<string, unknown>[]) => lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('sealed cases: these companies have no recovery key yet'));

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

describe('a first start with sealing on (the default)', () => {
  it('tells the operator which companies have no recovery key yet, and stops once each has one', async () => {
    const { sink, stream } = logSink();
    const first = await startTestServer({ logLevel: 'warn' }, { logStream: stream });
    try {
      expect(first.ctx.config.sealedCases).toBe('browser');
      // The demo makes no keys: its companies take server-keyed cases until a handler makes the recovery key.
      for (const host of ['localhost', 'group.localhost']) {
        const log = (await call(first, 'GET', '/api/public/key-log', { host })).data;
        expect(log).toMatchObject({ anchor: null, entries: [], sealedCases: 'browser' });
      }
      const line = anchorLine(sink.lines);
      expect(line).toMatchObject({ level: 40, companies: ['fjordgruppen', 'nordlys-energi'], count: 2 });
      expect(String(line!.msg)).toMatch(/\/handler\/keys/);
      for (const company of ['fjordgruppen', 'nordlys-energi']) {
        const k = await makeHandlerKeys();
        const set = await call(first, 'PUT', `/api/admin/companies/${company}/key-anchor`, {
          headers: { authorization: `Bearer ${first.ctx.adminToken}` },
          json: { ecdhSpki: toBase64(k.ecdhSpki), ecdsaSpki: toBase64(k.ecdsaSpki) },
        });
        expect(set.status).toBe(201);
      }
      await first.stop();
      const again = logSink();
      const second = await startTestServer({ logLevel: 'warn', dataDir: first.dataDir, databaseUrl: first.config.databaseUrl }, { logStream: again.stream });
      await second.stop();
      expect(again.sink.lines.length).toBeGreaterThan(0); // the master key's own warning: the sink did listen
      expect(anchorLine(again.sink.lines)).toBeUndefined();
    } finally {
      await first.cleanup();
    }
  });

  it('says nothing of anchors with SEALED_CASES=off', async () => {
    const { sink, stream } = logSink();
    const off = await startTestServer({ logLevel: 'warn', sealedCases: 'off' }, { logStream: stream });
    try {
      expect(sink.lines.length).toBeGreaterThan(0);
      expect(anchorLine(sink.lines)).toBeUndefined();
    } finally {
      await off.cleanup();
    }
  });
});
