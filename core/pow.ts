/**
 * The proof-of-work a client attaches to an anonymous submission
 * (docs/api.md "Proof of work"): find a nonce so that SHA-256(challenge + ":" +
 * nonce) starts with `difficulty` zero bits. One module for the SPA's Web Worker,
 * the tests and any scripted client; the server checks with node:crypto
 * (server/security/pow.ts).
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

/**
 * Searches nonces 0, 1, 2 … (in base 36) until one solves the challenge. Synchronous
 * and CPU-bound: in a browser, run it in a Web Worker. `shouldStop` is asked every
 * few thousand tries, so a caller can give up.
 */
export function solve(challenge: string, difficulty: number, shouldStop: () => boolean = () => false): string | null {
  const prefix = encoder.encode(`${challenge}:`);
  const buf = new Uint8Array(prefix.length + 16);
  buf.set(prefix);
  for (let n = 0; ; n++) {
    if ((n & 0xfff) === 0 && n > 0 && shouldStop()) return null;
    const nonce = n.toString(36);
    for (let i = 0; i < nonce.length; i++) buf[prefix.length + i] = nonce.charCodeAt(i);
    if (leadingZeroBits(sha256(buf.subarray(0, prefix.length + nonce.length))) >= difficulty) return nonce;
  }
}

/** The header value for a solved challenge. */
export function proofHeader(proof: Pick<PowProof, 'challenge' | 'nonce'>): string {
  return `${proof.challenge}:${proof.nonce}`;
}
