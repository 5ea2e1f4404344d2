/**
 * An answer given before the request's body was read (issue 36, finding 6c): a 5 MB
 * JSON body to a 1 MB route, a tus PATCH at the wrong offset, a multipart message
 * refused by its token or its budget. The client must read the answer, with the
 * product's error code, and never see its connection reset (EPIPE, ECONNRESET) while
 * it is still sending. Over real sockets (node:http), against the real server.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, solveChallenge } from './api.ts';
import { Browser, newCase, signIn } from './identity-flow.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ caseWriteRateLimit: { max: 1, windowSeconds: 600 } });
});
afterAll(async () => server?.cleanup());

interface Outcome {
  status?: number;
  body?: string;
  /** The socket error the client saw while sending or reading, if any. */
  error?: string;
}

/** Sends `size` bytes as fast as the socket takes them, as a script or a browser does, and reads the answer. */
function send(method: string, p: string, headers: Record<string, string>, size: number, chunk = 64 * 1024): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = {};
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      resolve(out);
    };
    const req = http.request(`${server.url}${p}`, { method, headers: { ...headers, 'content-length': String(size) }, agent: false });
    req.on('response', (res) => {
      out.status = res.statusCode;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        out.body = Buffer.concat(parts).toString('utf8');
        // Give a reset that follows the answer the time to show.
        setTimeout(done, 50);
      });
      res.on('error', (err: NodeJS.ErrnoException) => {
        out.error ??= err.code ?? err.message;
        done();
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      out.error ??= err.code ?? err.message;
      if (out.body !== undefined || out.status === undefined) setTimeout(done, 50);
    });
    req.on('close', () => setTimeout(done, 100));
    const piece = Buffer.alloc(chunk, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const n = Math.min(chunk, size - sent);
        sent += n;
        if (!req.write(n === chunk ? piece : piece.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

function expectAnswered(o: Outcome, status: number, code: string, i: number) {
  expect({ try: i, error: o.error, status: o.status }).toEqual({ try: i, error: undefined, status });
  expect(JSON.parse(o.body!).error.code).toBe(code);
}

const FIVE_MB = 5 * 1024 * 1024;

describe('an early refusal is read by the client', () => {
  it('20 tries with a 5 MB JSON body to /api/public/case/new/by-meeting: every one reads 413 BODY_TOO_LARGE, never EPIPE or ECONNRESET', async () => {
    for (let i = 0; i < 20; i++) {
      const proof = await solveChallenge(server);
      const o = await send('POST', '/api/public/case/new/by-meeting', { ...proof, 'content-type': 'application/json', 'x-company-host': 'localhost' }, FIVE_MB);
      expectAnswered(o, 413, 'BODY_TOO_LARGE', i);
    }
  });

  it('a tus PATCH refused before its 5 MB body is read (wrong offset) is read by the client too', async () => {
    const session = await call(server, 'POST', '/api/public/upload-sessions', { host: 'localhost' });
    expect(session.status, JSON.stringify(session.data)).toBe(201);
    const tus = { 'tus-resumable': '1.0.0', 'x-upload-session': session.data.uploadSession as string };
    const created = await fetch(`${server.url}/api/public/uploads`, {
      method: 'POST',
      headers: { ...tus, 'x-company-host': 'localhost', 'upload-length': String(FIVE_MB), 'upload-metadata': `filename ${Buffer.from('a.pdf').toString('base64')}` },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    for (let i = 0; i < 5; i++) {
      const o = await send('PATCH', location, { ...tus, 'x-company-host': 'localhost', 'upload-offset': '17', 'content-type': 'application/offset+octet-stream' }, FIVE_MB);
      expect(o.error, `try ${i}`).toBeUndefined();
      expect(o.status, `try ${i}`).toBe(409);
      expect(JSON.parse(o.body!).error.code).toBeTruthy();
    }
  });

  it('a multipart message refused before its body is read (bad token, spent budget) is read by the client too', async () => {
    const caseNumber = await newCase(server);
    const token = (await signIn(new Browser(server, 'localhost'), caseNumber, 'pass1234')).access_token;
    const multipart = { 'content-type': 'multipart/form-data; boundary=x', 'x-company-host': 'localhost' };
    for (let i = 0; i < 5; i++) {
      expectAnswered(await send('POST', '/api/private/case/messages/new', { ...multipart, authorization: 'Bearer not.a.jwt' }, FIVE_MB), 401, 'UNAUTHORIZED', i);
    }
    // The case's budget is one write: the first (a bad body) spends it, the rest are 429.
    await send('POST', '/api/private/case/messages/new', { ...multipart, authorization: `Bearer ${token}` }, 1024);
    for (let i = 0; i < 5; i++) {
      expectAnswered(await send('POST', '/api/private/case/messages/new', { ...multipart, authorization: `Bearer ${token}` }, FIVE_MB), 429, 'RATE_LIMITED', i);
    }
  });
});
