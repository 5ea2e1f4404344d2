/**
 * The record of a sealed phone case on the server (docs/decisions/record-versions.md
 * "Sealed cases"; server/cases/sealed-record.ts): the handler's browser seals each
 * version and hashes its plaintext; the server stores envelope and hash as sent, keeps
 * the version rules of the usual record, refuses a malformed envelope with 400
 * BAD_ENVELOPE storing nothing; the reporter's comment is sealed too, and the approval
 * names the latest version's hash. No marker reaches a row in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, expectError } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn } from './identity-flow.ts';
import { sealCase, type PublicKeyLog, certifiedHandler, setKeyAnchor, followedAccount } from '../helpers/sealed-case.ts';
import {
  fieldContext, fromBase64, keyId, openComments, openFieldText, openRecordVersions, openSealedBox, recordHash, sealComment, sealRecordVersion, toBase64, unwrapDataKey, RECORD_COLUMNS, type HandlerKeys,
} from '../../core/crypto/index.ts';

const HOST = 'sealed-record.test';
const MARKER = 'MARKER-record-91c2';
const PASSWORD = 'a long sealed phone password';
let server: TestServer;
let officers: string[];
let recovery: HandlerKeys;
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };
let otto: { id: string; token: string };

const log = async () => (await call(server, 'GET', '/api/public/key-log', { host: HOST })).data as PublicKeyLog;
const count = async (t: 'case_record_version' | 'case_comment') => Number((await server.ctx.db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);



/** A sealed case of this channel through the browser's sealed route, followed. */
async function sealedCase(submissionType: 'PHONE' | 'MEETING' | 'ONLINE_FORM') {
  const account = await followedAccount(server, HOST, PASSWORD);
  const sealed = await sealCase(await log(), { officerId: officers[0]!, details: { whistleblowerRelation: 'Employee' }, whistleblower: { name: `Wanda ${MARKER}` }, account, submissionType });
  const res = await call(server, 'POST', '/api/public/case/new/sealed', { host: HOST, json: sealed.body });
  expect(res.status, JSON.stringify(res.data)).toBe(201);
  return { ...sealed, caseNumber: account.caseNumber, reporterKey: account.reporterKey };
}

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  officers = (await addCompany(server.ctx.db, { id: 'sealedrec', hosts: [HOST], officers: 2 })).officerIds;
  recovery = await setKeyAnchor(server, 'sealedrec');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, HOST, { companyId: 'sealedrec', name: 'Hanne', officerIds: [officers[0]!], certifier: recovery }));
  otto = await createHandlerAccount(server.ctx.db, 'sealedrec', 'Otto', { officers: [officers[1]!] });
});
afterAll(async () => server?.cleanup());

