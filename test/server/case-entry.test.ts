/**
 * A report that came by letter, e-mail or in person, entered by a handler (issue 38
 * Build 8; docs/decisions/handler-entered-reports.md), against the real server.
 *
 * - A company that seals: the handler's side seals as a browser does (core/crypto:
 *   the reservation, the reporter keys from the generated password, the data key wrapped
 *   to every entitled key), the server stores only envelopes; the reporter signs in with
 *   case number and password and her wrap opens the report; the clocks start at the
 *   received day; CASE_ENTERED names the channel; the inbox shows it.
 * - A server-keyed company: the plain route seals on the server, the reporter signs in.
 * - Refusals, each storing nothing: bad input 400 with its code, a received day in the
 *   future or too long ago, a handler of another company, a handler of another officer,
 *   the plain route at a company that seals, a missing wrap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn, signInWithVerifier } from './identity-flow.ts';
import { certifiedHandler, publicKeyLog, setKeyAnchor } from '../helpers/sealed-case.ts';
import {
  deriveReporterKeys, fromBase64, makeCasePassword, openCaseKey, openCaseParts, openSealedBox, PBKDF2_DEFAULT, recipientsFor, sealNewCase, sealedDetailsOf, unwrapDataKey,
  type HandlerKeys,
} from '../../core/crypto/index.ts';
import { ACKNOWLEDGEMENT_DAYS } from '../../machines/schema.ts';

const SEALED_HOST = 'sealed.test';
const PLAIN_HOST = 'plain.test';
const DAY = 24 * 3600 * 1000;
const MARKER = 'MARKER-entry-letter-5c1e';

let server: TestServer;
let sealedOfficers: string[];
let plainOfficers: string[];
let hanne: { id: string; token: string };
let hanneKeys: HandlerKeys;
let plainToken: string;
let otherCompanyToken: string;
let tiedToken: string;

/** A day `days` before today (UTC), as the entry form's date field gives it. */
const dayBefore = (days: number) => new Date(Date.now() - days * DAY).toISOString().slice(0, 10);

const content = (officerId: string, over: Record<string, unknown> = {}) => ({
  channel: 'LETTER',
  receivedOn: dayBefore(3),
  whistleblowerRelation: 'Former employee',
  protectionOfficer: { id: officerId },
  description: `The letter says the fuel cards were shared. ${MARKER}`,
  violation: 'FRAUD',
  repeatedViolations: true,
  reportedPersons: [{ name: 'Per Persson', jobTitle: 'Fleet manager', phoneOrEmail: 'per@example.org' }],
  reportedUnit: 'Fleet',
  ...over,
});

/** What the handler's browser does at a company that seals (src/handler/caseEntry.ts), with the same core/crypto calls. */
async function sealedEntry(token: string, officerId: string, opts: { follow: boolean; over?: Record<string, unknown>; dropWrap?: 'handler' } = { follow: true }) {
  const password = makeCasePassword();
  let caseAccount: unknown = { follow: false };
  let reporterKey: CryptoKey | null = null;
  let caseNumber: string | null = null;
  if (opts.follow) {
    const r = await call(server, 'POST', '/api/handler/case-entry/reservation', { token });
    expect(r.status, JSON.stringify(r.data)).toBe(201);
    caseNumber = r.data.caseNumber;
    const keys = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password, salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
    reporterKey = keys.reporterKey;
    caseAccount = { follow: true, reservation: r.data.reservation, verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT };
  }
  const recipients = await recipientsFor(await publicKeyLog(server, SEALED_HOST), officerId);
  if (!recipients.ok) throw new Error(recipients.reason);
  const c = content(officerId);
  const sealed = await sealNewCase(recipients, {
    details: sealedDetailsOf({ ...c, reportedPersons: c.reportedPersons }),
    whistleblower: { name: `Wanda ${MARKER}`, email: null, phone: null },
    reporterKey,
  });
  const body = {
    caseId: sealed.caseId,
    channel: c.channel,
    receivedOn: c.receivedOn,
    protectionOfficer: c.protectionOfficer,
    caseAccount,
    envelopes: sealed.envelopes,
    wraps: opts.dropWrap ? sealed.wraps.filter((w) => w.kind !== opts.dropWrap) : sealed.wraps,
    ...opts.over,
  };
  const res = await call(server, 'POST', '/api/handler/case-entry/sealed', { token, json: body });
  return { res, password, caseNumber, caseId: sealed.caseId, reporterKey, body };
}

