/**
 * The sealed case's browser effects (src/handler/sealed.ts) with real core/crypto and a
 * stand-in for the server's answers: a colleague is offered for a grant only when the
 * verified log certifies the key for the officer and the account is live and holds that
 * key; the box is sealed to the log's key; a message that does not open is null beside
 * the rest; no wrap opens to `refused` when the wrap is not this account's.
 */
import { describe, expect, it } from 'vitest';
import {
  fieldContext, hashKeyLogEntry, keyId, makeDataKey, makeHandlerKeys, openSealedBox, sealField, sealToPublicKey, signKeyLogEntry, toBase64, verifyKeyLog, SEALED_COLUMNS,
  type HandlerKeys, type KeyLogEntry, openRecordVersions, recordHash, sealComment, sealRecordVersion,
} from '../../core/crypto/index.ts';
import { sealedCaseEffects } from '../../src/handler/sealed.ts';
import type { SealedView } from '../../machines/handler/sealedCase.ts';
import type { ApiClient } from '../../src/api/client.ts';

const CASE_ID = '00000000-0000-4000-8000-0000000000aa';

async function logOf(recovery: HandlerKeys, subjects: { id: string; keys: HandlerKeys; officers: string[] }[]) {
  const entries: KeyLogEntry[] = [];
  for (const s of subjects) {
    const prev = entries.at(-1);
    entries.push(await signKeyLogEntry(recovery.ecdsa.privateKey, {
      seq: entries.length + 1, handlerId: s.id, ecdhSpki: toBase64(s.keys.ecdhSpki), ecdsaSpki: toBase64(s.keys.ecdsaSpki), officerIds: s.officers,
      addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(recovery.ecdsaSpki),
    }));
  }
  return entries;
}

function fakeApi(answers: Record<string, unknown>, sent: { path: string; body: unknown }[] = []): ApiClient {
  return {
    json: async (path: string, init?: { body?: unknown }) => {
      if (init?.body !== undefined) {
        sent.push({ path, body: init.body });
        return {};
      }
      if (!(path in answers)) throw new Error(`unexpected ${path}`);
      return answers[path];
    },
  } as unknown as ApiClient;
}

