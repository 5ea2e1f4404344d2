import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CaseCrypto, DecryptionError, FILE_CHUNK } from '../../server/crypto/case-crypto.ts';
import { loadSecret } from '../../server/crypto/secrets.ts';
import { hashPassword, verifyPassword, Passwords } from '../../server/cases/passwords.ts';

const crypto = new CaseCrypto(randomBytes(32));

async function roundTrip(plain: Buffer, fileId = 'f1', mutate?: (ct: Buffer) => Buffer) {
  const { key } = crypto.newCaseKey('case-1');
  // Feed in odd-sized pieces so chunk boundaries never line up with writes.
  const pieces: Buffer[] = [];
  for (let i = 0; i < plain.length; i += 7777) pieces.push(plain.subarray(i, i + 7777));
  const ct = await buffer(Readable.from(pieces.length ? pieces : [Buffer.alloc(0)]).pipe(crypto.encryptFile(key, fileId)));
  const stored = mutate ? mutate(ct) : ct;
  return { ct, out: await buffer(Readable.from([stored]).pipe(crypto.decryptFile(key, fileId))) };
}

describe('case keys and sealed fields', () => {
  it('wraps a data key so only the same case id unwraps it', () => {
    const { key, wrapped } = crypto.newCaseKey('case-a');
    expect(crypto.unwrapCaseKey('case-a', wrapped).equals(key)).toBe(true);
    expect(wrapped.includes(key)).toBe(false);
    expect(() => crypto.unwrapCaseKey('case-b', wrapped)).toThrow(DecryptionError);
    expect(() => new CaseCrypto(randomBytes(32)).unwrapCaseKey('case-a', wrapped)).toThrow(DecryptionError);
  });

  it('seals a field bound to its case and column, with a fresh nonce each time', () => {
    const { key } = crypto.newCaseKey('c');
    const a = crypto.seal(key, 'c', 'report_case.details_enc', 'secret text');
    const b = crypto.seal(key, 'c', 'report_case.details_enc', 'secret text');
    expect(a.equals(b)).toBe(false);
    expect(a.toString('latin1')).not.toContain('secret text');
    expect(crypto.open(key, 'c', 'report_case.details_enc', a).toString()).toBe('secret text');
    expect(() => crypto.open(key, 'other-case', 'report_case.details_enc', a)).toThrow(DecryptionError);
    expect(() => crypto.open(key, 'c', 'report_case.whistleblower_enc', a)).toThrow(DecryptionError);
    const tampered = Buffer.from(a);
    tampered[20]! ^= 1;
    expect(() => crypto.open(key, 'c', 'report_case.details_enc', tampered)).toThrow(DecryptionError);
  });
});

