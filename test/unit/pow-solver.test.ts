/**
 * The proof-of-work searches (core/pow.ts; issue 42 item 7): the native one
 * (WebCrypto's SHA-256 in batches, what a browser without the JIT needs), the
 * client's choice between it and plain JavaScript, and the sign-in page's worker
 * (server/idp/assets/signin-pow.worker.js) each answer random challenges of the
 * server's own issue with a proof the server's verifier (server/security/pow.ts)
 * accepts, and the same nonce as the plain-JavaScript search. How fast is a figure
 * of `npm run bench -- pow`, never asserted here.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isSolution, proofHeader, solve, solveNative, solveProof } from '../../core/pow.ts';
import { ProofOfWork } from '../../server/security/pow.ts';
import type { Database } from '../../server/db/database.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The two statements `spend` runs on `pow_spent`, kept in a set: the verifier's own code does the rest. */
function spentTable(): Database {
  const spent = new Set<string>();
  const chain = (run: () => unknown) => {
    const c: Record<string, unknown> = {};
    for (const m of ['values', 'onConflict', 'returning', 'where']) c[m] = () => c;
    c.executeTakeFirst = async () => run();
    c.execute = async () => run();
    return c;
  };
  let row: { id: string } | undefined;
  return {
    insertInto: () => {
      const c = chain(() => row);
      c.values = (v: { id: string }) => {
        row = spent.has(v.id) ? undefined : { id: v.id };
        spent.add(v.id);
        return c;
      };
      return c;
    },
    deleteFrom: () => chain(() => []),
  } as unknown as Database;
}

const verifier = (difficulty: number) => new ProofOfWork(randomBytes(32), spentTable(), { difficulty, ttlSeconds: 600 });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the native proof-of-work search', () => {
  it('answers random challenges with proofs the server accepts, the nonce the plain search finds', async () => {
    const pow = verifier(10);
    for (let i = 0; i < 12; i++) {
      const { challenge, difficulty } = pow.issue();
      const nonce = (await solveNative(challenge, difficulty))!;
      expect(nonce).toBe(solve(challenge, difficulty));
      await expect(pow.spend(proofHeader({ challenge, nonce }))).resolves.toBeUndefined();
      // Spent: the same proof is refused the second time.
      await expect(pow.spend(proofHeader({ challenge, nonce }))).rejects.toMatchObject({ code: 'POW_REUSED' });
    }
  });

  it('finds the first solution across batch boundaries, whatever the batch', async () => {
    for (const batch of [1, 7, 64, 1000]) {
      const challenge = randomBytes(12).toString('base64url');
      const nonce = (await solveNative(challenge, 9, { batch }))!;
      expect(nonce).toBe(solve(challenge, 9));
      expect(isSolution(challenge, nonce, 9)).toBe(true);
    }
  });

  it('gives up when asked to', async () => {
    await expect(solveNative('never', 60, { batch: 16, shouldStop: () => true })).resolves.toBeNull();
  });
});

describe("the client's solver", () => {
  it('with WebCrypto: a proof the server accepts, the plain search\'s nonce', async () => {
    const pow = verifier(13);
    for (let i = 0; i < 6; i++) {
      const { challenge, difficulty } = pow.issue();
      const nonce = (await solveProof(challenge, difficulty))!;
      expect(nonce).toBe(solve(challenge, difficulty));
      await expect(pow.spend(proofHeader({ challenge, nonce }))).resolves.toBeUndefined();
    }
  });

  it('without WebCrypto (no secure context): plain JavaScript, the same answer', async () => {
    const pow = verifier(10);
    const { challenge, difficulty } = pow.issue();
    const expected = solve(challenge, difficulty);
    vi.stubGlobal('crypto', undefined);
    const nonce = (await solveProof(challenge, difficulty))!;
    vi.unstubAllGlobals();
    expect(nonce).toBe(expected);
    await expect(pow.spend(proofHeader({ challenge, nonce }))).resolves.toBeUndefined();
  });
});

describe("the sign-in page's worker", () => {
  /** The worker as the provider serves it: beside the @noble/hashes modules under noble/. */
  async function loadWorker(): Promise<(subtle: SubtleCrypto | undefined, challenge: string, difficulty: number) => Promise<string>> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-signin-pow-'));
    mkdirSync(path.join(dir, 'noble'));
    copyFileSync(path.join(ROOT, 'server/idp/assets/signin-pow.worker.js'), path.join(dir, 'worker.js'));
    const noble = path.dirname(createRequire(import.meta.url).resolve('@noble/hashes/sha2.js'));
    for (const name of ['sha2.js', '_md.js', '_u64.js', 'utils.js']) copyFileSync(path.join(noble, name), path.join(dir, 'noble', name));
    const self: { crypto?: { subtle?: SubtleCrypto }; onmessage?: (e: { data: unknown }) => void; postMessage?: (m: { nonce: string }) => void } = {};
    vi.stubGlobal('self', self);
    await import(pathToFileURL(path.join(dir, 'worker.js')).href);
    const onmessage = self.onmessage!;
    return (subtle, challenge, difficulty) =>
      new Promise((resolve) => {
        self.crypto = subtle ? { subtle } : {};
        self.postMessage = (m) => resolve(m.nonce);
        onmessage({ data: { challenge, difficulty } });
      });
  }

  it('with and without WebCrypto: proofs the server accepts, the nonce core/pow.ts finds', async () => {
    const run = await loadWorker();
    const pow = verifier(11);
    for (const subtle of [globalThis.crypto.subtle, globalThis.crypto.subtle, undefined]) {
      const { challenge, difficulty } = pow.issue();
      const nonce = await run(subtle, challenge, difficulty);
      expect(nonce).toBe(solve(challenge, difficulty));
      await expect(pow.spend(proofHeader({ challenge, nonce }))).resolves.toBeUndefined();
    }
  });
});
