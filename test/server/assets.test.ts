/**
 * Assets as a CDN would serve them: every text answer over 1 kB compressed when the
 * client accepts it (precompressed build files, compressed-per-request JSON and
 * HTML, the identity provider's answers too), hashed files cached for a year,
 * index.html revalidated with an ETag, and a robots.txt per company.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressDir } from '../../scripts/precompress.ts';
import { importCompany, validateBundle } from '../../server/companies/service.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { companyFixture } from './fixtures/company.ts';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request whose answer is read as sent: no client-side decompression. */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

function decoded(r: Raw): Buffer {
  const enc = r.headers['content-encoding'];
  return enc === 'br' ? brotliDecompressSync(r.body) : enc === 'gzip' ? gunzipSync(r.body) : r.body;
}

const filler = (n: number) => Array.from({ length: n }, (_, i) => `/* line ${i} of a build file */`).join('\n');
const FILES = {
  'assets/index-Ab12Cd34.js': `console.log("app");\n${filler(200)}`,
  'assets/index-Ef56Gh78.css': `body{margin:0}\n${filler(200)}`,
  'assets/messages-Ij90Kl12.json': JSON.stringify({ words: filler(100).split('\n') }),
  'assets/tiny-Mn34Op56.js': 'export{}',
};
const INDEX = `<!doctype html><html lang="da"><head><meta charset="UTF-8" /><title>spa</title></head><body><div id="root"></div><!-- ${filler(60)} --><script type="module" src="/assets/index-Ab12Cd34.js"></script></body></html>`;

let server: TestServer;
let dist: string;
beforeAll(async () => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'wb-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), INDEX);
  for (const [name, text] of Object.entries(FILES)) writeFileSync(path.join(dist, name), text);
  precompressDir(dist);
  server = await startTestServer({ distDir: dist });
});
afterAll(async () => {
  await server?.cleanup();
  rmSync(dist, { recursive: true, force: true });
});

