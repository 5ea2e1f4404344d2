/**
 * POST /api/handler/cases/:n/exports (docs/decisions/case-export.md): the server records
 * an export the handler's browser is about to make, with its parts and the count of terms
 * blacked out, never content; a case the handler cannot see is 404 like any other, bad
 * bodies are 400 VALIDATION. A sealed case (a real one, sealed as the reporter's browser
 * seals it) is recorded the same way, its entry written in clear as every entry of a
 * sealed case is (sealed-workspace.md "Status and audit"), and shown by its sealed read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { certifiedHandler, publicKeyLog, sealCase, setKeyAnchor } from '../helpers/sealed-case.ts';

let server: TestServer;
let token: string;
let otherCompanyToken: string;
let otherOfficerToken: string;
let caseNumber: string;
let sealedNumber: string;
let sealedId: string;
let sealedToken: string;

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false });
  const [mine, theirs] = (await addCompany(server.ctx.db, { id: 'acme', hosts: ['acme.test'], officers: 2 })).officerIds as [string, string];
  await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] });
  token = (await createHandlerAccount(server.ctx.db, 'acme', 'Hanne Handler')).token;
  otherCompanyToken = (await createHandlerAccount(server.ctx.db, 'other', 'Olaf Other')).token;
  // Tied to the second officer only: the first officer's cases are not hers (officer scoping).
  otherOfficerToken = (await createHandlerAccount(server.ctx.db, 'acme', 'Tove Tied', { officers: [theirs] })).token;
  const report = (name: string) => call(server, 'POST', '/api/public/case/new/by-form', { host: 'acme.test', body: form('caseDto', caseDto(mine, { whistleblower: { name, email: 'jan@example.com' } }), [{ name: 'ledger.txt', bytes: 'page 4\n' }]) });
  caseNumber = (await report('Jan Kowalski')).data.caseDto.caseNumber;
  // A sealed case: the recovery key as the anchor, a certified handler, the case sealed to the key log.
  const recovery = await setKeyAnchor(server, 'acme');
  sealedToken = (await certifiedHandler(server, 'acme.test', { companyId: 'acme', name: 'Sigrid Sealed', officerIds: [mine], certifier: recovery })).account.token;
  const sealed = await sealCase(await publicKeyLog(server, 'acme.test'), { officerId: mine, details: { description: 'Sam Sealed approves twice', whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: '' } });
  const created = await call(server, 'POST', '/api/public/case/new/sealed', { host: 'acme.test', json: sealed.body });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  sealedNumber = created.data.caseDto.caseNumber;
  sealedId = sealed.caseId;
});
afterAll(async () => server?.cleanup());

const exportOf = (n: string, json: unknown, t = token) => call(server, 'POST', `/api/handler/cases/${n}/exports`, { token: t, json });
const auditOf = async (n: string) => (await call(server, 'GET', `/api/handler/cases/${n}`, { token })).data.audit as { action: string; handlerName: string; detail: Record<string, unknown> }[];

describe('recording a case export', () => {
  it('records the parts, whether the identity is in it and how many terms are blacked out (201), nothing else', async () => {
    const res = await exportOf(caseNumber, { parts: ['report', 'identity', 'files'], redactedTerms: 2 });
    expect(res.status).toBe(201);
    expect(res.data).toEqual({ recorded: true });
    const entry = (await auditOf(caseNumber)).filter((a) => a.action === 'CASE_EXPORTED');
    expect(entry).toEqual([{ at: expect.any(String), handlerId: expect.any(String), handlerName: 'Hanne Handler', action: 'CASE_EXPORTED', detail: { parts: 'report,identity,files', identity: true, redacted: true, redactedTerms: 2 } }]);
    expect(JSON.stringify(entry)).not.toContain('Kowalski');
  });

  it('records an export without the identity and without redaction as such', async () => {
    // The internal notes are a part chosen like any other, and the entry names it (docs/decisions/internal-notes.md).
    expect((await exportOf(caseNumber, { parts: ['messages', 'notes'], redactedTerms: 0 })).status).toBe(201);
    expect((await auditOf(caseNumber)).filter((a) => a.action === 'CASE_EXPORTED').at(-1)!.detail).toEqual({ parts: 'messages,notes', identity: false, redacted: false, redactedTerms: 0 });
  });

  it('refuses bad bodies with 400 VALIDATION and records nothing', async () => {
    const before = (await auditOf(caseNumber)).filter((a) => a.action === 'CASE_EXPORTED').length;
    for (const body of [
      {},
      { parts: [], redactedTerms: 0 },
      { parts: ['report', 'report'], redactedTerms: 0 },
      { parts: ['secrets'], redactedTerms: 0 },
      { parts: ['report'], redactedTerms: -1 },
      { parts: ['report'], redactedTerms: 51 },
      { parts: ['report'], redactedTerms: 1.5 },
      // The terms themselves are never taken: a body carrying them is refused.
      { parts: ['report'], redactedTerms: 1, terms: ['Jan Kowalski'] },
    ]) expectError(await exportOf(caseNumber, body), 400, 'VALIDATION');
    expect((await auditOf(caseNumber)).filter((a) => a.action === 'CASE_EXPORTED')).toHaveLength(before);
  });

  it('answers 404 CASE_NOT_FOUND for a case the handler cannot see: another company, another officer, none, malformed', async () => {
    const body = { parts: ['report'], redactedTerms: 0 };
    expectError(await exportOf(caseNumber, body, otherCompanyToken), 404, 'CASE_NOT_FOUND');
    expectError(await exportOf(caseNumber, body, otherOfficerToken), 404, 'CASE_NOT_FOUND');
    expectError(await exportOf('1234567812345678', body), 404, 'CASE_NOT_FOUND');
    expectError(await exportOf('abc', body), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'POST', `/api/handler/cases/${caseNumber}/exports`, { json: body }), 401, 'UNAUTHORIZED');
    expect((await auditOf(caseNumber)).filter((a) => a.action === 'CASE_EXPORTED').map((a) => a.handlerName)).toEqual(['Hanne Handler', 'Hanne Handler']);
  });

  it('records the export of a sealed case (201): one clear entry of parts, flags and a count, no envelope, shown by the sealed read', async () => {
    const rows = () => server.ctx.db.selectFrom('case_audit').select(['entry', 'entry_enc']).where('case_id', '=', sealedId).orderBy('id').execute();
    const before = (await rows()).length;
    const res = await exportOf(sealedNumber, { parts: ['report', 'identity', 'messages', 'files'], redactedTerms: 3 }, sealedToken);
    expect(res.status).toBe(201);
    expect(res.data).toEqual({ recorded: true });
    const written = (await rows()).slice(before);
    expect(written).toHaveLength(1);
    expect(written[0]!.entry_enc).toBeNull();
    const entry = typeof written[0]!.entry === 'string' ? JSON.parse(written[0]!.entry) : written[0]!.entry;
    expect(entry).toEqual({ handlerId: expect.any(String), handlerName: 'Sigrid Sealed', action: 'CASE_EXPORTED', detail: { parts: 'report,identity,messages,files', identity: true, redacted: true, redactedTerms: 3 } });
    const view = await call(server, 'GET', `/api/handler/cases/${sealedNumber}/sealed`, { token: sealedToken });
    expect(view.status).toBe(200);
    expect(view.data.audit.filter((a: { action?: string }) => a.action === 'CASE_EXPORTED').map((a: { detail: unknown }) => a.detail)).toEqual([entry.detail]);
    // The status history comes with the sealed read (clear data), for the export's part "status".
    expect(view.data.caseStatusHistory).toEqual([{ status: 'RECEIVED', dateTime: expect.any(String) }]);
    expect(JSON.stringify(written)).not.toContain('Sam Sealed');
  });

  it('refuses malformed details of a sealed case with 400 VALIDATION, and a handler of another officer with 404, recording nothing', async () => {
    const count = async () => (await server.ctx.db.selectFrom('case_audit').select('id').where('case_id', '=', sealedId).execute()).length;
    const before = await count();
    for (const body of [
      {},
      { parts: [], redactedTerms: 0 },
      { parts: ['identity', 'identity'], redactedTerms: 0 },
      { parts: ['everything'], redactedTerms: 0 },
      { parts: 'report', redactedTerms: 0 },
      { parts: ['report'], redactedTerms: '2' },
      { parts: ['report'], redactedTerms: 51 },
      { parts: ['report'], redactedTerms: 1, terms: ['Sam Sealed'] },
      { parts: ['report'], redactedTerms: 0, detail: { note: 'free text' } },
    ]) expectError(await exportOf(sealedNumber, body, sealedToken), 400, 'VALIDATION');
    expectError(await exportOf(sealedNumber, { parts: ['report'], redactedTerms: 0 }, otherOfficerToken), 404, 'CASE_NOT_FOUND');
    expectError(await exportOf(sealedNumber, { parts: ['report'], redactedTerms: 0 }, otherCompanyToken), 404, 'CASE_NOT_FOUND');
    expect(await count()).toBe(before);
  });
});
