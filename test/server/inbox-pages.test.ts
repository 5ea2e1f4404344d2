/**
 * The handler inbox in pages (issue 41 §2): GET /api/handler/cases takes a page size
 * and the cursor the previous page ended with, and applies status, channel and
 * case-number search before paging. Walking the pages yields every visible case
 * exactly once, newest first; a bad page size or cursor is a 400 VALIDATION naming
 * the field.
 *
 * On the code before: the route ignored `limit` and `cursor` and answered every case at
 * once, with no `nextCursor`, so the first test failed on its first page's length.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form, oralDto } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { INBOX_PAGE } from '../../machines/schema.ts';

let server: TestServer;
let token: string;
let otherToken: string;
const phone: string[] = [];
const online: string[] = [];
let elsewhere: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  const officer = (await addCompany(server.ctx.db, { id: 'acme', hosts: ['acme.test'] })).officerIds[0]!;
  const otherOfficer = (await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] })).officerIds[0]!;
  token = (await createHandlerAccount(server.ctx.db, 'acme', 'Hanne Handler')).token;
  otherToken = (await createHandlerAccount(server.ctx.db, 'other', 'Olaf Other')).token;
  for (let i = 0; i < 4; i++) phone.push((await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'acme.test', json: oralDto(officer) })).data.caseDto.caseNumber);
  for (let i = 0; i < 3; i++) online.push((await call(server, 'POST', '/api/public/case/new/by-form', { host: 'acme.test', body: form('caseDto', caseDto(officer)) })).data.caseDto.caseNumber);
  elsewhere = (await call(server, 'POST', '/api/public/case/new/by-phone', { host: 'other.test', json: oralDto(otherOfficer) })).data.caseDto.caseNumber;
});
afterAll(async () => server?.cleanup());

async function walk(query: string, t = token): Promise<{ pages: string[][]; all: string[] }> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const res = await call(server, 'GET', `/api/handler/cases?${query}${cursor ? `&cursor=${cursor}` : ''}`, { token: t });
    expect(res.status, JSON.stringify(res.data)).toBe(200);
    pages.push(res.data.cases.map((c: { caseNumber: string }) => c.caseNumber));
    cursor = res.data.nextCursor;
    expect(pages.length).toBeLessThan(20);
  } while (cursor);
  return { pages, all: pages.flat() };
}

describe('GET /api/handler/cases in pages', () => {
  it('pages of the size asked, every case once, newest first, the last page without a cursor', async () => {
    const { pages, all } = await walk('limit=3');
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(all).toEqual([...online].reverse().concat([...phone].reverse()));
    expect(new Set(all).size).toBe(7);
    expect(all).not.toContain(elsewhere);
  });

  it('without a page size: the default page, one page here, nextCursor null', async () => {
    const res = await call(server, 'GET', '/api/handler/cases', { token });
    expect(res.data.cases).toHaveLength(7);
    expect(res.data.nextCursor).toBeNull();
    expect(INBOX_PAGE.default).toBeGreaterThanOrEqual(7);
  });

  it('filters before paging: a channel, a status, digits of the case number', async () => {
    expect((await walk('limit=2&channel=PHONE')).all).toEqual([...phone].reverse());
    expect((await walk('limit=2&channel=ONLINE_FORM')).all).toEqual([...online].reverse());
    expect((await walk('limit=2&status=RECEIVED')).all).toEqual([...online].reverse());
    expect((await walk('status=CLOSED')).all).toEqual([]);
    const n = phone[1]!;
    expect((await walk(`search=${encodeURIComponent(`${n.slice(0, 4)} ${n.slice(4, 8)} ${n.slice(8, 12)} ${n.slice(12)}`)}`)).all).toEqual([n]);
    const part = n.slice(3, 12);
    expect((await walk(`limit=1&search=${part}`)).all).toEqual([...phone, ...online].filter((c) => c.includes(part)).reverse());
    // Another company's case is not found by its number.
    expect((await walk(`search=${elsewhere}`)).all).toEqual([]);
    expect((await walk(`search=${elsewhere}`, otherToken)).all).toEqual([elsewhere]);
  });

  it('a cursor of another filter or company reveals nothing beyond the handler\'s own cases', async () => {
    const first = await call(server, 'GET', '/api/handler/cases?limit=1', { token: otherToken });
    expect(first.data.cases.map((c: { caseNumber: string }) => c.caseNumber)).toEqual([elsewhere]);
    expect(first.data.nextCursor).toBeNull();
    const mine = await call(server, 'GET', '/api/handler/cases?limit=1', { token });
    const theirs = await call(server, 'GET', `/api/handler/cases?cursor=${mine.data.nextCursor}`, { token: otherToken });
    expect(theirs.status).toBe(200);
    expect(theirs.data.cases.map((c: { caseNumber: string }) => c.caseNumber)).not.toContain(phone[0]);
  });

  it('refuses a bad page size, cursor or filter with 400 VALIDATION naming the field', async () => {
    for (const [q, field] of [
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=abc', 'limit'],
      [`limit=${INBOX_PAGE.max + 1}`, 'limit'],
      ['cursor=not%20a%20cursor', 'cursor'],
      [`cursor=${Buffer.from('yesterday|nope').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from(`2026-01-01T00:00:00.000Z|${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}|x`).toString('base64url')}`, 'cursor'],
      ['status=OPEN', 'status'],
      ['channel=FAX', 'channel'],
      [`search=${'1'.repeat(41)}`, 'search'],
    ] as const) {
      expectError(await call(server, 'GET', `/api/handler/cases?${q}`, { token }), 400, 'VALIDATION', field);
    }
    expect((await call(server, 'GET', `/api/handler/cases?limit=${INBOX_PAGE.max}`, { token })).status).toBe(200);
  });
});