describe('build assets', () => {
  it('writes Brotli and gzip copies of text files over the minimum, and none of tiny ones', () => {
    for (const name of ['assets/index-Ab12Cd34.js', 'assets/index-Ef56Gh78.css', 'assets/messages-Ij90Kl12.json']) {
      const raw = readFileSync(path.join(dist, name));
      expect(brotliDecompressSync(readFileSync(path.join(dist, `${name}.br`))).equals(raw)).toBe(true);
      expect(gunzipSync(readFileSync(path.join(dist, `${name}.gz`))).equals(raw)).toBe(true);
    }
    expect(() => readFileSync(path.join(dist, 'assets/tiny-Mn34Op56.js.br'))).toThrow();
  });

  for (const name of ['assets/index-Ab12Cd34.js', 'assets/index-Ef56Gh78.css', 'assets/messages-Ij90Kl12.json']) {
    it(`sends ${name} as Brotli, gzip or plain by Accept-Encoding, cached for a year`, async () => {
      const original = readFileSync(path.join(dist, name));
      for (const [accept, expected] of [
        ['gzip, deflate, br', 'br'],
        ['br;q=0.5, gzip;q=1', 'gzip'],
        ['gzip', 'gzip'],
        ['identity', undefined],
        ['', undefined],
      ] as const) {
        const r = await get(`${server.url}/${name}`, accept ? { 'accept-encoding': accept } : {});
        expect(r.status).toBe(200);
        expect(r.headers['content-encoding']).toBe(expected);
        expect(r.headers.vary).toMatch(/accept-encoding/i);
        expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(decoded(r).equals(original)).toBe(true);
        if (expected) expect(r.body.length).toBeLessThan(original.length / 2);
        const type = name.endsWith('.js') ? /javascript/ : name.endsWith('.css') ? /text\/css/ : /json/;
        expect(r.headers['content-type']).toMatch(type);
      }
    });
  }

  it('does not serve the compressed copies or index.html as files of their own', async () => {
    const br = await get(`${server.url}/assets/index-Ab12Cd34.js.br`);
    expect(br.status).toBe(404);
    expect(br.headers['cache-control'] ?? '').not.toMatch(/immutable/);
    const index = await get(`${server.url}/index.html`, { 'accept-encoding': 'br' });
    expect(index.headers['cache-control']).toBe('no-cache');
  });

  it('answers a hashed file with its ETag: a 304 for a copy the client holds, a bodiless HEAD', async () => {
    const first = await get(`${server.url}/assets/index-Ab12Cd34.js`, { 'accept-encoding': 'br' });
    const etag = first.headers.etag!;
    expect(etag).toBeTruthy();
    const again = await get(`${server.url}/assets/index-Ab12Cd34.js`, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.request(`${server.url}/assets/index-Ef56Gh78.css`, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } }, resolve).on('error', reject).end();
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('serves a file a deploy wrote after the server started, and nothing outside the folder', async () => {
    const later = 'assets/later-Qr78St90.js';
    writeFileSync(path.join(dist, later), `export const later = 1;\n${filler(100)}`);
    precompressDir(dist);
    const r = await get(`${server.url}/${later}`, { 'accept-encoding': 'br' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('br');
    expect(decoded(r).toString()).toMatch(/^export const later = 1;/);
    for (const probe of ['/assets/..%2Findex.html', '/assets/%2E%2E%2Findex.html', '/assets/.hidden', '/assets/index-Ab12Cd34.js.gz']) {
      const bad = await get(`${server.url}${probe}`);
      expect(bad.status, probe).toBe(404);
      expect(bad.body.toString()).not.toMatch(/<html/i);
    }
  });

  it('answers a missing asset with a 404 that is not cached for a year', async () => {
    const r = await get(`${server.url}/assets/gone-00000000.js`, { 'accept-encoding': 'br' });
    expect(r.status).toBe(404);
    expect(r.headers['cache-control'] ?? '').not.toMatch(/immutable/);
  });
});

describe('index.html', () => {
  it('is compressed when accepted, no-cache, with an ETag that answers 304', async () => {
    const plain = await get(`${server.url}/online-form`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(plain.headers['cache-control']).toBe('no-cache');
    const etag = plain.headers.etag!;
    expect(etag).toMatch(/^W\/".+"$/);

    const br = await get(`${server.url}/online-form`, { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(decoded(br).equals(plain.body)).toBe(true);
    const gz = await get(`${server.url}/`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decoded(gz).equals(plain.body)).toBe(true);

    const again = await get(`${server.url}/online-form`, { 'if-none-match': etag, 'accept-encoding': 'br' });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    const stale = await get(`${server.url}/online-form`, { 'if-none-match': 'W/"something-else"' });
    expect(stale.status).toBe(200);
  });
});

describe('API answers', () => {
  it('compresses JSON over 1 kB when accepted and leaves small JSON alone', async () => {
    const big = await get(`${server.url}/api/public/site-look-and-feel/language/da`, { host: 'localhost', 'accept-encoding': 'gzip, br' });
    expect(big.status).toBe(200);
    expect(big.headers['content-encoding']).toBe('br');
    expect(big.headers.vary).toMatch(/accept-encoding/i);
    const body = JSON.parse(decoded(big).toString('utf8'));
    expect(body.languageCode).toBe('da');
    expect(decoded(big).length).toBeGreaterThan(1024);

    const gz = await get(`${server.url}/api/public/case/company-info`, { host: 'localhost', 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    if (decoded(gz).length > 1024) expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decoded(gz).toString('utf8')).protectionOfficers.length).toBeGreaterThan(0);

    const small = await get(`${server.url}/config/config.json`, { 'accept-encoding': 'br' });
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();

    const refused = await get(`${server.url}/api/public/site-look-and-feel/language/da`, { host: 'localhost' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.body.toString('utf8')).languageCode).toBe('da');
  });
});

describe('the identity provider’s answers', () => {
  // They are written by oidc-provider (Koa) on the raw response, past Fastify's hooks.
  const discovery = () => `${server.url}/idp/realms/whistleblower/.well-known/openid-configuration`;

  it('are compressed over 1 kB when accepted, by the same rules as the API’s', async () => {
    const plain = await get(discovery(), { host: 'localhost' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(JSON.parse(plain.body.toString('utf8')).issuer).toMatch(/\/idp\/realms\/whistleblower$/);

    for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['deflate', undefined]] as const) {
      const r = await get(discovery(), { host: 'localhost', 'accept-encoding': accept });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(encoding);
      expect(r.headers.vary).toMatch(/accept-encoding/i);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(decoded(r).equals(plain.body)).toBe(true);
      if (encoding) expect(r.body.length).toBeLessThan(plain.body.length);
    }
  });

  it('leave a small answer as it is', async () => {
    const r = await get(`${server.url}/idp/realms/whistleblower/no-such-endpoint`, { host: 'localhost', 'accept-encoding': 'br' });
    expect(r.status).toBe(404);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(r.body.toString('utf8')).error.code).toBe('NOT_FOUND');
  });
});

describe('robots.txt', () => {
  it('keeps every page out of search engines unless the company allows indexing', async () => {
    const r = await get(`${server.url}/robots.txt`, { host: 'localhost' });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body.toString()).toBe('User-agent: *\nDisallow: /\n');
    const unknown = await get(`${server.url}/robots.txt`, { host: 'nobody.test' });
    expect(unknown.body.toString()).toBe('User-agent: *\nDisallow: /\n');

    const f = companyFixture({ id: 'open-co', hosts: ['open.test'] });
    await importCompany(server.ctx.db, validateBundle({ ...f.file, allowIndexing: true }, f.assets));
    const open = await get(`${server.url}/robots.txt`, { host: 'open.test' });
    expect(open.body.toString()).toMatch(/^User-agent: \*\nAllow: \/\n/);
    expect(open.body.toString()).toContain('Disallow: /private');
    expect(open.body.toString()).toContain('Disallow: /api/');
  });
});
