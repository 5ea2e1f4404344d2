/**
 * Solves one proof-of-work challenge off the main thread, so typing never stutters
 * (core/pow.ts has the rule). Message in: `{ challenge, difficulty }`; out:
 * `{ nonce }`. The page terminates the worker when it no longer needs the answer.
 */
import { solve } from '../../core/pow.ts';

self.onmessage = (e: MessageEvent<{ challenge: string; difficulty: number }>) => {
  const nonce = solve(e.data.challenge, e.data.difficulty);
  self.postMessage({ nonce });
};
