/**
 * A case file leaves the server as it is stored, with its length, whatever encodings
 * the client accepts (issue 42, item 3): @fastify/compress took mime-db's word that
 * application/octet-stream is compressible, so a download asked with `br, gzip` came
 * back Brotli-compressed and chunked, slower, and with no total for a progress bar.
 * Raw HTTP, so nothing between the test and the server decodes or hides a header.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { call } from './api.ts';
import { Browser, newCase, signIn } from './identity-flow.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.cleanup());

/** Text compresses ten times over: the case most tempting to a compressor. */
const TEXT = 'The till was short by 200 kroner again on Friday.\n'.repeat(6000);

function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, path, headers: { 'accept-encoding': 'br, gzip', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function expectAsStored(res: Awaited<ReturnType<typeof get>>, size: number) {
  expect(res.status).toBe(200);
  expect(res.headers['content-encoding']).toBeUndefined();
  expect(res.headers['transfer-encoding']).toBeUndefined();
  expect(res.headers['content-length']).toBe(String(size));
  expect(res.headers['content-type']).toBe('application/octet-stream');
  expect(res.headers['content-disposition']).toMatch(/^attachment;/);
  expect(res.body.length).toBe(size);
  expect(res.body.toString('utf8')).toBe(TEXT);
}

describe('file downloads asked with Accept-Encoding: br, gzip', () => {
  it("go as they are, with Content-Length, to the handler and to the reporter", async () => {
    const caseNumber = await newCase(server, { files: [{ name: 'till.txt', bytes: TEXT, type: 'text/plain' }] });
    const company = await companyByHost(server.ctx.db, 'localhost');
    const { token } = await createHandlerAccount(server.ctx.db, company!.id, 'Hanne');
    const view = (await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token })).data;
    const file = view.files[0] as { id: string; size: number };
    expect(file.size).toBe(Buffer.byteLength(TEXT));

    expectAsStored(await get(`/api/handler/cases/${caseNumber}/files/${file.id}`, { authorization: `Bearer ${token}` }), file.size);

    const reporter = await signIn(new Browser(server), caseNumber, 'pass1234');
    expectAsStored(await get(`/api/private/case/files/${file.id}`, { authorization: `Bearer ${reporter.access_token}`, 'x-company-host': 'localhost' }), file.size);

    // The rest of the API still compresses what is worth it (the case view is JSON over 1 kB).
    const json = await get(`/api/handler/cases/${caseNumber}`, { authorization: `Bearer ${token}` });
    expect(json.headers['content-encoding']).toBe('br');
  });
});
