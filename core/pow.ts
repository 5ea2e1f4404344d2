/**
 * The proof-of-work a client attaches to an anonymous submission
 * (docs/api.md "Proof of work"): find a nonce so that SHA-256(challenge + ":" +
 * nonce) starts with `difficulty` zero bits. One module for the SPA's Web Worker,
 * the tests and any scripted client; the server checks with node:crypto
 * (server/security/pow.ts).
 *
 * Two searches over the same nonces, in the same order, so both find the same nonce:
 * `solveNative` hashes with WebCrypto's native SHA-256 in batches and costs the same
 * with or without the JavaScript JIT (Tor Browser's "Safer" level turns the JIT off;
 * plain-JavaScript SHA-256 is then ≈ 25 times slower: docs/decisions/submission-abuse.md);
 * `solve` hashes with @noble/hashes' plain-JavaScript SHA-256, faster where the JIT
 * runs and the only one where the context has no `crypto.subtle` (a page over http
 * from anything but localhost is no secure context). `solveProof` picks between them.
 * The sign-in page's worker (server/idp/assets/signin-pow.worker.js) is the same
 * search in plain JavaScript, as the provider serves it unbundled.
 */
import { sha256 } from '@noble/hashes/sha2.js';

/** What `GET /api/public/pow/challenge` answers. */
export interface PowChallenge {
  challenge: string;
  difficulty: number;
  /** ISO time after which the server refuses the challenge. */
  expiresAt: string;
}

/** A solved challenge, ready for the `X-Proof-Of-Work` header. */
export interface PowProof {
  challenge: string;
  nonce: string;
  expiresAt: string;
}

export const POW_HEADER = 'x-proof-of-work';

/** How many zero bits the digest starts with. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

const encoder = new TextEncoder();

/** Whether `nonce` solves `challenge` at `difficulty`. */
export function isSolution(challenge: string, nonce: string, difficulty: number): boolean {
  return leadingZeroBits(sha256(encoder.encode(`${challenge}:${nonce}`))) >= difficulty;
}