const caseCount = async () => Number((await server.ctx.db.selectFrom('report_case').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  sealedOfficers = (await addCompany(server.ctx.db, { id: 'sealed', hosts: [SEALED_HOST], officers: 2 })).officerIds;
  plainOfficers = (await addCompany(server.ctx.db, { id: 'plain', hosts: [PLAIN_HOST], officers: 1 })).officerIds;
  await addCompany(server.ctx.db, { id: 'other', hosts: ['other.test'] });
  const recovery = await setKeyAnchor(server, 'sealed');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, SEALED_HOST, { companyId: 'sealed', name: 'Hanne', officerIds: [sealedOfficers[0]!], certifier: recovery }));
  // The second officer's handler, so the log entitles a key to each officer.
  await certifiedHandler(server, SEALED_HOST, { companyId: 'sealed', name: 'Otto', officerIds: [sealedOfficers[1]!], certifier: hanneKeys });
  tiedToken = (await createHandlerAccount(server.ctx.db, 'sealed', 'Tove Tied', { officers: [sealedOfficers[1]!] })).token;
  plainToken = (await createHandlerAccount(server.ctx.db, 'plain', 'Petra Plain')).token;
  otherCompanyToken = (await createHandlerAccount(server.ctx.db, 'other', 'Olaf Other')).token;
});
afterAll(async () => server?.cleanup());