describe('the record of a sealed phone case', () => {
  it('is sealed and hashed by the handler, opened and checked by the reporter, commented and approved over its hash; the handler opens the comment and sees the approval', async () => {
    const c = await sealedCase('PHONE');
    const path = `/api/handler/cases/${c.caseNumber}`;
    const post = (json: unknown, token = hanne.token) => call(server, 'POST', `${path}/record/sealed`, { token, json });
    const row = () => server.ctx.db.selectFrom('report_case').selectAll().where('id', '=', c.caseId).executeTakeFirstOrThrow();
    expect((await row()).submission_type).toBe('PHONE');
    expect((await row()).creation_channel).toBe('BY_PHONE');

    // The handler's sealed read: the channel, no record yet.
    const first = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    expect(first.status).toBe(200);
    expect(first.data).toMatchObject({ submissionType: 'PHONE', approvedAt: null, status: 'PENDING_WHISTLEBLOWER_CONTACT', record: { versions: [], comments: [] } });
    const hanneId = await keyId(hanneKeys.ecdhSpki);
    const dataKey = await openSealedBox(hanneKeys.ecdh, fromBase64(first.data.wrap.wrap), { caseId: c.caseId, epoch: 1, recipientKeyId: hanneId });

    const tokens = await signIn(new Browser(server, HOST), c.caseNumber, PASSWORD);
    const reporter = (method: string, p: string, json?: unknown) => call(server, method, `/api/private/case${p}`, { host: HOST, token: tokens.access_token, json });
    expectError(await reporter('PUT', '/approve', { sha256: await recordHash('nothing') }), 409, 'NO_RECORD_YET');

    // Version 1, sealed and hashed in the handler's browser.
    const v1Text = `Called on Monday. ${MARKER} said the till was short.`;
    const v1 = await sealRecordVersion(dataKey, c.caseId, 1, v1Text);
    const stored = await post(v1);
    expect(stored.status, JSON.stringify(stored.data)).toBe(201);
    expect(stored.data).toEqual({ version: 1, changed: true });
    const rows = await server.ctx.db.selectFrom('case_record_version').selectAll().where('case_id', '=', c.caseId).execute();
    expect(rows).toHaveLength(1);
    expect(toBase64(rows[0]!.text_enc)).toBe(v1.text);
    expect(rows[0]!.sha256).toBe(await recordHash(v1Text));
    // The additional data names the version: it opens as version 1 only.
    expect(await openFieldText(dataKey, fieldContext(c.caseId, RECORD_COLUMNS.version, '1'), rows[0]!.text_enc)).toBe(v1Text);
    await expect(openFieldText(dataKey, fieldContext(c.caseId, RECORD_COLUMNS.version, '2'), rows[0]!.text_enc)).rejects.toThrow();
    expect((await row()).status).toBe('RECEIVED');
    expect((await row()).report_enc).toBeNull();

    // The same text again changes nothing.
    expect((await post(await sealRecordVersion(dataKey, c.caseId, 2, v1Text))).data).toEqual({ version: 1, changed: false });
    expect(await count('case_record_version')).toBe(1);

    // The reporter opens it and checks the hash against the text it opened.
    const mine = await reporter('GET', '/my-case/sealed');
    expect(mine.status).toBe(200);
    expect(mine.data.submissionType).toBe('PHONE');
    const reporterDk = await unwrapDataKey(c.reporterKey, fromBase64(mine.data.wrap.wrap), { caseId: c.caseId, epoch: 1 });
    const opened = await openRecordVersions(reporterDk, c.caseId, mine.data.record.versions);
    expect(opened).toEqual([expect.objectContaining({ version: 1, text: v1Text, verified: true, approvedAt: null })]);

    // A sealed comment; the plain comment path has no key for this case.
    const comment = await sealComment(reporterDk, c.caseId, `Not Monday, Tuesday ${MARKER}`);
    const sent = await reporter('POST', '/comments/sealed', comment);
    expect(sent.status, JSON.stringify(sent.data)).toBe(201);
    expect(sent.data.id).toBe(comment.id);
    expectError(await reporter('POST', '/comments/sealed', comment), 409, 'COMMENT_ID_TAKEN');
    expectError(await reporter('POST', '/comments', { comment: 'plain' }), 409, 'CASE_SEALED');
    // The handler opens the comment.
    const withComment = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    expect(await openComments(dataKey, c.caseId, withComment.data.record.comments)).toEqual([{ id: comment.id, created: sent.data.created, text: `Not Monday, Tuesday ${MARKER}` }]);

    // Version 2 after the comment; an approval of version 1's hash is stale.
    const v2Text = `Called on Tuesday. ${MARKER} said the till was short.`;
    expect((await post(await sealRecordVersion(dataKey, c.caseId, 2, v2Text))).status).toBe(201);
    expectError(await reporter('PUT', '/approve', { sha256: v1.sha256 }), 409, 'RECORD_CHANGED', 'sha256');
    expectError(await reporter('PUT', '/approve', {}), 400, 'VALIDATION', 'sha256');
    const approved = await reporter('PUT', '/approve', { sha256: await recordHash(v2Text) });
    expect(approved.status, JSON.stringify(approved.data)).toBe(200);
    expect(approved.data.sha256).toBe(await recordHash(v2Text));
    expect((await row()).approved_at).not.toBeNull();
    expectError(await reporter('PUT', '/approve', { sha256: await recordHash(v2Text) }), 409, 'ALREADY_APPROVED');
    expectError(await reporter('POST', '/comments/sealed', await sealComment(reporterDk, c.caseId, 'late')), 409, 'ALREADY_APPROVED');

    // The handler sees version 2 approved, version 1 not.
    const after = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    expect(after.data.approvedAt).toBe(approved.data.approvedAt);
    const versions = await openRecordVersions(dataKey, c.caseId, after.data.record.versions);
    expect(versions.map((v) => [v.version, v.verified, v.approvedAt !== null])).toEqual([[1, true, false], [2, true, true]]);
    expect(versions[1]!.approvedAt).toBe(approved.data.approvedAt);

    // A new version after the approval awaits approval again; version 2 keeps its approval time.
    expect((await post(await sealRecordVersion(dataKey, c.caseId, 3, `${v2Text} Amended.`))).status).toBe(201);
    const reopened = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    expect(reopened.data.approvedAt).toBeNull();
    expect(reopened.data.record.versions.map((v: { approvedAt: string | null }) => v.approvedAt !== null)).toEqual([false, true, false]);

    // No marker in clear in any row of the case's tables.
    for (const table of ['report_case', 'case_record_version', 'case_comment', 'case_message', 'case_status_event', 'mail_outbox', 'case_key_wrap'] as const) {
      const all = await server.ctx.db.selectFrom(table as 'report_case').selectAll().execute();
      const text = JSON.stringify(all, (_k, v) => (v && typeof v === 'object' && (v.type === 'Buffer' || v instanceof Uint8Array) ? Buffer.from(v.data ?? v).toString('latin1') : v));
      expect(text, table).not.toContain(MARKER);
    }
  });

  it('names the author of each version to handlers, and refuses a version sealed on an older one with the current number (409 RECORD_VERSION_CONFLICT), storing nothing', async () => {
    const c = await sealedCase('PHONE');
    const path = `/api/handler/cases/${c.caseNumber}`;
    const post = (json: unknown) => call(server, 'POST', `${path}/record/sealed`, { token: hanne.token, json });
    const view = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    const dataKey = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { caseId: c.caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    expect((await post(await sealRecordVersion(dataKey, c.caseId, 1, 'first'))).status).toBe(201);
    expect((await post(await sealRecordVersion(dataKey, c.caseId, 2, 'theirs, on 1'))).status).toBe(201);
    const before = await count('case_record_version');
    // A second writer who opened version 1 seals hers as version 2 too.
    const stale = await post(await sealRecordVersion(dataKey, c.caseId, 2, 'mine, also on 1'));
    expectError(stale, 409, 'RECORD_VERSION_CONFLICT', 'version');
    expect(stale.data.error.currentVersion).toBe(2);
    expect(await count('case_record_version')).toBe(before);
    // On top of theirs it is taken.
    expect((await post(await sealRecordVersion(dataKey, c.caseId, 3, 'mine, also on 1'))).status).toBe(201);
    const read = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    expect(read.data.record.versions.map((v: { version: number; author: string; authorId: string }) => [v.version, v.author, v.authorId])).toEqual([[1, 'Hanne', hanne.id], [2, 'Hanne', hanne.id], [3, 'Hanne', hanne.id]]);
    const opened = await openRecordVersions(dataKey, c.caseId, read.data.record.versions);
    expect(opened.map((v) => [v.text, v.author, v.verified])).toEqual([['first', 'Hanne', true], ['theirs, on 1', 'Hanne', true], ['mine, also on 1', 'Hanne', true]]);
    // The reporter's read names no handler.
    const tokens = await signIn(new Browser(server, HOST), c.caseNumber, PASSWORD);
    const mine = await call(server, 'GET', '/api/private/case/my-case/sealed', { host: HOST, token: tokens.access_token });
    expect(JSON.stringify(mine.data.record)).not.toContain('Hanne');
    expect(mine.data.record.versions[0]).not.toHaveProperty('authorId');
  });

  it('refuses what is malformed, out of turn, on the wrong case or path, storing nothing', async () => {
    const c = await sealedCase('MEETING');
    const path = `/api/handler/cases/${c.caseNumber}`;
    const post = (json: unknown, token = hanne.token) => call(server, 'POST', `${path}/record/sealed`, { token, json });
    const view = await call(server, 'GET', `${path}/sealed`, { token: hanne.token });
    const dataKey = await openSealedBox(hanneKeys.ecdh, fromBase64(view.data.wrap.wrap), { caseId: c.caseId, epoch: 1, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });
    const good = await sealRecordVersion(dataKey, c.caseId, 1, `Met at the café ${MARKER}`);
    const before = await count('case_record_version');

    const wrongVersionByte = Buffer.from(fromBase64(good.text));
    wrongVersionByte[0] = 9;
    expectError(await post({ ...good, text: toBase64(wrongVersionByte) }), 400, 'BAD_ENVELOPE', 'text');
    expectError(await post({ ...good, text: toBase64(new Uint8Array(12)) }), 400, 'BAD_ENVELOPE', 'text');
    expectError(await post({ ...good, text: 'not base64!' }), 400, 'VALIDATION');
    expectError(await post({ ...good, sha256: 'ABC' }), 400, 'VALIDATION');
    expectError(await post({ ...good, version: 0 }), 400, 'VALIDATION');
    const outOfTurn = await post({ ...good, version: 2 });
    expectError(outOfTurn, 409, 'RECORD_VERSION_CONFLICT', 'version');
    expect(outOfTurn.data.error.currentVersion).toBe(0);
    // The other officer's handler does not see the case; the usual path has no key for it.
    expectError(await post(good, otto.token), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'PUT', `${path}/report`, { token: hanne.token, json: { text: 'plain' } }), 409, 'CASE_SEALED');
    expect(await count('case_record_version')).toBe(before);
    expect((await server.ctx.db.selectFrom('report_case').select('status').where('id', '=', c.caseId).executeTakeFirstOrThrow()).status).toBe('PENDING_WHISTLEBLOWER_CONTACT');

    // A sealed online case has no record; a server-keyed case is recorded on the usual path.
    const online = await sealedCase('ONLINE_FORM');
    expectError(await call(server, 'POST', `/api/handler/cases/${online.caseNumber}/record/sealed`, { token: hanne.token, json: good }), 409, 'NOT_AN_ORAL_CASE');

    // A malformed comment is refused and not stored.
    const tokens = await signIn(new Browser(server, HOST), c.caseNumber, PASSWORD);
    const comments = await count('case_comment');
    const bad = await call(server, 'POST', '/api/private/case/comments/sealed', { host: HOST, token: tokens.access_token, json: { id: crypto.randomUUID(), body: toBase64(new Uint8Array(20)) } });
    expectError(bad, 400, 'BAD_ENVELOPE', 'body');
    expectError(await call(server, 'POST', '/api/private/case/comments/sealed', { host: HOST, token: tokens.access_token, json: { id: 'nope', body: good.text } }), 400, 'VALIDATION');
    expect(await count('case_comment')).toBe(comments);
    expect((await post(good)).status).toBe(201);
  });
});
