// core/crypto key epochs: the next data key after a revocation, its wraps and the links between epochs' keys.
import { describe, expect, it } from 'vitest';
import {
  fromBase64, keyId, makeDataKey, makeHandlerKeys, makeNextEpoch, openCaseKeys, openCaseParts, openSealedBox, sealMessage, sealToPublicKey, toBase64, toHex,
  wrapDataKey, keyForEpoch, type KeyLink, type HandlerKeys,
} from '../../core/crypto/index.ts';

const caseId = '0f6b7c2e-4d1a-4c5b-9f7e-2a3b4c5d6e7f';

async function holder(): Promise<{ keys: HandlerKeys; keyId: string }> {
  const keys = await makeHandlerKeys();
  return { keys, keyId: await keyId(keys.ecdhSpki) };
}
const asKey = (x: { keys: HandlerKeys; keyId: string }) => ({ ecdh: { privateKey: x.keys.ecdh.privateKey, publicKey: x.keys.ecdhSpki }, keyId: x.keyId });
const wrapFor = async (x: { keys: HandlerKeys; keyId: string }, dk: Uint8Array, epoch: number) => ({ recipientKeyId: x.keyId, kind: 'handler', wrap: toBase64(await sealToPublicKey(x.keys.ecdhSpki, dk, { caseId, epoch, recipientKeyId: x.keyId })) });