/** The bytes of challenge + ":" + nonce for nonce n (base 36), in one reused buffer. */
function candidates(challenge: string): (n: number) => Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${challenge}:`);
  const buf = new Uint8Array(prefix.length + 16);
  buf.set(prefix);
  return (n) => {
    const nonce = n.toString(36);
    for (let i = 0; i < nonce.length; i++) buf[prefix.length + i] = nonce.charCodeAt(i);
    return buf.subarray(0, prefix.length + nonce.length);
  };
}

/** The first n in [start, end) that solves, with plain-JavaScript SHA-256; -1 if none. */
function plainRange(input: (n: number) => Uint8Array<ArrayBuffer>, difficulty: number, start: number, end: number): number {
  for (let n = start; n < end; n++) if (leadingZeroBits(sha256(input(n))) >= difficulty) return n;
  return -1;
}

/**
 * Searches nonces 0, 1, 2 … (in base 36) until one solves the challenge, with
 * plain-JavaScript SHA-256. Synchronous and CPU-bound: in a browser, run it in a Web
 * Worker. `shouldStop` is asked every few thousand tries, so a caller can give up.
 */
export function solve(challenge: string, difficulty: number, shouldStop: () => boolean = () => false, from = 0): string | null {
  const input = candidates(challenge);
  for (let start = from; ; start += 0x1000) {
    if (start > from && shouldStop()) return null;
    const n = plainRange(input, difficulty, start, start + 0x1000);
    if (n >= 0) return n.toString(36);
  }
}

/** The part of WebCrypto the native search needs. */
export type Digest = Pick<SubtleCrypto, 'digest'>;

/** WebCrypto's digest where this context has it (browsers only in a secure context; Node ≥ 20). */
export function nativeDigest(): Digest | undefined {
  const subtle = (globalThis as { crypto?: { subtle?: Digest } }).crypto?.subtle;
  return subtle && typeof subtle.digest === 'function' ? subtle : undefined;
}

/**
 * Candidates hashed per round of `solveNative`: each round is one `Promise.all` of
 * native digests, and the next round is already asked for while one is checked, so
 * the digest thread is never idle. Large enough that the per-round cost vanishes,
 * small enough that little is hashed past the answer (`npm run bench -- pow`).
 */
export const NATIVE_BATCH = 1024;

/** The digests of `batch` candidates from `start`, asked for at once. */
function nativeRound(subtle: Digest, input: (n: number) => Uint8Array<ArrayBuffer>, start: number, batch: number): Promise<ArrayBuffer[]> {
  const digests = new Array<Promise<ArrayBuffer>>(batch);
  // The buffer is rewritten between calls, which is safe: `digest` copies its input
  // when called (WebCrypto: "get a copy of the bytes held by the buffer source").
  for (let k = 0; k < batch; k++) digests[k] = subtle.digest('SHA-256', input(start + k));
  return Promise.all(digests);
}

function firstSolved(digests: ArrayBuffer[], difficulty: number): number {
  for (let k = 0; k < digests.length; k++) if (leadingZeroBits(new Uint8Array(digests[k]!)) >= difficulty) return k;
  return -1;
}

export interface NativeSolveOptions {
  /** Default: `nativeDigest()`; throws if there is none. */
  digest?: Digest;
  batch?: number;
  /** The first nonce to try (the ones before are known not to solve). */
  from?: number;
  /** Asked before each round, so a caller can give up (the answer is then null). */
  shouldStop?: () => boolean;
}

/**
 * Searches nonces 0, 1, 2 … (in base 36) with WebCrypto's native SHA-256, `batch` at a
 * time, and answers the first that solves the challenge: the nonce `solve` finds.
 */
export async function solveNative(challenge: string, difficulty: number, opts: NativeSolveOptions = {}): Promise<string | null> {
  const subtle = opts.digest ?? nativeDigest();
  if (!subtle) throw new Error('no WebCrypto digest in this context');
  const batch = opts.batch ?? NATIVE_BATCH;
  const input = candidates(challenge);
  let next = nativeRound(subtle, input, opts.from ?? 0, batch);
  for (let start = opts.from ?? 0; ; start += batch) {
    const current = next;
    if (opts.shouldStop?.()) return null;
    next = nativeRound(subtle, input, start + batch, batch);
    const k = firstSolved(await current, difficulty);
    if (k >= 0) {
      next.catch(() => undefined);
      return (start + k).toString(36);
    }
  }
}

/**
 * How long `solveProof` runs the plain search before it decides (ms): its rate is read
 * on the second half, once the JIT (where there is one) has compiled the hash.
 * Without the JIT that is ≈ 500 hashes, a twentieth of a second lost.
 */
const PLAIN_TRIAL_MS = 80;
/** Nonces of the native search's trial round. */
const NATIVE_TRIAL = 1024;

/**
 * The client's solver (the SPA's worker; scripted clients may use it too). Where
 * WebCrypto is there, it times both searches on their first nonces and goes on with
 * the faster: the native digest costs the same with or without the JIT, while plain
 * JavaScript is ≈ 2 times faster than it with the JIT and ≈ 25 times slower without
 * (`npm run bench -- pow`). Without WebCrypto (no secure context), plain JavaScript
 * alone. Whichever runs, the answer is the nonce `solve` finds; `chose` hears which
 * search went on (for the bench).
 */
export async function solveProof(
  challenge: string,
  difficulty: number,
  shouldStop?: () => boolean,
  chose: (search: 'native' | 'plain') => void = () => undefined,
): Promise<string | null> {
  const subtle = nativeDigest();
  if (!subtle) {
    chose('plain');
    return solve(challenge, difficulty, shouldStop);
  }
  const input = candidates(challenge);
  const t0 = performance.now();
  let n = 0;
  let half: [number, number] | undefined;
  let plainRate: number;
  for (;;) {
    const found = plainRange(input, difficulty, n, n + 64);
    if (found >= 0) return found.toString(36);
    n += 64;
    const t = performance.now() - t0;
    if (!half && t >= PLAIN_TRIAL_MS / 2) half = [n, t];
    if (half && t >= PLAIN_TRIAL_MS) {
      plainRate = (n - half[0]) / Math.max(t - half[1], 0.001);
      break;
    }
  }
  try {
    const t1 = performance.now();
    const k = firstSolved(await nativeRound(subtle, input, n, NATIVE_TRIAL), difficulty);
    if (k >= 0) return (n + k).toString(36);
    n += NATIVE_TRIAL;
    if (NATIVE_TRIAL / Math.max(performance.now() - t1, 0.001) >= plainRate) {
      chose('native');
      return await solveNative(challenge, difficulty, { digest: subtle, from: n, ...(shouldStop ? { shouldStop } : {}) });
    }
  } catch {
    // A digest refused: the plain search still answers (from `n`: a refused round is searched again).
  }
  chose('plain');
  return solve(challenge, difficulty, shouldStop, n);
}

/** The header value for a solved challenge. */
export function proofHeader(proof: Pick<PowProof, 'challenge' | 'nonce'>): string {
  return `${proof.challenge}:${proof.nonce}`;
}
