// The provider's sign-in pages derive in their own unbundled script
// (server/idp/assets/derive.js); the report form and scripted clients derive with
// core/crypto; the server's plain path with core/crypto on native Argon2id. All four
// must give the same bytes, or a reporter could not sign in to the case they made.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ARGON2ID_DEFAULT, PBKDF2_DEFAULT, deriveReporterKeys, toBase64, type Kdf } from '../../core/crypto/index.ts';
import { NATIVE_KDF } from '../../server/cases/reporter-keys.ts';

type PageKeys = {
  derive(caseNumber: string, password: string, salt: string, kdf: unknown): Promise<{ verifier: string; key: string }>;
  checkKdf(kdf: unknown): void;
  chooseKdf(): Promise<Kdf>;
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
