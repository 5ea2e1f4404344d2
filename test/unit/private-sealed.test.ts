/**
 * The private area's sealed case (src/private/sealed.ts), against a sealed view built
 * with core/crypto as the server answers it: the reporter key opens the details, the
 * identity and each message; a part that does not open is named and the rest shows; no
 * key, or a key of another password, answers `keyMissing`; the composer's message is
 * sealed under the case's key before it goes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deriveReporterKeys, fieldContext, fromBase64, keyId, makeHandlerKeys, openFieldText, recipientsFor, sealMessage, sealNewCase, signKeyLogEntry, toBase64,
  PBKDF2_DEFAULT, type HandlerKeys,
} from '../../core/crypto/index.ts';
import { postSealedComment, postSealedMessage, readSealedCase, type CaseKey } from '../../src/private/sealed.ts';
import { openComments, recordHash, sealComment, sealRecordVersion } from '../../core/crypto/index.ts';
import type { ApiClient } from '../../src/api/client.ts';

let recovery: HandlerKeys;
let hanne: HandlerKeys;
let reporterKey: CryptoKey;
let otherKey: CryptoKey;
let sealed: Awaited<ReturnType<typeof sealNewCase>>;
let view: Record<string, unknown>;

const derive = async (password: string) => (await deriveReporterKeys({ caseNumber: '1234567812345678', password, salt: new Uint8Array(16), kdf: PBKDF2_DEFAULT })).reporterKey;

beforeAll(async () => {
  [recovery, hanne] = await Promise.all([makeHandlerKeys(), makeHandlerKeys()]);
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: 'h', ecdhSpki: toBase64(hanne.ecdhSpki), ecdsaSpki: toBase64(hanne.ecdsaSpki), officerIds: ['o'],
    addedAt: '2026-01-01T00:00:00.000Z', action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  const r = await recipientsFor({ anchor: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }, entries: [entry] }, 'o');
  if (!r.ok) throw new Error(r.reason);
  [reporterKey, otherKey] = await Promise.all([derive('the password'), derive('another password')]);
  sealed = await sealNewCase(r, {
    details: { description: 'Forged invoices', violation: 'FRAUD', repeatedViolations: true, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Finance' },
    whistleblower: { name: 'Ida Jensen', email: null, phone: null, phoneCountryCode: null, notification: false },
    reporterKey,
  });
  const good = await sealMessage(sealed.dataKey, sealed.caseId, 'We read your report.');
  const bad = await sealMessage(sealed.dataKey, sealed.caseId, 'Altered on the server.');
  const flipped = fromBase64(bad.body);
  flipped[flipped.length - 1]! ^= 1;
  const reporterWrap = sealed.wraps.find((w) => w.kind === 'reporter')!;
  view = {
    caseNumber: '1234567812345678',
    caseId: sealed.caseId,
    status: 'RECEIVED',
    created: '2026-12-01T10:00:00.000Z',
    protectionOfficerId: 'o',
    subsidiaryId: null,
    epoch: 1,
    envelopes: sealed.envelopes,
    wrap: reporterWrap,
    messages: [
      { id: good.id, type: 'STANDARD', time: '2026-12-01T11:00:00.000Z', createdByUserId: 'handler', answerWanted: false, body: good.body },
      { id: bad.id, type: 'STANDARD', time: '2026-12-01T12:00:00.000Z', createdByUserId: 'handler', answerWanted: false, body: toBase64(flipped) },
    ],
    pendingWhistleblowerAction: false,
    caseStatusHistory: [{ status: 'RECEIVED', dateTime: '2026-12-01T10:00:00.000Z' }],
    protectionOfficer: { id: 'o', name: 'Anne Sørensen' },
  };
});

const serving = (body: unknown) => {
  const calls: { path: string; init?: { method?: string; body?: unknown } }[] = [];
  const api = {
    request: async (path: string, init?: { method?: string; body?: unknown }) => {
      calls.push({ path, init });
      return new Response(JSON.stringify(body), { status: 200 });
    },
  } as unknown as ApiClient;
  return { api, calls };
};

describe('readSealedCase', () => {
  it('opens details, identity and messages with the reporter key; an altered message is named, the rest shows', async () => {
    const { api, calls } = serving(view);
    let held: CaseKey | null = null;
    const result = await readSealedCase(api, reporterKey, (k) => (held = k));
    expect(calls.map((c) => c.path)).toEqual(['/api/private/case/my-case/sealed']);
    expect(result.status).toBe(200);
    const c = result.data!;
    expect(c).toMatchObject({ description: 'Forged invoices', violation: 'FRAUD', reportedUnit: 'Finance', whistleblowerRelation: 'Employee', whistleblower: { name: 'Ida Jensen' }, sealed: { unopened: [] } });
    expect(c.messages.map((m) => [m.message, m.unopened ?? false])).toEqual([['We read your report.', false], ['', true]]);
    expect(c.events).toEqual([{ status: 'RECEIVED', dateTime: '2026-12-01T10:00:00.000Z' }]);
    expect(held!.caseId).toBe(sealed.caseId);
    expect(Buffer.from(held!.dataKey)).toEqual(Buffer.from(sealed.dataKey));
  });

  it('altered details or identity: named, the dates and the messages still show', async () => {
    const bad = (b64: string) => {
      const b = fromBase64(b64);
      b[b.length - 1]! ^= 1;
      return toBase64(b);
    };
    const envelopes = sealed.envelopes as { details: string; whistleblower: string };
    const { api } = serving({ ...view, envelopes: { details: bad(envelopes.details), whistleblower: bad(envelopes.whistleblower) } });
    const c = (await readSealedCase(api, reporterKey, () => {})).data!;
    expect(c.sealed).toEqual({ unopened: ['details', 'whistleblower'] });
    expect(c.description).toBeNull();
    expect(c.whistleblower).toBeNull();
    expect(c.created).toBe('2026-12-01T10:00:00.000Z');
    expect(c.messages[0]!.message).toBe('We read your report.');
  });

  it('no reporter key, a key of another password, or no wrap: keyMissing, and no data key is held', async () => {
    for (const [key, body] of [
      [null, view],
      [otherKey, view],
      [reporterKey, { ...view, wrap: null }],
    ] as const) {
      const { api } = serving(body);
      let held: CaseKey | null = { caseId: 'x', dataKey: new Uint8Array(32) };
      expect(await readSealedCase(api, key, (k) => (held = k))).toEqual({ status: 200, data: null, keyMissing: true });
      expect(held).toBeNull();
    }
  });
});

describe('postSealedMessage', () => {
  it('sends the message sealed under the case key, bound to the id it names', async () => {
    const { api, calls } = serving({ message: {} });
    await postSealedMessage(api, { caseId: sealed.caseId, dataKey: sealed.dataKey }, 'My answer');
    expect(calls[0]!.path).toBe('/api/private/case/messages/sealed');
    const sent = calls[0]!.init!.body as { id: string; body: string };
    expect(JSON.stringify(sent)).not.toContain('My answer');
    expect(await openFieldText(sealed.dataKey, fieldContext(sealed.caseId, 'case_message.body_enc', sent.id), fromBase64(sent.body))).toBe('My answer');
  });
});

describe('the record of a sealed phone case', () => {
  it('opens each version and checks its hash here; a version whose hash does not match, or that does not open, is named; comments open', async () => {
    const v1 = await sealRecordVersion(sealed.dataKey, sealed.caseId, 1, 'Called on Monday.');
    const v2 = await sealRecordVersion(sealed.dataKey, sealed.caseId, 2, 'Called on Tuesday.');
    const comment = await sealComment(sealed.dataKey, sealed.caseId, 'It was Tuesday.');
    const at = (v: typeof v1, approvedAt: string | null = null) => ({ ...v, createdAt: '2026-12-01T13:00:00.000Z', approvedAt });
    const phone = { ...view, submissionType: 'PHONE', approvedAt: null, record: { versions: [at(v1), at(v2)], comments: [{ ...comment, created: '2026-12-01T14:00:00.000Z' }] } };
    const c = (await readSealedCase(serving(phone).api, reporterKey, () => {})).data!;
    expect(c.submission.type).toBe('PHONE');
    expect(c.report).toMatchObject({ text: 'Called on Tuesday.', version: 2, sha256: await recordHash('Called on Tuesday.') });
    expect(c.report!.versions!.map((v) => [v.version, v.text, v.verified, v.unopened ?? false])).toEqual([[1, 'Called on Monday.', true, false], [2, 'Called on Tuesday.', true, false]]);
    expect(c.comments).toEqual([{ comment: 'It was Tuesday.', created: '2026-12-01T14:00:00.000Z' }]);

    // A server that stores another hash beside the text: the mismatch is named and the page's review gets verified: false.
    const lying = { ...phone, record: { versions: [at(v1), at({ ...v2, sha256: v1.sha256 })], comments: [{ id: comment.id, body: v1.text, created: 'x' }] } };
    const l = (await readSealedCase(serving(lying).api, reporterKey, () => {})).data!;
    expect(l.report!.versions!.at(-1)).toMatchObject({ text: 'Called on Tuesday.', verified: false });
    expect(l.comments).toEqual([{ comment: '', created: 'x', unopened: true }]);
    // An envelope moved to another version does not open.
    const moved = { ...phone, record: { versions: [at(v1), at({ ...v2, text: v1.text })], comments: [] } };
    expect((await readSealedCase(serving(moved).api, reporterKey, () => {})).data!.report!.versions!.at(-1)).toMatchObject({ text: '', unopened: true, verified: false });
  });

  it('sends the comment sealed under the case key, bound to its id', async () => {
    const { api, calls } = serving({ id: 'x' });
    await postSealedComment(api, { caseId: sealed.caseId, dataKey: sealed.dataKey }, 'My comment on the record');
    expect(calls[0]!.path).toBe('/api/private/case/comments/sealed');
    expect(calls[0]!.init!.method).toBe('POST');
    const sent = calls[0]!.init!.body as { id: string; body: string };
    expect(JSON.stringify(sent)).not.toContain('My comment');
    expect(await openComments(sealed.dataKey, sealed.caseId, [{ ...sent, created: '' }])).toEqual([{ id: sent.id, created: '', text: 'My comment on the record' }]);
  });
});
