// core/crypto sealed fields: round trips, refusals, and byte compatibility with the
// server's seal/open (server/crypto/case-crypto.ts), in both directions.
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refusal } from './core-crypto.kit.ts';
import { EnvelopeError, fieldContext, fromBase64, fromHex, fromUtf8, importFieldKey, makeDataKey, openField, openFieldText, sealField, toBase64, toHex, utf8 } from '../../core/crypto/index.ts';
import { open as serverOpen, seal as serverSeal, CaseCrypto } from '../../server/crypto/case-crypto.ts';


describe('core sealed fields', () => {
  it('fieldContext is the server’s context string', () => {
    expect(fieldContext('c1', 'report_case.details_enc')).toBe('wb:c1:report_case.details_enc:');
    expect(fieldContext('c1', 'message.body_enc', 'm7')).toBe('wb:c1:message.body_enc:m7');
  });

  it('round-trips text and bytes, with the key as bytes or as a CryptoKey', async () => {
    const raw = makeDataKey();
    const key = await importFieldKey(raw);
    const ctx = fieldContext('case', 'report_case.identity_enc');
    const sealed = await sealField(raw, ctx, 'Ünïcode 🙂 name');
    expect(sealed[0]).toBe(1);
    expect(sealed.length).toBe(1 + 12 + utf8('Ünïcode 🙂 name').length + 16);
    expect(await openFieldText(key, ctx, sealed)).toBe('Ünïcode 🙂 name');
    const bytes = Uint8Array.of(0, 1, 2, 255);
    expect(await openField(raw, ctx, await sealField(key, ctx, bytes))).toEqual(bytes);
    expect(await openFieldText(raw, ctx, await sealField(raw, ctx, ''))).toBe('');
  });

  it('property: any plaintext round-trips and opens with the server’s open', async () => {
    const raw = makeDataKey();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 4096 }), fc.string(), async (plain, column) => {
        const ctx = fieldContext('case-p', column, 'row');
        const sealed = await sealField(raw, ctx, plain);
        expect(await openField(raw, ctx, sealed)).toEqual(plain);
        expect(new Uint8Array(serverOpen(raw, ctx, sealed))).toEqual(plain);
      }),
      { numRuns: 100 },
    );
  });

  it('opens what the server sealed, and the server opens what core sealed (CaseCrypto#seal too)', async () => {
    const raw = new Uint8Array(nodeRandomBytes(32));
    const crypto = new CaseCrypto(nodeRandomBytes(32));
    const fromServer = crypto.sealJson(raw, 'c9', 'report_case.details_enc', { description: 'Ärger im Lager' }, 'r1');
    expect(JSON.parse(await openFieldText(raw, fieldContext('c9', 'report_case.details_enc', 'r1'), fromServer))).toEqual({ description: 'Ärger im Lager' });
    const fromCore = await sealField(raw, fieldContext('c9', 'message.body_enc', 'm1'), 'Hallo');
    expect(crypto.open(raw, 'c9', 'message.body_enc', fromCore, 'm1').toString('utf8')).toBe('Hallo');
    expect(serverOpen(raw, 'wb:c9:message.body_enc:m1', fromCore).toString('utf8')).toBe('Hallo');
    expect(await openFieldText(raw, 'ctx', serverSeal(raw, 'ctx', 'plain'))).toBe('plain');
  });

  it('refuses an altered byte anywhere, a truncated value, the wrong context and the wrong key', async () => {
    const raw = makeDataKey();
    const ctx = fieldContext('c', 'report_case.details_enc');
    const sealed = await sealField(raw, ctx, 'secret text');
    for (let i = 1; i < sealed.length; i++) {
      const bad = sealed.slice();
      bad[i]! ^= 0x01;
      expect(await refusal(openField(raw, ctx, bad))).toBe('authentication');
    }
    const version = sealed.slice();
    version[0] = 2;
    expect(await refusal(openField(raw, ctx, version))).toBe('format');
    expect(await refusal(openField(raw, ctx, sealed.subarray(0, sealed.length - 1)))).toBe('authentication');
    expect(await refusal(openField(raw, ctx, sealed.subarray(0, 28)))).toBe('format');
    expect(await refusal(openField(raw, fieldContext('c', 'report_case.details_enc', 'x'), sealed))).toBe('authentication');
    expect(await refusal(openField(raw, fieldContext('other', 'report_case.details_enc'), sealed))).toBe('authentication');
    expect(await refusal(openField(makeDataKey(), ctx, sealed))).toBe('authentication');
    expect(await refusal(openField(new Uint8Array(16), ctx, sealed))).toBe('key');
  });

  it('refuses sealed bytes that are not UTF-8 as text', async () => {
    const raw = makeDataKey();
    expect(await refusal(openFieldText(raw, 'c', await sealField(raw, 'c', Uint8Array.of(0xff, 0xfe))))).toBe('format');
  });

  it('two seals of the same text differ (fresh nonce)', async () => {
    const raw = makeDataKey();
    expect(toHex(await sealField(raw, 'c', 'same'))).not.toBe(toHex(await sealField(raw, 'c', 'same')));
  });
});

describe('core byte helpers', () => {
  it('base64 and hex agree with Node’s Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100_000 }), (bytes) => {
        const b64 = toBase64(bytes);
        expect(b64).toBe(Buffer.from(bytes).toString('base64'));
        expect(fromBase64(b64)).toEqual(bytes);
        const hex = toHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        expect(fromHex(hex)).toEqual(bytes);
      }),
      { numRuns: 50 },
    );
    expect(fromUtf8(utf8('ß'))).toBe('ß');
    expect(() => fromHex('abc')).toThrow(TypeError);
    expect(() => fromBase64('***')).toThrow(TypeError);
  });
});
