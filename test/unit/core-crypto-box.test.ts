// core/crypto sealed boxes: a data key wrapped to an ECDH P-256 public key.
import { describe, expect, it } from 'vitest';
import { refusal } from './core-crypto.kit.ts';
import { EnvelopeError, keyId, makeDataKey, makeHandlerKeys, openSealedBox, sealToPublicKey, toHex, type WrapInfo } from '../../core/crypto/index.ts';
import { createHash } from 'node:crypto';


describe('core sealed boxes', () => {
  it('keyId is hex SHA-256 of the SPKI', async () => {
    const { ecdhSpki } = await makeHandlerKeys();
    expect(await keyId(ecdhSpki)).toBe(createHash('sha256').update(ecdhSpki).digest('hex'));
  });

  it('round-trips a data key, with the format 2 ‖ point(65) ‖ nonce ‖ ct ‖ tag', async () => {
    const h = await makeHandlerKeys();
    const dk = makeDataKey();
    const info: WrapInfo = { caseId: 'case-1', epoch: 0, recipientKeyId: await keyId(h.ecdhSpki) };
    const box = await sealToPublicKey(h.ecdhSpki, dk, info);
    expect(box.length).toBe(1 + 65 + 12 + 32 + 16);
    expect(box[0]).toBe(2);
    expect(box[1]).toBe(4); // uncompressed point
    expect(toHex(await openSealedBox(h.ecdh, box, info))).toBe(toHex(dk));
    // With the private key and the SPKI, as after openPrivateKeys.
    expect(toHex(await openSealedBox({ privateKey: h.ecdh.privateKey, publicKey: h.ecdhSpki }, box, info))).toBe(toHex(dk));
    // Two boxes of the same key differ: a fresh ephemeral key each time.
    expect(toHex(await sealToPublicKey(h.ecdhSpki, dk, info))).not.toBe(toHex(box));
  });

  it('refuses another case, epoch or recipient, an altered box, and a key id that is not the key’s', async () => {
    const a = await makeHandlerKeys();
    const b = await makeHandlerKeys();
    const info: WrapInfo = { caseId: 'case-1', epoch: 3, recipientKeyId: await keyId(a.ecdhSpki) };
    const box = await sealToPublicKey(a.ecdhSpki, makeDataKey(), info);
    expect(await refusal(openSealedBox(a.ecdh, box, { ...info, caseId: 'case-2' }))).toBe('authentication');
    expect(await refusal(openSealedBox(a.ecdh, box, { ...info, epoch: 4 }))).toBe('authentication');
    // The wrong recipient, naming itself: another shared secret, another key.
    expect(await refusal(openSealedBox(b.ecdh, box, { ...info, recipientKeyId: await keyId(b.ecdhSpki) }))).toBe('authentication');
    // The wrong recipient under the right key id: caught before any decryption.
    expect(await refusal(openSealedBox(b.ecdh, box, info))).toBe('key');
    for (const at of [10, 66, 70, box.length - 1]) {
      const bad = box.slice();
      bad[at]! ^= 1;
      expect(['authentication', 'format']).toContain(await refusal(openSealedBox(a.ecdh, bad, info)));
    }
    const version = box.slice();
    version[0] = 1;
    expect(await refusal(openSealedBox(a.ecdh, version, info))).toBe('format');
    expect(await refusal(openSealedBox(a.ecdh, box.subarray(0, 90), info))).toBe('format');
    expect(await refusal(sealToPublicKey(a.ecdhSpki, makeDataKey(), { ...info, recipientKeyId: await keyId(b.ecdhSpki) }))).toBe('key');
    expect(await refusal(sealToPublicKey(new Uint8Array(91), makeDataKey(), { ...info, recipientKeyId: await keyId(new Uint8Array(91)) }))).toBe('key');
  });
});
