// The provider's sign-in pages derive in their own unbundled script
// (server/idp/assets/derive.js); the report form and scripted clients derive with
// core/crypto; the server's plain path with core/crypto on native Argon2id. All four
// must give the same bytes, or a reporter could not sign in to the case they made.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ARGON2ID_DEFAULT, PBKDF2_DEFAULT, deriveReporterKeys, fromBase64, toBase64, unwrapDataKey, wrapDataKey, type Kdf } from '../../core/crypto/index.ts';
import { NATIVE_KDF } from '../../server/cases/reporter-keys.ts';

type PageKeys = {
  derive(caseNumber: string, password: string, salt: string, kdf: unknown): Promise<{ verifier: string; key: string }>;
  checkKdf(kdf: unknown): void;
  chooseKdf(): Promise<Kdf>;
  rewrap(oldKey: string, newKey: string, caseId: string, wraps: { epoch: number; wrap: string }[]): Promise<{ epoch: number; wrap: string }[]>;
};
let page: PageKeys;

beforeAll(() => {
  const g = globalThis as unknown as { self?: unknown; wbReporterKeys?: PageKeys; hashwasm?: unknown };
  g.self = globalThis;
  const require = createRequire(import.meta.url);
  vm.runInThisContext(readFileSync(require.resolve('hash-wasm/dist/argon2.umd.min.js'), 'utf8'));
  vm.runInThisContext(readFileSync(new URL('../../server/idp/assets/derive.js', import.meta.url), 'utf8'));
  page = g.wbReporterKeys!;
});

const salt = Uint8Array.from({ length: 16 }, (_, i) => 200 - i);
const saltText = Buffer.from(salt).toString('base64url');

async function rawKey(key: CryptoKey): Promise<string> {
  // The reporter key is non-extractable: compare what it seals instead.
  const iv = new Uint8Array(12);
  return toBase64(new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new Uint8Array(32))));
}

describe('the sign-in page’s derivation is core/crypto’s', () => {
  for (const kdf of [PBKDF2_DEFAULT, ARGON2ID_DEFAULT] as Kdf[]) {
    it(`${kdf.name}: the same verifier and reporter key from the page, core (hash-wasm) and the server (native)`, { timeout: 120_000 }, async () => {
      const input = { caseNumber: '1234 5678 9012 3456', password: 'Pa\u0073\u0301sword ✓', salt, kdf };
      const core = await deriveReporterKeys(input);
      const native = await deriveReporterKeys(input, NATIVE_KDF);
      const fromPage = await page.derive(input.caseNumber, input.password.normalize('NFD'), saltText, kdf);
      const verifier = Buffer.from(core.verifier).toString('base64url');
      expect(Buffer.from(native.verifier).toString('base64url')).toBe(verifier);
      expect(fromPage.verifier).toBe(verifier);
      const pageKey = await crypto.subtle.importKey('raw', Buffer.from(fromPage.key, 'base64'), 'AES-GCM', false, ['encrypt']);
      expect(await rawKey(pageKey)).toBe(await rawKey(core.reporterKey));
    });
  }

  it('refuses what core refuses: parameters below the floor, above the ceilings, unknown', () => {
    for (const bad of [{ name: 'pbkdf2-v1', iterations: 599_999 }, { name: 'argon2id-v1', m: 65535, t: 3, p: 1 }, { name: 'argon2id-v1', m: 65536, t: 2, p: 1 }, { name: 'argon2id-v1', m: (1 << 20) + 1, t: 3, p: 1 }, { name: 'legacy' }, null]) {
      expect(() => page.checkKdf(bad)).toThrow();
    }
    page.checkKdf(ARGON2ID_DEFAULT);
    page.checkKdf(PBKDF2_DEFAULT);
  });

  it('chooses argon2id where WebAssembly works', async () => {
    expect(await page.chooseKdf()).toEqual(ARGON2ID_DEFAULT);
  });
});

// The new-password page of a sealed case re-wraps its data key (sealed-reporter-pages.md "Password change"):
// what it sends is core/crypto's wrap, opened by the new key and by nothing else.
describe('the new-password page’s re-wrap is core/crypto’s wrap', () => {
  const caseId = '5b0c7d7e-6a51-4f4e-9d3c-2b8f1f0a9e11';
  const raw = (n: number) => toBase64(Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + n) & 255));
  const aes = (b64: string) => crypto.subtle.importKey('raw', fromBase64(b64), 'AES-GCM', false, ['encrypt', 'decrypt']);

  it('opens each epoch’s wrap with the old key and wraps it to the new one; only the new key opens the result', async () => {
    const oldKey = raw(1);
    const newKey = raw(2);
    const dataKeys = [crypto.getRandomValues(new Uint8Array(32)), crypto.getRandomValues(new Uint8Array(32))];
    const wraps = [
      { epoch: 1, wrap: toBase64(await wrapDataKey(await aes(oldKey), dataKeys[0]!, { caseId, epoch: 1 })) },
      { epoch: 2, wrap: toBase64(await wrapDataKey(await aes(oldKey), dataKeys[1]!, { caseId, epoch: 2 })) },
    ];
    const out = await page.rewrap(oldKey, newKey, caseId, wraps);
    expect(out.map((w) => w.epoch)).toEqual([1, 2]);
    for (const [i, w] of out.entries()) {
      expect(w.wrap).not.toBe(wraps[i]!.wrap);
      expect(fromBase64(w.wrap)).toHaveLength(61);
      expect(Buffer.from(await unwrapDataKey(await aes(newKey), fromBase64(w.wrap), { caseId, epoch: w.epoch }))).toEqual(Buffer.from(dataKeys[i]!));
      await expect(unwrapDataKey(await aes(oldKey), fromBase64(w.wrap), { caseId, epoch: w.epoch })).rejects.toThrow();
      // Bound to its case and epoch, as core/crypto binds it.
      await expect(unwrapDataKey(await aes(newKey), fromBase64(w.wrap), { caseId, epoch: w.epoch + 1 })).rejects.toThrow();
    }
  });

  it('sends nothing when the old key does not open a wrap (another password’s key, an altered wrap, another case)', async () => {
    const dataKey = crypto.getRandomValues(new Uint8Array(32));
    const wrap = await wrapDataKey(await aes(raw(1)), dataKey, { caseId, epoch: 1 });
    await expect(page.rewrap(raw(3), raw(2), caseId, [{ epoch: 1, wrap: toBase64(wrap) }])).rejects.toThrow();
    const altered = Uint8Array.from(wrap);
    altered[30]! ^= 1;
    await expect(page.rewrap(raw(1), raw(2), caseId, [{ epoch: 1, wrap: toBase64(altered) }])).rejects.toThrow();
    await expect(page.rewrap(raw(1), raw(2), '00000000-0000-4000-8000-000000000000', [{ epoch: 1, wrap: toBase64(wrap) }])).rejects.toThrow();
    await expect(page.rewrap(raw(1), raw(2), caseId, [{ epoch: 1, wrap: toBase64(wrap.subarray(0, 60)) }])).rejects.toThrow();
  });
});
