/**
 * core/crypto/mail.ts: the reporter's notification address sealed to the mail key opens
 * with that key for that case only; it is no data-key wrap (another HKDF info), nor does
 * a wrap open as an address; a malformed address is refused before sealing.
 */
import { describe, expect, it } from 'vitest';
import { EnvelopeError, fromBase64, keyId, makeDataKey, openNotifyAddress, openSealedBox, sealNotifyAddress, sealToPublicKey, toBase64, type MailKey } from '../../core/crypto/index.ts';

async function mailPair() {
  const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  const spki = new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey));
  const id = await keyId(spki);
  const publicKey: MailKey = { spki: toBase64(spki), keyId: id };
  return { publicKey, holder: { privateKey: pair.privateKey, publicKey: spki, keyId: id } };
}

describe('sealNotifyAddress', () => {
  it('round-trips the address and language for its case, and opens for no other case or key', async () => {
    const k = await mailPair();
    const other = await mailPair();
    const caseId = crypto.randomUUID();
    const sealed = await sealNotifyAddress(k.publicKey, caseId, '  ada@example.org ', 'de');
    expect(sealed.keyId).toBe(k.publicKey.keyId);
    const box = fromBase64(sealed.box);
    expect(box[0]).toBe(2);
    expect(new TextDecoder().decode(box)).not.toContain('ada@example.org');
    expect(await openNotifyAddress(k.holder, caseId, box)).toEqual({ address: 'ada@example.org', language: 'de' });
    await expect(openNotifyAddress(k.holder, crypto.randomUUID(), box)).rejects.toBeInstanceOf(EnvelopeError);
    await expect(openNotifyAddress(other.holder, caseId, box)).rejects.toBeInstanceOf(EnvelopeError);
  });

  it('is no data-key wrap, and a wrap is no address', async () => {
    const k = await mailPair();
    const caseId = crypto.randomUUID();
    const box = fromBase64((await sealNotifyAddress(k.publicKey, caseId, 'ada@example.org')).box);
    await expect(openSealedBox(k.holder, box, { caseId, epoch: 0, recipientKeyId: k.holder.keyId })).rejects.toBeInstanceOf(EnvelopeError);
    const wrap = await sealToPublicKey(k.holder.publicKey, makeDataKey(), { caseId, epoch: 0, recipientKeyId: k.holder.keyId });
    await expect(openNotifyAddress(k.holder, caseId, wrap)).rejects.toBeInstanceOf(EnvelopeError);
  });

  it('refuses an empty or overlong address before sealing', async () => {
    const k = await mailPair();
    await expect(sealNotifyAddress(k.publicKey, crypto.randomUUID(), '  ')).rejects.toBeInstanceOf(EnvelopeError);
    await expect(sealNotifyAddress(k.publicKey, crypto.randomUUID(), `${'a'.repeat(330)}@example.org`)).rejects.toBeInstanceOf(EnvelopeError);
  });
});
