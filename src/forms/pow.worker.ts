/**
 * Solves one proof-of-work challenge off the main thread, so typing never stutters
 * (core/pow.ts `solveProof` has the rule and the search: WebCrypto's native SHA-256
 * in batches, the same with or without the JavaScript JIT, or plain JavaScript where
 * that is faster, as where the JIT runs, or the only one, as in no secure context).
 * Message in: `{ challenge, difficulty }`; out: `{ nonce }`. The page terminates the
 * worker when it no longer needs the answer.
 */
import { solveProof } from '../../core/pow.ts';

self.onmessage = async (e: MessageEvent<{ challenge: string; difficulty: number }>) => {
  const nonce = await solveProof(e.data.challenge, e.data.difficulty);
  self.postMessage({ nonce });
};