describe('sealed case effects', () => {
  it('offers only live, certified colleagues entitled to the officer who hold no wrap, and seals to the key from the log', async () => {
    const recovery = await makeHandlerKeys();
    const [me, greta, otto, dora, nils, swapped, holder] = await Promise.all(Array.from({ length: 7 }, () => makeHandlerKeys()));
    const serverKey = await makeHandlerKeys();
    const entries = await logOf(recovery, [
      { id: 'me', keys: me!, officers: ['A'] },
      { id: 'greta', keys: greta!, officers: ['A'] },
      { id: 'otto', keys: otto!, officers: ['B'] },
      { id: 'dora', keys: dora!, officers: ['A'] },
      { id: 'nils', keys: nils!, officers: [] },
      { id: 'swapped', keys: swapped!, officers: ['A'] },
      { id: 'holder', keys: holder!, officers: ['A'] },
    ]);
    const result = await verifyKeyLog(entries, recovery.ecdsaSpki);
    expect(result.ok).toBe(true);
    const colleague = (id: string, k: HandlerKeys, disabled = false) => ({ id, name: id, email: `${id}@example.org`, ecdhSpki: toBase64(k.ecdhSpki), ecdsaSpki: toBase64(k.ecdsaSpki), officerIds: [], disabled });
    const sent: { path: string; body: unknown }[] = [];
    const api = fakeApi({
      '/api/handler/keys/colleagues': {
        handlers: [colleague('me', me!), colleague('greta', greta!), colleague('otto', otto!), colleague('dora', dora!, true), colleague('nils', nils!), colleague('swapped', serverKey), colleague('holder', holder!)],
      },
      '/api/handler/cases/1111222233334444/key-wraps': { epoch: 1, recipientKeyIds: [await keyId(me!.ecdhSpki), await keyId(holder!.ecdhSpki)] },
    }, sent);
    const fx = sealedCaseEffects(api, { verifiedLog: async () => ({ ok: true, log: { anchor: null, entries }, anchorId: null, result }) as never });
    const answer = await fx.loadCandidates({ caseNumber: '1111222233334444', officerId: 'A', handlerId: 'me' });
    expect(answer.status).toBe('ok');
    const candidates = answer.status === 'ok' ? answer.candidates : [];
    // Greta (officer A) and Nils (tied to no officer); not me, not Otto (B), not Dora (disabled), not the swapped key, not a holder.
    expect(candidates.map((c) => c.handlerId)).toEqual(['greta', 'nils']);
    // The holder (not me) is the one a revocation can name.
    expect(answer.status === 'ok' ? answer.holders.map((c) => c.handlerId) : []).toEqual(['holder']);
    expect(candidates[0]!.recipientKeyId).toBe(await keyId(greta!.ecdhSpki));

    const dataKey = makeDataKey();
    expect((await fx.grantKey({ caseNumber: '1111222233334444', caseId: CASE_ID, epoch: 1, dataKey, candidate: candidates[0]! })).status).toBe(201);
    const body = sent[0]!.body as { recipientKeyId: string; wrap: string };
    expect(sent[0]!.path).toBe('/api/handler/cases/1111222233334444/key-wraps');
    const opened = await openSealedBox(greta!.ecdh, Uint8Array.from(atob(body.wrap), (c) => c.charCodeAt(0)), { caseId: CASE_ID, epoch: 1, recipientKeyId: body.recipientKeyId });
    expect(Buffer.from(opened)).toEqual(Buffer.from(dataKey));
  });

  it('revokes by sealing the next epoch to every other holder\'s key from the verified log and the anchor, never to the revoked one', async () => {
    const recovery = await makeHandlerKeys();
    const [me, greta, ida] = await Promise.all([makeHandlerKeys(), makeHandlerKeys(), makeHandlerKeys()]);
    const entries = await logOf(recovery, [{ id: 'me', keys: me!, officers: ['A'] }, { id: 'greta', keys: greta!, officers: ['A'] }, { id: 'ida', keys: ida!, officers: ['A'] }]);
    const result = await verifyKeyLog(entries, recovery.ecdsaSpki);
    const ids = { me: await keyId(me!.ecdhSpki), greta: await keyId(greta!.ecdhSpki), ida: await keyId(ida!.ecdhSpki), recovery: await keyId(recovery.ecdhSpki) };
    const holders = (extra: string[] = []) => ({
      epoch: 1, reporter: true, recipientKeyIds: [],
      holders: [{ recipientKeyId: ids.me, kind: 'handler' }, { recipientKeyId: ids.greta, kind: 'handler' }, { recipientKeyId: ids.ida, kind: 'handler' }, { recipientKeyId: ids.recovery, kind: 'recovery' }, ...extra.map((k) => ({ recipientKeyId: k, kind: 'handler' }))],
    });
    const verifiedLog = async () => ({ ok: true, log: { anchor: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }, entries }, anchorId: 'a', result }) as never;
    const path = '/api/handler/cases/1111222233334444/key-wraps';
    const sent: { path: string; body: unknown }[] = [];
    const fx = sealedCaseEffects(fakeApi({ [path]: holders() }, sent), { verifiedLog });
    const dataKey = makeDataKey();
    const holder = { handlerId: 'greta', name: 'greta', email: null, recipientKeyId: ids.greta, ecdhSpki: toBase64(greta!.ecdhSpki) };
    expect(await fx.revokeKey({ caseNumber: '1111222233334444', caseId: CASE_ID, epoch: 1, dataKey, holder })).toEqual({ status: 201, code: undefined });
    expect(sent[0]!.path).toBe('/api/handler/cases/1111222233334444/key-epochs');
    const body = sent[0]!.body as { epoch: number; revoke: string; wraps: { recipientKeyId: string; kind: string; wrap: string }[]; next: string | null };
    expect(body.epoch).toBe(2);
    expect(body.revoke).toBe(ids.greta);
    expect(body.next).not.toBeNull();
    expect(body.wraps.map((w) => w.recipientKeyId).sort()).toEqual([ids.me, ids.ida, ids.recovery].sort());
    const idaWrap = body.wraps.find((w) => w.recipientKeyId === ids.ida)!;
    const newKey = await openSealedBox(ida!.ecdh, Uint8Array.from(atob(idaWrap.wrap), (c) => c.charCodeAt(0)), { caseId: CASE_ID, epoch: 2, recipientKeyId: ids.ida });
    expect(Buffer.from(newKey)).not.toEqual(Buffer.from(dataKey));
    // A holder the log does not certify here stops the revocation: nothing is sent.
    const stranger = await keyId((await makeHandlerKeys()).ecdhSpki);
    const none: { path: string; body: unknown }[] = [];
    const fx2 = sealedCaseEffects(fakeApi({ [path]: holders([stranger]) }, none), { verifiedLog });
    expect(await fx2.revokeKey({ caseNumber: '1111222233334444', caseId: CASE_ID, epoch: 1, dataKey, holder })).toEqual({ status: 409, code: 'HOLDER_UNVERIFIED' });
    expect(none).toEqual([]);
  });

  it('offers nobody when the log does not verify here', async () => {
    const fx = sealedCaseEffects(fakeApi({}), { verifiedLog: async () => ({ ok: false, reason: 'fork' }) as never });
    expect(await fx.loadCandidates({ caseNumber: '1', officerId: 'A', handlerId: 'me' })).toEqual({ status: 'refused', reason: 'fork' });
  });

  it('opens each part on its own: an altered message is null beside the rest; a wrap to another key is refused', async () => {
    const me = await makeHandlerKeys();
    const other = await makeHandlerKeys();
    const dataKey = makeDataKey();
    const myId = await keyId(me.ecdhSpki);
    const seal = async (column: string, text: string, row = '') => toBase64(await sealField(dataKey, fieldContext(CASE_ID, column, row), text));
    const good = await seal(SEALED_COLUMNS.messageBody, 'first', 'm1');
    const view: SealedView = {
      caseNumber: '1111222233334444', caseId: CASE_ID, status: 'RECEIVED', created: '2026-12-01T10:00:00.000Z', protectionOfficerId: 'A', subsidiaryId: null, epoch: 1, files: [],
      envelopes: { details: await seal(SEALED_COLUMNS.details, JSON.stringify({ description: 'the till' })), whistleblower: await seal(SEALED_COLUMNS.whistleblower, JSON.stringify({ name: 'Wanda' })) },
      wrap: { recipientKeyId: myId, kind: 'handler', wrap: toBase64(await sealToPublicKey(me.ecdhSpki, dataKey, { caseId: CASE_ID, epoch: 1, recipientKeyId: myId })) },
      messages: [
        { id: 'm1', type: 'STANDARD', time: '2026-12-01T10:00:00.000Z', createdByUserId: '1111222233334444', answerWanted: false, body: good },
        // Sealed for another row: moved, so it does not open here.
        { id: 'm2', type: 'STANDARD', time: '2026-12-01T11:00:00.000Z', createdByUserId: 'h2', answerWanted: false, body: good },
      ],
    };
    const fx = sealedCaseEffects(fakeApi({ '/api/handler/keys/colleagues': { handlers: [{ id: 'h2', name: 'Greta' }] } }), { verifiedLog: async () => ({ ok: false, reason: 'x' }) as never });
    const keys = { ecdh: me.ecdh, ecdsa: me.ecdsa, ecdhSpki: me.ecdhSpki, ecdsaSpki: me.ecdsaSpki };
    const answer = await fx.openCase(view, keys);
    expect(answer.outcome).toBe('opened');
    if (answer.outcome !== 'opened') return;
    expect(answer.opened.details?.description).toBe('the till');
    expect(answer.opened.whistleblower).toEqual({ name: 'Wanda' });
    expect(answer.opened.messages.map((m) => m.text)).toEqual(['first', null]);
    expect(answer.opened.senders).toEqual({ h2: 'Greta' });
    const theirs = { ecdh: other.ecdh, ecdsa: other.ecdsa, ecdhSpki: other.ecdhSpki, ecdsaSpki: other.ecdsaSpki };
    expect(await fx.openCase(view, theirs)).toEqual({ outcome: 'refused' });
  });

  it('opens the record of a phone case with each hash checked and the comments; the next version is sealed and hashed here', async () => {
    const me = await makeHandlerKeys();
    const dataKey = makeDataKey();
    const myId = await keyId(me.ecdhSpki);
    const v1 = await sealRecordVersion(dataKey, CASE_ID, 1, 'Called on Monday.');
    const comment = await sealComment(dataKey, CASE_ID, 'It was Tuesday.');
    const view: SealedView = {
      caseNumber: '1111222233334444', caseId: CASE_ID, status: 'RECEIVED', created: '2026-12-01T10:00:00.000Z', protectionOfficerId: 'A', subsidiaryId: null, epoch: 1, files: [], messages: [],
      envelopes: { details: toBase64(await sealField(dataKey, fieldContext(CASE_ID, SEALED_COLUMNS.details), '{}')), whistleblower: null },
      wrap: { recipientKeyId: myId, kind: 'handler', wrap: toBase64(await sealToPublicKey(me.ecdhSpki, dataKey, { caseId: CASE_ID, epoch: 1, recipientKeyId: myId })) },
      submissionType: 'PHONE', approvedAt: null,
      record: {
        versions: [{ ...v1, createdAt: 'c1', approvedAt: null }, { version: 2, sha256: v1.sha256, text: v1.text, createdAt: 'c2', approvedAt: null }],
        comments: [{ ...comment, created: 't' }],
      },
    };
    const sent: { path: string; body: unknown }[] = [];
    const fx = sealedCaseEffects(fakeApi({ '/api/handler/keys/colleagues': { handlers: [] } }, sent), { verifiedLog: async () => ({ ok: false, reason: 'x' }) as never });
    const answer = await fx.openCase(view, { ecdh: me.ecdh, ecdsa: me.ecdsa, ecdhSpki: me.ecdhSpki, ecdsaSpki: me.ecdsaSpki });
    if (answer.outcome !== 'opened') throw new Error('not opened');
    // Version 2's envelope is version 1's, moved: it does not open, and is not verified.
    expect(answer.opened.record.versions.map((v) => [v.version, v.text, v.verified])).toEqual([[1, 'Called on Monday.', true], [2, null, false]]);
    expect(answer.opened.record.comments).toEqual([{ id: comment.id, created: 't', text: 'It was Tuesday.' }]);

    expect(await fx.saveRecord({ caseNumber: '1111-2222-3333-4444', caseId: CASE_ID, dataKey, version: 3, text: 'Called on Tuesday.' })).toEqual({ status: 200 });
    expect(sent[0]!.path).toBe('/api/handler/cases/1111222233334444/record/sealed');
    const body = sent[0]!.body as { version: number; text: string; sha256: string };
    expect(JSON.stringify(body)).not.toContain('Tuesday');
    expect(body.version).toBe(3);
    expect(body.sha256).toBe(await recordHash('Called on Tuesday.'));
    expect(await openRecordVersions(dataKey, CASE_ID, [{ ...body, createdAt: '', approvedAt: null }])).toEqual([expect.objectContaining({ text: 'Called on Tuesday.', verified: true })]);
  });
});