describe('a report entered at a company that seals', () => {
  it('is stored as the handler\'s side sealed it; the reporter signs in with the slip\'s number and password and opens it; the clocks start at the received day; CASE_ENTERED and the inbox name the channel', async () => {
    const form = await call(server, 'GET', '/api/handler/case-entry', { token: hanne.token });
    expect(form.status).toBe(200);
    expect(form.data.officers.map((o: { id: string }) => o.id)).toContain(sealedOfficers[0]);

    const entry = await sealedEntry(hanne.token, sealedOfficers[0]!, { follow: true });
    expect(entry.res.status, JSON.stringify(entry.res.data)).toBe(201);
    expect(entry.res.data.caseDto).toMatchObject({ caseNumber: entry.caseNumber, status: 'RECEIVED', entryChannel: 'LETTER' });

    const row = await server.ctx.db.selectFrom('report_case').selectAll().where('id', '=', entry.caseId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: true, wrapped_key: null, entry_channel: 'LETTER', submission_type: 'ONLINE_FORM' });
    expect(Buffer.from(row.details_enc).toString('latin1')).not.toContain(MARKER);
    const account = await server.ctx.db.selectFrom('case_account').selectAll().where('case_id', '=', entry.caseId).executeTakeFirstOrThrow();
    expect(JSON.stringify(account)).not.toContain(entry.password);

    // The clocks: received at the day's start (UTC), acknowledgement due 7 days later.
    const received = new Date(`${dayBefore(3)}T00:00:00.000Z`);
    const events = await server.ctx.db.selectFrom('case_status_event').select(['status', 'at']).where('case_id', '=', entry.caseId).execute();
    expect(events.map((e) => [e.status, new Date(e.at).toISOString()])).toEqual([['RECEIVED', received.toISOString()]]);
    const inbox = await call(server, 'GET', '/api/handler/cases', { token: hanne.token });
    const inRow = inbox.data.cases.find((c: { caseNumber: string }) => c.caseNumber === entry.caseNumber);
    expect(inRow).toMatchObject({ entryChannel: 'LETTER', receivedDate: received.toISOString(), deadline: { kind: 'ACKNOWLEDGEMENT', due: new Date(received.getTime() + ACKNOWLEDGEMENT_DAYS * DAY).toISOString() } });

    // The handler's own wrap opens it.
    const view = await call(server, 'GET', `/api/handler/cases/${entry.caseNumber}/sealed`, { token: hanne.token });
    expect(view.status).toBe(200);
    expect(view.data.entryChannel).toBe('LETTER');
    const handlerKey = await openCaseKey(view.data, { ecdh: { privateKey: hanneKeys.ecdh.privateKey, publicKey: hanneKeys.ecdhSpki }, keyId: view.data.wrap.recipientKeyId });
    const opened = await openCaseParts<{ description: string; violation: string }, { name: string }>(handlerKey, view.data);
    expect(opened.details).toMatchObject({ description: expect.stringContaining(MARKER), violation: 'FRAUD' });
    expect(opened.whistleblower).toMatchObject({ name: `Wanda ${MARKER}` });
    expect(view.data.audit).toContainEqual(expect.objectContaining({ action: 'CASE_ENTERED', handlerName: 'Hanne', detail: { channel: 'LETTER', receivedOn: dayBefore(3), follow: true } }));

    // The reporter signs in with the slip's case number and password (the verifier derived from them) and her wrap opens the same key.
    const tokens = await signInWithVerifier(new Browser(server, SEALED_HOST), entry.caseNumber!, entry.password);
    expect(tokens.tokens?.access_token).toBeTruthy();
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: SEALED_HOST, token: tokens.tokens!.access_token });
    expect(mine.status).toBe(200);
    const reporterKey = await unwrapDataKey(entry.reporterKey!, fromBase64(mine.data.wrap.wrap), { caseId: entry.caseId, epoch: 1 });
    expect(Buffer.from(reporterKey).equals(Buffer.from(handlerKey))).toBe(true);
    // A wrong password does not sign in.
    expect((await signInWithVerifier(new Browser(server, SEALED_HOST), entry.caseNumber!, `${entry.password}x`)).refused).toBeTruthy();
  });

  it('takes a report nobody follows: no reservation, no reporter wrap, no account', async () => {
    const entry = await sealedEntry(hanne.token, sealedOfficers[0]!, { follow: false, over: { channel: 'IN_PERSON' } });
    expect(entry.res.status, JSON.stringify(entry.res.data)).toBe(201);
    const wraps = await server.ctx.db.selectFrom('case_key_wrap').select(['kind']).where('case_id', '=', entry.caseId).execute();
    expect(wraps.map((w) => w.kind).sort()).toEqual(['handler', 'recovery']);
    expect(await server.ctx.db.selectFrom('case_account').select('case_id').where('case_id', '=', entry.caseId).executeTakeFirst()).toBeUndefined();
    // The recovery key's box holds the same data key a handler's does: both were wrapped.
    const box = await server.ctx.db.selectFrom('case_key_wrap').select('wrap').where('case_id', '=', entry.caseId).where('kind', '=', 'handler').executeTakeFirstOrThrow();
    const { keyId } = await import('../../core/crypto/index.ts');
    expect((await openSealedBox(hanneKeys.ecdh, new Uint8Array(box.wrap), { caseId: entry.caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) })).length).toBe(32);
  });

  it('refuses what a browser must not send, storing nothing: a missing wrap, the plain route, another officer\'s handler, another company\'s handler, a day in the future', async () => {
    const before = await caseCount();
    const missing = await sealedEntry(hanne.token, sealedOfficers[0]!, { follow: true, dropWrap: 'handler' });
    expect(missing.res.status).toBe(400);
    expect(missing.res.data.error.code).toBe('WRAP_MISSING');

    const plain = await call(server, 'POST', '/api/handler/case-entry', { token: hanne.token, json: { ...content(sealedOfficers[0]!), caseAccount: { follow: true, password: makeCasePassword() } } });
    expect(plain.status).toBe(409);
    expect(plain.data.error.code).toBe('SEALING_REQUIRED');

    // Tove handles the second officer only: she may not make a case she could not see.
    const tied = await sealedEntry(tiedToken, sealedOfficers[0]!, { follow: false });
    expect(tied.res.status).toBe(403);
    expect(tied.res.data.error.code).toBe('OFFICER_NOT_ENTITLED');

    // Olaf's company has no such officer: his token names his own company, never another's.
    const foreign = await sealedEntry(otherCompanyToken, sealedOfficers[0]!, { follow: false });
    expect(foreign.res.status).toBe(400);
    expect(foreign.res.data.error.code).toBe('UNKNOWN_OFFICER');
    const foreignPlain = await call(server, 'POST', '/api/handler/case-entry', { token: otherCompanyToken, json: { ...content(sealedOfficers[0]!), caseAccount: { follow: false } } });
    expect(foreignPlain.status).toBe(400);
    expect(foreignPlain.data.error.code).toBe('UNKNOWN_OFFICER');

    const future = await sealedEntry(hanne.token, sealedOfficers[0]!, { follow: false, over: { receivedOn: new Date(Date.now() + 2 * DAY).toISOString().slice(0, 10) } });
    expect(future.res.status).toBe(400);
    expect(future.res.data.error).toMatchObject({ code: 'VALIDATION', field: 'receivedOn', fields: [{ field: 'receivedOn', rule: 'entry.receivedFuture' }] });

    // Without a session or token: 401.
    expect((await call(server, 'POST', '/api/handler/case-entry/sealed', { host: SEALED_HOST, json: missing.body })).status).toBe(401);
    expect(await caseCount()).toBe(before);
  });
});