describe('core key epochs', () => {
  it('wraps the next key to every remaining recipient but the revoked one, links it back, and forward only for a reporter', async () => {
    const [a, b, c] = [await holder(), await holder(), await holder()];
    const dk1 = makeDataKey();
    const recipients = [a, b, c].map((x) => ({ recipientKeyId: x.keyId, kind: 'handler' as const, spki: x.keys.ecdhSpki }));
    const { dataKey: dk2, body } = await makeNextEpoch({ caseId, epoch: 1, dataKey: dk1, revoke: b.keyId, recipients, reporter: false });
    expect(body.epoch).toBe(2);
    expect(body.next).toBeNull();
    expect(body.wraps.map((w) => w.recipientKeyId).sort()).toEqual([a.keyId, c.keyId].sort());
    expect(toHex(dk2)).not.toBe(toHex(dk1));
    for (const x of [a, c]) {
      const w = body.wraps.find((w) => w.recipientKeyId === x.keyId)!;
      expect(toHex(await openSealedBox(x.keys.ecdh, fromBase64(w.wrap), { caseId, epoch: 2, recipientKeyId: x.keyId }))).toBe(toHex(dk2));
    }
    // The revoked key opens none of the new wraps.
    for (const w of body.wraps) await expect(openSealedBox(b.keys.ecdh, fromBase64(w.wrap), { caseId, epoch: 2, recipientKeyId: b.keyId })).rejects.toThrow();
    // With a reporter, a forward link of 61 bytes (field version 1).
    const withReporter = await makeNextEpoch({ caseId, epoch: 1, dataKey: dk1, revoke: b.keyId, recipients, reporter: true });
    expect(fromBase64(withReporter.body.next!).length).toBe(61);
    expect(fromBase64(withReporter.body.previous).length).toBe(61);
  });

  it('walks back from a handler wrap of a later epoch, forward from the reporter wrap, and opens each message under its epoch', async () => {
    const a = await holder();
    const dk1 = makeDataKey();
    const recipients = [{ recipientKeyId: a.keyId, kind: 'handler' as const, spki: a.keys.ecdhSpki }];
    const e2 = await makeNextEpoch({ caseId, epoch: 1, dataKey: dk1, revoke: 'x'.repeat(64), recipients, reporter: true });
    const e3 = await makeNextEpoch({ caseId, epoch: 2, dataKey: e2.dataKey, revoke: 'x'.repeat(64), recipients, reporter: true });
    const links: KeyLink[] = [
      { epoch: 2, kind: 'previous', link: e2.body.previous }, { epoch: 2, kind: 'next', link: e2.body.next! },
      { epoch: 3, kind: 'previous', link: e3.body.previous }, { epoch: 3, kind: 'next', link: e3.body.next! },
    ];
    const m1 = await sealMessage(dk1, caseId, 'one');
    const m3 = await sealMessage(e3.dataKey, caseId, 'three');
    const messages = [{ ...m1, epoch: 1 }, { ...m3, epoch: 3 }];
    const envelopes = { details: toBase64(new Uint8Array(40)), whistleblower: null };

    const handlerView = { caseId, epoch: 3, wrap: await wrapFor(a, e3.dataKey, 3), links: links.filter((l) => l.kind === 'previous') };
    const handler = await openCaseKeys(handlerView, asKey(a));
    expect(handler.epoch).toBe(3);
    expect([...handler.byEpoch.keys()].sort()).toEqual([1, 2, 3]);
    expect(toHex(handler.byEpoch.get(1)!)).toBe(toHex(dk1));
    const parts = await openCaseParts(handler, { caseId, envelopes, messages });
    expect(parts.messages.map((m) => m.text)).toEqual(['one', 'three']);
    // One key for everything (the old call) opens only what that key sealed.
    expect((await openCaseParts(e3.dataKey, { caseId, envelopes, messages })).messages.map((m) => m.text)).toEqual([null, 'three']);

    const reporterKey = await globalThis.crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const reporterView = { caseId, epoch: 1, wrap: { recipientKeyId: 'reporter', kind: 'reporter', wrap: toBase64(await wrapDataKey(reporterKey, dk1, { caseId, epoch: 1 })) }, links };
    const reporter = await openCaseKeys(reporterView, { reporterKey });
    expect(reporter.epoch).toBe(3);
    expect(toHex(reporter.dataKey)).toBe(toHex(e3.dataKey));
    expect(keyForEpoch(reporter, 2)).not.toBeNull();
    expect(keyForEpoch(reporter, undefined)).toEqual(dk1);
  });

  it('a handler view without forward links does not reach a later epoch; an altered link leaves the keys beyond it unknown', async () => {
    const a = await holder();
    const dk1 = makeDataKey();
    const recipients = [{ recipientKeyId: a.keyId, kind: 'handler' as const, spki: a.keys.ecdhSpki }];
    const e2 = await makeNextEpoch({ caseId, epoch: 1, dataKey: dk1, revoke: 'x'.repeat(64), recipients, reporter: true });
    // A holder of the first epoch only (the revoked one) with the back link alone: no way forward.
    const old = await openCaseKeys({ caseId, epoch: 1, wrap: { ...(await wrapFor(a, dk1, 1)) }, links: [{ epoch: 2, kind: 'previous', link: e2.body.previous }] }, asKey(a));
    expect(old.epoch).toBe(1);
    expect(old.byEpoch.has(2)).toBe(false);
    const bad = fromBase64(e2.body.previous);
    bad[20]! ^= 1;
    const cut = await openCaseKeys({ caseId, epoch: 2, wrap: { ...(await wrapFor(a, e2.dataKey, 2)) }, links: [{ epoch: 2, kind: 'previous', link: toBase64(bad) }] }, asKey(a));
    expect([...cut.byEpoch.keys()]).toEqual([2]);
    // A link moved to another case does not open there.
    const other = caseId.replace('0f', '1f');
    const otherWrap = { recipientKeyId: a.keyId, kind: 'handler', wrap: toBase64(await sealToPublicKey(a.keys.ecdhSpki, e2.dataKey, { caseId: other, epoch: 2, recipientKeyId: a.keyId })) };
    const moved = await openCaseKeys({ caseId: other, epoch: 2, wrap: otherWrap, links: [{ epoch: 2, kind: 'previous', link: e2.body.previous }] }, asKey(a));
    expect([...moved.byEpoch.keys()]).toEqual([2]);
  });
});
