// A smoke test of core/crypto under jsdom: the page-like environment the view tests
// use (its own TextEncoder and typed arrays beside Node's WebCrypto). The full tests are
// in test/unit/core-crypto-*.test.ts.
import { describe, expect, it } from 'vitest';
import {
  concat,
  decryptFileStream,
  deriveReporterKeys,
  encryptFileStream,
  fieldContext,
  keyId,
  makeDataKey,
  makeHandlerKeys,
  openFieldText,
  openSealedBox,
  sealField,
  sealToPublicKey,
  toHex,
  unwrapDataKey,
  wrapDataKey,
} from '../../core/crypto/index.ts';

async function through(stream: TransformStream<Uint8Array, Uint8Array>, input: Uint8Array): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < input.length; i += 50_000) c.enqueue(input.subarray(i, i + 50_000));
      c.close();
    },
  });
  const reader = source.pipeThrough(stream).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
  return concat(...out);
}

describe('core/crypto in jsdom', () => {
  it('seals and opens a field, a file, a box and the reporter wrapping', async () => {
    expect(typeof window).toBe('object');
    const dk = makeDataKey();
    const ctx = fieldContext('c', 'report_case.details_enc');
    expect(await openFieldText(dk, ctx, await sealField(dk, ctx, 'Bericht'))).toBe('Bericht');

    const plain = new TextEncoder().encode('x'.repeat(200_000));
    const sealed = await through(encryptFileStream(dk, 'f'), plain);
    expect(toHex(await through(decryptFileStream(dk, 'f'), sealed))).toBe(toHex(plain));

    const h = await makeHandlerKeys();
    const info = { caseId: 'c', epoch: 0, recipientKeyId: await keyId(h.ecdhSpki) };
    expect(toHex(await openSealedBox(h.ecdh, await sealToPublicKey(h.ecdhSpki, dk, info), info))).toBe(toHex(dk));

    const { reporterKey } = await deriveReporterKeys({ caseNumber: '1', password: 'pw', salt: new Uint8Array(16), kdf: { name: 'argon2id-v1', m: 64, t: 1, p: 1 } }, { enforceFloor: false });
    expect(toHex(await unwrapDataKey(reporterKey, await wrapDataKey(reporterKey, dk, { caseId: 'c', epoch: 0 }), { caseId: 'c', epoch: 0 }))).toBe(toHex(dk));
  });
});
