/**
 * The private area's sealed case (src/private/sealed.ts), against a sealed view built
 * with core/crypto as the server answers it: the reporter key opens the details, the
 * identity and each message; a part that does not open is named and the rest shows; no
 * key, or a key of another password, answers `keyMissing`; the composer's message is
 * sealed under the case's key before it goes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deriveReporterKeys, fieldContext, fromBase64, keyId, makeHandlerKeys, makeNextEpoch, openFieldText, recipientsFor, sealMessage, sealNewCase, signKeyLogEntry, toBase64, unwrapDataKey,
  PBKDF2_DEFAULT, type HandlerKeys,
} from '../../core/crypto/index.ts';
import { postSealedMessage, readSealedCase, type CaseKey } from '../../src/private/sealed.ts';
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

describe('readSealedCase after a revocation', () => {
  it('walks forward to the newest key, opens each message under its epoch, holds the newest key and wraps it under the reporter key', async () => {
    const next = await makeNextEpoch({ caseId: sealed.caseId, epoch: 1, dataKey: sealed.dataKey, revoke: 'f'.repeat(64), recipients: [], reporter: true });
    const later = await sealMessage(next.dataKey, sealed.caseId, 'After the revocation.');
    const links = [{ epoch: 2, kind: 'previous', link: next.body.previous }, { epoch: 2, kind: 'next', link: next.body.next }];
    const messages = [...(view.messages as object[]).slice(0, 1), { id: later.id, type: 'STANDARD', time: '2026-12-02T10:00:00.000Z', createdByUserId: 'handler', answerWanted: false, body: later.body, epoch: 2 }];
    const { api, calls } = serving({ ...view, currentEpoch: 2, links, messages });
    let held: CaseKey | null = null;
    const c = (await readSealedCase(api, reporterKey, (k) => (held = k))).data!;
    expect(c.messages.map((m) => m.message)).toEqual(['We read your report.', 'After the revocation.']);
    expect(held!.epoch).toBe(2);
    expect(Buffer.from(held!.dataKey)).toEqual(Buffer.from(next.dataKey));
    const put = calls.find((x) => x.path === '/api/private/case/my-case/epoch-wrap')!;
    expect(put.init!.method).toBe('PUT');
    const body = put.init!.body as { epoch: number; wrap: string };
    expect(body.epoch).toBe(2);
    expect(Buffer.from(await unwrapDataKey(reporterKey, fromBase64(body.wrap), { caseId: sealed.caseId, epoch: 2 }))).toEqual(Buffer.from(next.dataKey));
    // The composer names the epoch its key seals under.
    const { api: api2, calls: sent } = serving({ message: {} });
    await postSealedMessage(api2, held!, 'Thanks');
    expect((sent[0]!.init!.body as { epoch: number }).epoch).toBe(2);
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