describe('streamed file encryption', () => {
  for (const size of [0, 1, FILE_CHUNK - 1, FILE_CHUNK, FILE_CHUNK + 1, 3 * FILE_CHUNK, 3 * FILE_CHUNK + 12345]) {
    it(`round-trips ${size} bytes`, async () => {
      const plain = randomBytes(size);
      const { ct, out } = await roundTrip(plain);
      expect(out.equals(plain)).toBe(true);
      const chunks = Math.max(1, Math.ceil(size / FILE_CHUNK));
      expect(ct.length).toBe(27 + size + 16 * (size % FILE_CHUNK === 0 && size > 0 ? chunks : Math.floor(size / FILE_CHUNK) + 1));
    });
  }

  // An upload's buffers come in any size: socket reads, multipart slices of 256 KiB,
  // pieces smaller than a chunk. However the bytes are cut, the file decrypts to them.
  it('round-trips whatever sizes the bytes arrive and are read back in, larger and smaller than a chunk', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 * FILE_CHUNK + 999 }), fc.array(fc.integer({ min: 1, max: 4 * FILE_CHUNK + 3 }), { minLength: 1, maxLength: 12 }), async (size, cuts) => {
        const plain = randomBytes(size);
        const pieces: Buffer[] = [];
        for (let i = 0, k = 0; i < size; k++) {
          const n = cuts[k % cuts.length]!;
          pieces.push(plain.subarray(i, i + n));
          i += n;
        }
        const { key } = crypto.newCaseKey('case-1');
        const ct = await buffer(Readable.from(pieces.length ? pieces : [Buffer.alloc(0)]).pipe(crypto.encryptFile(key, 'f1')));
        // Read back in pieces of other sizes, as the file store's reads and a range cut them.
        const back: Buffer[] = [];
        for (let i = 0, k = 0; i < ct.length; k++) {
          const n = cuts[(k + 1) % cuts.length]!;
          back.push(ct.subarray(i, i + n));
          i += n;
        }
        const out = await buffer(Readable.from(back).pipe(crypto.decryptFile(key, 'f1')));
        expect(out.equals(plain)).toBe(true);
        expect(ct.length).toBe(27 + size + 16 * Math.max(1, Math.ceil(size / FILE_CHUNK)));
      }),
      { numRuns: 60 },
    );
  });

  it('detects a flipped bit', async () => {
    await expect(roundTrip(randomBytes(100_000), 'f', (ct) => { const c = Buffer.from(ct); c[5000]! ^= 1; return c; })).rejects.toThrow(DecryptionError);
  });

  it('detects truncation, also exactly at a chunk boundary', async () => {
    const plain = randomBytes(3 * FILE_CHUNK);
    await expect(roundTrip(plain, 'f', (ct) => ct.subarray(0, ct.length - 100))).rejects.toThrow(DecryptionError);
    await expect(roundTrip(plain, 'f', (ct) => ct.subarray(0, 27 + 2 * (FILE_CHUNK + 16)))).rejects.toThrow(DecryptionError);
  });

  it('detects swapped chunks and a file moved to another id', async () => {
    const plain = randomBytes(3 * FILE_CHUNK);
    const block = FILE_CHUNK + 16;
    await expect(
      roundTrip(plain, 'f', (ct) => Buffer.concat([ct.subarray(0, 27), ct.subarray(27 + block, 27 + 2 * block), ct.subarray(27, 27 + block), ct.subarray(27 + 2 * block)])),
    ).rejects.toThrow(DecryptionError);
    const { key } = crypto.newCaseKey('x');
    const ct = await buffer(Readable.from([plain]).pipe(crypto.encryptFile(key, 'file-a')));
    await expect(buffer(Readable.from([ct]).pipe(crypto.decryptFile(key, 'file-b')))).rejects.toThrow(DecryptionError);
  });
});

describe('secrets in the data folder', () => {
  it('generates a key file once with mode 0600 and reads it back; rejects a bad MASTER_KEY', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-secret-'));
    try {
      const a = loadSecret({ name: 'k', dataDir: dir, file: 'master.key', bytes: 32 });
      const b = loadSecret({ name: 'k', dataDir: dir, file: 'master.key', bytes: 32 });
      expect(a.equals(b)).toBe(true);
      expect(a.length).toBe(32);
      expect(statSync(path.join(dir, 'master.key')).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(path.join(dir, 'master.key'), 'utf8').trim(), 'base64').equals(a)).toBe(true);
      const env = randomBytes(32).toString('base64');
      expect(loadSecret({ name: 'k', fromEnv: env, dataDir: dir, file: 'x', bytes: 32 }).toString('base64')).toBe(env);
      expect(() => loadSecret({ name: 'MASTER_KEY', fromEnv: 'c2hvcnQ=', dataDir: dir, file: 'x', bytes: 32 })).toThrow(/MASTER_KEY must be 32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('password hashing', () => {
  it('uses Argon2id with the pepper: right password verifies, wrong password and wrong pepper do not', async () => {
    const pepper = randomBytes(32);
    const h = await hashPassword('correct horse', pepper);
    expect(h).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(h, 'correct horse', pepper)).toBe(true);
    expect(await verifyPassword(h, 'wrong horse', pepper)).toBe(false);
    expect(await verifyPassword(h, 'correct horse', randomBytes(32))).toBe(false);
    expect(await verifyPassword('not a hash', 'x', pepper)).toBe(false);
    const p = new Passwords(pepper);
    expect(await p.verify(await p.hash('abcd'), 'abcd')).toBe(true);
    expect(await p.verifyNothing('abcd')).toBe(false);
  });
});
