// core/crypto drafts: a handler's unsent text sealed to the handler's own public key on the device.
import { describe, expect, it } from 'vitest';
import { refusal } from './core-crypto.kit.ts';
import { draftId, makeHandlerKeys, openDraft, sealDraft, type DraftOwner } from '../../core/crypto/index.ts';

const owner: DraftOwner = { handlerId: 'h-1', kind: 'message', caseNumber: '1234567812345678' };
const fields = { text: 'Wir haben Ihre Meldung erhalten – Ærø', type: 'CONFIRMATION', answerWanted: true };

describe('core drafts', () => {
  it('round-trips with the private key and its SPKI; the sealed bytes hold no plaintext and hide the length', async () => {
    const h = await makeHandlerKeys();
    const sealed = await sealDraft(h.ecdhSpki, owner, fields);
    expect(await openDraft({ privateKey: h.ecdh.privateKey, publicKey: h.ecdhSpki }, owner, sealed)).toEqual(fields);
    const latin = Buffer.from(sealed).toString('latin1');
    expect(latin).not.toContain('Meldung');
    expect(Buffer.from(sealed).toString('base64')).not.toContain(Buffer.from('Meldung').toString('base64').slice(0, 8));
    // A short and a longer text under 512 bytes seal to the same size.
    const short = await sealDraft(h.ecdhSpki, owner, { text: 'a' });
    const longer = await sealDraft(h.ecdhSpki, owner, { text: 'a'.repeat(300) });
    expect(short.length).toBe(longer.length);
    expect((await sealDraft(h.ecdhSpki, owner, { text: 'a'.repeat(600) })).length).toBeGreaterThan(short.length);
    // A fresh ephemeral key each time.
    expect(Buffer.from(await sealDraft(h.ecdhSpki, owner, fields)).equals(Buffer.from(sealed))).toBe(false);
  });

  it('refuses a tampered draft at any byte', async () => {
    const h = await makeHandlerKeys();
    const sealed = await sealDraft(h.ecdhSpki, owner, fields);
    const me = { privateKey: h.ecdh.privateKey, publicKey: h.ecdhSpki };
    for (const at of [1 + 65 + 1, 1 + 65 + 12 + 3, sealed.length - 1]) {
      const bad = sealed.slice();
      bad[at]! ^= 0x01;
      expect(await refusal(openDraft(me, owner, bad))).toBe('authentication');
    }
    const badPoint = sealed.slice();
    badPoint[10]! ^= 0x01;
    expect(['format', 'authentication', 'key']).toContain(await refusal(openDraft(me, owner, badPoint)));
    const badVersion = sealed.slice();
    badVersion[0] = 9;
    expect(await refusal(openDraft(me, owner, badVersion))).toBe('format');
    expect(await refusal(openDraft(me, owner, sealed.subarray(0, 40)))).toBe('format');
  });

  it('refuses the wrong key, and a draft moved to another case, kind or handler', async () => {
    const h = await makeHandlerKeys();
    const other = await makeHandlerKeys();
    const sealed = await sealDraft(h.ecdhSpki, owner, fields);
    // Another handler's private key with its own SPKI: another key id, another derivation.
    expect(await refusal(openDraft({ privateKey: other.ecdh.privateKey, publicKey: other.ecdhSpki }, owner, sealed))).toBe('authentication');
    // Another private key claiming the right public key: the ECDH secret differs.
    expect(await refusal(openDraft({ privateKey: other.ecdh.privateKey, publicKey: h.ecdhSpki }, owner, sealed))).toBe('authentication');
    const me = { privateKey: h.ecdh.privateKey, publicKey: h.ecdhSpki };
    expect(await refusal(openDraft(me, { ...owner, caseNumber: '8765432187654321' }, sealed))).toBe('authentication');
    expect(await refusal(openDraft(me, { ...owner, kind: 'record' }, sealed))).toBe('authentication');
    expect(await refusal(openDraft(me, { ...owner, handlerId: 'h-2' }, sealed))).toBe('authentication');
  });

  it('names a draft by a hash of handler, kind and case, with no case number in clear', async () => {
    const id = await draftId(owner);
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(id).not.toContain(owner.caseNumber);
    expect(await draftId({ ...owner, kind: 'record' })).not.toBe(id);
    expect(await draftId({ ...owner, handlerId: 'h-2' })).not.toBe(id);
  });
});
