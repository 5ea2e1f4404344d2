/**
 * Internal notes (issue 38 Build 1; docs/decisions/internal-notes.md; server/cases/notes.ts)
 * over the real server and database: sealed by the handler's browser on a sealed case and
 * by the server on a server-keyed one, a malformed envelope refused and never stored, an
 * edit over another's version refused 409, another officer's handler refused as for any
 * case they may not see, no reporter route answering with a note, and the audit trail
 * naming each save without its text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, expectError, form } from './api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { Browser, signIn } from './identity-flow.ts';
import { certifiedHandler, followedAccount, sealCase, setKeyAnchor, type PublicKeyLog } from '../helpers/sealed-case.ts';
import { fieldContext, fromBase64, keyId, openNote, openSealedBox, sealField, sealNote, toBase64, NOTE_COLUMN, type HandlerKeys } from '../../core/crypto/index.ts';

const SEALED_HOST = 'notes-sealed.test';
const PLAIN_HOST = 'notes-plain.test';
const MARKER = 'MARKER-note-7f3a';
const PASSWORD = 'a long sealed notes password';
let server: TestServer;
let sealedOfficers: string[];
let plainOfficers: string[];
let hanneKeys: HandlerKeys;
let hanne: { id: string; token: string };
let otto: { id: string; token: string };
let pia: { id: string; token: string };
let per: { id: string; token: string };
let oskar: { id: string; token: string };

const count = async () => Number((await server.ctx.db.selectFrom('case_note').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const notesOf = (token: string, n: string) => call(server, 'GET', `/api/handler/cases/${n}/notes`, { token });
const noteActs = (audit: { action: string; handlerName: string; detail: Record<string, unknown> }[]) => audit.filter((e) => e.action.startsWith('NOTE_')).map((e) => [e.action, e.handlerName, e.detail]);

beforeAll(async () => {
  server = await startTestServer({ seedDemo: false, sealedCases: 'browser' });
  sealedOfficers = (await addCompany(server.ctx.db, { id: 'notesealed', hosts: [SEALED_HOST], officers: 2 })).officerIds;
  const recovery = await setKeyAnchor(server, 'notesealed');
  ({ account: hanne, keys: hanneKeys } = await certifiedHandler(server, SEALED_HOST, { companyId: 'notesealed', name: 'Hanne', officerIds: [sealedOfficers[0]!], certifier: recovery }));
  otto = await createHandlerAccount(server.ctx.db, 'notesealed', 'Otto', { officers: [sealedOfficers[1]!] });
  plainOfficers = (await addCompany(server.ctx.db, { id: 'noteplain', hosts: [PLAIN_HOST], officers: 2 })).officerIds;
  pia = await createHandlerAccount(server.ctx.db, 'noteplain', 'Pia', { officers: [plainOfficers[0]!] });
  per = await createHandlerAccount(server.ctx.db, 'noteplain', 'Per', {});
  oskar = await createHandlerAccount(server.ctx.db, 'noteplain', 'Oskar', { officers: [plainOfficers[1]!] });
});
afterAll(async () => server?.cleanup());

describe('internal notes on a server-keyed case', () => {
  it('are sealed by the server, versioned, named by author and editor, refused over another version, and in the audit trail without their text', async () => {
    const created = await call(server, 'POST', '/api/public/case/new/by-form', { host: PLAIN_HOST, body: form('caseDto', caseDto(plainOfficers[0]!)) });
    expect(created.status).toBe(201);
    const n = created.data.caseDto.caseNumber as string;
    const row = await server.ctx.db.selectFrom('report_case').select(['id', 'sealed']).where('case_number', '=', n).executeTakeFirstOrThrow();
    expect(row.sealed).toBe(false);
    expect((await notesOf(pia.token, n)).data).toEqual({ sealed: false, notes: [] });

    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: pia.token, json: { text: '   ' } }), 400, 'VALIDATION');
    const added = await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: pia.token, json: { text: `Interview with the cashier: ${MARKER}` } });
    expect(added.status, JSON.stringify(added.data)).toBe(201);
    const note = added.data.note;
    expect(note).toMatchObject({ version: 1, text: `Interview with the cashier: ${MARKER}`, author: { id: pia.id, name: 'Pia' }, editedBy: null });

    // Sealed at rest under the case's key, bound to the note and its version.
    const stored = await server.ctx.db.selectFrom('case_note').selectAll().where('id', '=', note.id).executeTakeFirstOrThrow();
    expect(Buffer.from(stored.body_enc).toString('latin1')).not.toContain(MARKER);

    // Per (tied to no officer, sees every case) edits over version 1; Pia's edit over 1 then is refused.
    const edited = await call(server, 'PUT', `/api/handler/cases/${n}/notes/${note.id}`, { token: per.token, json: { text: 'Per: the cashier was not on shift.', version: 1 } });
    expect(edited.status, JSON.stringify(edited.data)).toBe(200);
    expect(edited.data.note).toMatchObject({ version: 2, text: 'Per: the cashier was not on shift.', author: { name: 'Pia' }, editedBy: { id: per.id, name: 'Per' } });
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${note.id}`, { token: pia.token, json: { text: 'Pia: mine', version: 1 } }), 409, 'NOTE_CHANGED', 'version');
    expect((await notesOf(pia.token, n)).data.notes.map((x: { text: string; version: number }) => [x.version, x.text])).toEqual([[2, 'Per: the cashier was not on shift.']]);
    // Over the version she now read, it lands.
    expect((await call(server, 'PUT', `/api/handler/cases/${n}/notes/${note.id}`, { token: pia.token, json: { text: 'Pia: both agree.', version: 2 } })).data.note.version).toBe(3);
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${crypto.randomUUID()}`, { token: pia.token, json: { text: 'x', version: 1 } }), 404, 'NOTE_NOT_FOUND');
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/not-a-uuid`, { token: pia.token, json: { text: 'x', version: 1 } }), 404, 'NOTE_NOT_FOUND');

    // Another officer's handler: the case does not exist for him, notes included, and nothing is written.
    const before = await count();
    expectError(await notesOf(oskar.token, n), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: oskar.token, json: { text: 'not mine' } }), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${note.id}`, { token: oskar.token, json: { text: 'not mine', version: 3 } }), 404, 'CASE_NOT_FOUND');
    expect(await count()).toBe(before);

    const audit = (await call(server, 'GET', `/api/handler/cases/${n}`, { token: pia.token })).data.audit;
    expect(noteActs(audit)).toEqual([
      ['NOTE_ADDED', 'Pia', { noteId: note.id }],
      ['NOTE_EDITED', 'Per', { noteId: note.id, version: 2 }],
      ['NOTE_EDITED', 'Pia', { noteId: note.id, version: 3 }],
    ]);
    expect(JSON.stringify(audit)).not.toContain(MARKER);

    // No reporter route answers with a note.
    const tokens = await signIn(new Browser(server, PLAIN_HOST), n, 'pass1234');
    for (const p of ['/my-case', '/messages']) {
      const r = await call(server, 'GET', `/api/private/case${p}`, { host: PLAIN_HOST, token: tokens.access_token });
      expect(r.status, p).toBe(200);
      const text = JSON.stringify(r.data);
      expect(text).not.toContain(MARKER);
      expect(text).not.toContain('both agree');
      expect(text).not.toContain(note.id);
    }
  });
});

describe('internal notes on a sealed case', () => {
  it('store only the envelope the browser sealed under the current epoch, refuse a malformed one without storing it, and stay off the reporter routes', async () => {
    const account = await followedAccount(server, SEALED_HOST, PASSWORD);
    const log = (await call(server, 'GET', '/api/public/key-log', { host: SEALED_HOST })).data as PublicKeyLog;
    const sealed = await sealCase(log, { officerId: sealedOfficers[0]!, details: { whistleblowerRelation: 'Employee' }, account });
    expect((await call(server, 'POST', '/api/public/case/new/sealed', { host: SEALED_HOST, json: sealed.body })).status).toBe(201);
    const n = account.caseNumber;
    const read = await call(server, 'GET', `/api/handler/cases/${n}/sealed`, { token: hanne.token });
    expect(read.status).toBe(200);
    const epoch = read.data.epoch as number;
    const dataKey = await openSealedBox(hanneKeys.ecdh, fromBase64(read.data.wrap.wrap), { caseId: sealed.caseId, epoch, recipientKeyId: await keyId(hanneKeys.ecdhSpki) });

    // A plain text is no envelope on a sealed case; a malformed envelope is 400 BAD_ENVELOPE; neither is stored.
    const id = crypto.randomUUID();
    const none = await count();
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { text: MARKER } }), 400, 'VALIDATION');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { id, body: toBase64(new Uint8Array(20)), epoch } }), 400, 'BAD_ENVELOPE', 'body');
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { id, body: 'not base64!', epoch } }), 400, 'VALIDATION');
    expect(await count()).toBe(none);

    const body = await sealNote(dataKey, sealed.caseId, id, 1, `Sealed note ${MARKER}`);
    // Another epoch than the current one is refused as for a message, and nothing is stored.
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { id, body, epoch: epoch + 1 } }), 409, 'EPOCH_STALE', 'epoch');
    expect(await count()).toBe(none);
    const added = await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { id, body, epoch } });
    expect(added.status, JSON.stringify(added.data)).toBe(201);
    expect(added.data.note).toMatchObject({ id, version: 1, body, epoch, author: { id: hanne.id, name: 'Hanne' }, editedBy: null });
    expect(added.data.note.text).toBeUndefined();
    const stored = await server.ctx.db.selectFrom('case_note').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(Buffer.from(stored.body_enc).toString('base64')).toBe(body);
    expect(stored.epoch).toBe(epoch);
    expectError(await call(server, 'POST', `/api/handler/cases/${n}/notes`, { token: hanne.token, json: { id, body, epoch } }), 409, 'NOTE_ID_TAKEN', 'id');

    // The list hands back the envelope; it opens here only bound to its id and version.
    const listed = (await notesOf(hanne.token, n)).data;
    expect(listed.sealed).toBe(true);
    expect(await openNote(dataKey, sealed.caseId, listed.notes[0])).toBe(`Sealed note ${MARKER}`);
    expect(await openNote(dataKey, sealed.caseId, { ...listed.notes[0], version: 2 })).toBeNull();

    // An edit: sealed as version 2 over the version read; a malformed one stores nothing; over an old version 409.
    const v2 = await sealNote(dataKey, sealed.caseId, id, 2, 'Second thoughts.');
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${id}`, { token: hanne.token, json: { body: toBase64(new Uint8Array([2, ...new Uint8Array(40)])), version: 1, epoch } }), 400, 'BAD_ENVELOPE', 'body');
    expect((await server.ctx.db.selectFrom('case_note').select('version').where('id', '=', id).executeTakeFirstOrThrow()).version).toBe(1);
    const edited = await call(server, 'PUT', `/api/handler/cases/${n}/notes/${id}`, { token: hanne.token, json: { body: v2, version: 1, epoch } });
    expect(edited.status, JSON.stringify(edited.data)).toBe(200);
    expect(edited.data.note).toMatchObject({ version: 2, body: v2, editedBy: { name: 'Hanne' } });
    const v2again = await sealNote(dataKey, sealed.caseId, id, 2, 'Written over version 1 again.');
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${id}`, { token: hanne.token, json: { body: v2again, version: 1, epoch } }), 409, 'NOTE_CHANGED', 'version');
    expect(await openNote(dataKey, sealed.caseId, (await notesOf(hanne.token, n)).data.notes[0])).toBe('Second thoughts.');

    // Nothing of the note's text is in the database in clear; an envelope under another field's context does not open as a note.
    const other = toBase64(await sealField(dataKey, fieldContext(sealed.caseId, 'case_message.body_enc', `${id}:1`), 'moved'));
    expect(await openNote(dataKey, sealed.caseId, { id, version: 1, body: other })).toBeNull();
    expect(NOTE_COLUMN).toBe('case_note.body_enc');

    // Otto (the other officer's handler) is refused as for any case he may not see.
    expectError(await notesOf(otto.token, n), 404, 'CASE_NOT_FOUND');
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${id}`, { token: otto.token, json: { body: v2again, version: 2, epoch } }), 404, 'CASE_NOT_FOUND');

    // The trail (in clear on a sealed case: who, when, the act and ids) names both saves, no text.
    const audit = (await call(server, 'GET', `/api/handler/cases/${n}/sealed`, { token: hanne.token })).data.audit;
    expect(noteActs(audit)).toEqual([
      ['NOTE_ADDED', 'Hanne', { noteId: id }],
      ['NOTE_EDITED', 'Hanne', { noteId: id, version: 2 }],
    ]);

    // The reporter's sealed read and messages carry neither the note's id nor its envelope.
    const tokens = await signIn(new Browser(server, SEALED_HOST), n, PASSWORD);
    for (const p of ['/my-case/sealed']) {
      const r = await call(server, 'GET', `/api/private/case${p}`, { host: SEALED_HOST, token: tokens.access_token });
      expect(r.status, `${p} ${JSON.stringify(r.data)}`).toBe(200);
      const text = JSON.stringify(r.data);
      expect(text).not.toContain(id);
      expect(text).not.toContain(v2);
      expect(text).not.toContain(body);
    }

    // A handler whose key of the case was revoked is refused its notes as its other sealed routes (403 CASE_KEY_REVOKED).
    await server.ctx.db.insertInto('case_key_revocation').values({ case_id: sealed.caseId, recipient_key_id: await keyId(hanneKeys.ecdhSpki), handler_id: hanne.id, epoch, created_at: new Date() }).execute();
    expectError(await notesOf(hanne.token, n), 403, 'CASE_KEY_REVOKED');
    expectError(await call(server, 'PUT', `/api/handler/cases/${n}/notes/${id}`, { token: hanne.token, json: { body: v2again, version: 2, epoch } }), 403, 'CASE_KEY_REVOKED');
  });
});