describe('a report entered at a server-keyed company', () => {
  it('is sealed by the server as on the plain routes; the reporter signs in with the number and the generated password; the case and inbox show the channel and the received day', async () => {
    const password = makeCasePassword();
    expect(password).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){4}$/);
    const res = await call(server, 'POST', '/api/handler/case-entry', {
      token: plainToken,
      json: { ...content(plainOfficers[0]!, { channel: 'EMAIL', receivedOn: dayBefore(0), whistleblower: { name: 'Eva Email', email: 'eva@example.org' } }), caseAccount: { follow: true, password } },
    });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    const { caseNumber } = res.data.caseDto;
    expect(res.data.caseDto).toMatchObject({ status: 'RECEIVED', entryChannel: 'EMAIL' });
    const row = await server.ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', caseNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed: false, entry_channel: 'EMAIL' });
    expect(Buffer.from(row.details_enc).toString('latin1')).not.toContain(MARKER);

    const view = await call(server, 'GET', `/api/handler/cases/${caseNumber}`, { token: plainToken });
    expect(view.status).toBe(200);
    expect(view.data).toMatchObject({ entryChannel: 'EMAIL', description: expect.stringContaining(MARKER), violation: 'FRAUD', whistleblower: { name: 'Eva Email' }, receivedDate: `${dayBefore(0)}T00:00:00.000Z` });
    expect(view.data.audit).toContainEqual(expect.objectContaining({ action: 'CASE_ENTERED', detail: { channel: 'EMAIL', receivedOn: dayBefore(0), follow: true } }));
    const inbox = await call(server, 'GET', '/api/handler/cases', { token: plainToken });
    expect(inbox.data.cases.find((c: { caseNumber: string }) => c.caseNumber === caseNumber)).toMatchObject({ entryChannel: 'EMAIL' });

    const tokens = await signIn(new Browser(server, PLAIN_HOST), caseNumber, password);
    const mine = await call(server, 'GET', '/api/private/case/my-case', { host: PLAIN_HOST, token: tokens.access_token });
    expect(mine.status).toBe(200);
    expect(mine.data).toMatchObject({ caseNumber, description: expect.stringContaining(MARKER) });
  });

  it('refuses bad input with 400 and its code, storing nothing', async () => {
    const before = await caseCount();
    const send = (json: unknown) => call(server, 'POST', '/api/handler/case-entry', { token: plainToken, json });
    const base = { ...content(plainOfficers[0]!), caseAccount: { follow: false } };
    const cases: [unknown, string, string | undefined][] = [
      [{ ...base, channel: 'PIGEON' }, 'VALIDATION', 'channel'],
      [{ ...base, description: '' }, 'VALIDATION', 'description'],
      [{ ...base, reportedPersons: [], reportedUnit: null }, 'VALIDATION', undefined],
      [{ ...base, receivedOn: '2026-02-30' }, 'VALIDATION', 'receivedOn'],
      [{ ...base, receivedOn: dayBefore(400) }, 'VALIDATION', 'receivedOn'],
      [{ ...base, receivedOn: new Date(Date.now() + 2 * DAY).toISOString().slice(0, 10) }, 'VALIDATION', 'receivedOn'],
      [{ ...base, caseAccount: { follow: true, password: 'x' } }, 'VALIDATION', 'caseAccount.password'],
      [{ ...base, protectionOfficer: { id: 'nobody' } }, 'UNKNOWN_OFFICER', 'protectionOfficer.id'],
      ['not json', 'BAD_JSON', undefined],
    ];
    for (const [json, code, field] of cases) {
      const res = await send(json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.data.error.code, JSON.stringify(res.data)).toBe(code);
      if (field) expect(res.data.error.field).toBe(field);
    }
    expect(await caseCount()).toBe(before);
  });
});
