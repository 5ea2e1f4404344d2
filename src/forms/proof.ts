/**
 * The browser's side of the proof-of-work (docs/api.md "Proof of work"), supplied to
 * the report machines as `solveProofOfWork`: fetch a challenge and solve it in a Web
 * Worker while the reporter types. A proof still fresh is handed back as it is.
 */
import type { ApiClient } from '../api/client.ts';
import type { PowChallenge, PowProof } from '../../core/pow.ts';
import { startPinnedWorker } from '../integrity/worker.ts';
// The built worker's address, started only once its bytes match the page's digest for it.
import powWorkerUrl from './pow.worker.ts?worker&url';

/** A proof closer than this to its expiry is replaced rather than sent. */
const FRESH_FOR_MS = 10 * 60 * 1000;

export function isFresh(proof: PowProof | null, now = Date.now()): proof is PowProof {
  return proof !== null && Date.parse(proof.expiresAt) - now > FRESH_FOR_MS;
}

async function solveInWorker(challenge: PowChallenge, signal?: AbortSignal): Promise<string> {
  const worker = await startPinnedWorker(new URL(powWorkerUrl, location.href), signal);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      worker.terminate();
      reject(new DOMException('aborted', 'AbortError'));
      return;
    }
    const stop = () => {
      worker.terminate();
      reject(new DOMException('aborted', 'AbortError'));
    };
    signal?.addEventListener('abort', stop, { once: true });
    worker.onmessage = (e: MessageEvent<{ nonce: string | null }>) => {
      signal?.removeEventListener('abort', stop);
      worker.terminate();
      if (e.data.nonce === null) reject(new Error('no solution'));
      else resolve(e.data.nonce);
    };
    worker.onerror = (e) => {
      signal?.removeEventListener('abort', stop);
      worker.terminate();
      reject(new Error(`proof-of-work worker failed: ${e.message}`));
    };
    worker.postMessage({ challenge: challenge.challenge, difficulty: challenge.difficulty });
  });
}

export async function solveProofOfWork(api: ApiClient, given: PowProof | null, signal?: AbortSignal): Promise<PowProof> {
  if (isFresh(given)) return given;
  const challenge = await api.json<PowChallenge>('/api/public/pow/challenge', { signal });
  // Work factor 0: the server asks for no work, any nonce will do.
  const nonce = challenge.difficulty > 0 ? await solveInWorker(challenge, signal) : '0';
  return { challenge: challenge.challenge, nonce, expiresAt: challenge.expiresAt };
}
