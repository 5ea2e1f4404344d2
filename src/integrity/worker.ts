/**
 * Workers pinned by their digests (docs/decisions/code-integrity.md). A `new Worker(url)`
 * takes no integrity, so the worker's bytes are fetched with the digest the page's
 * import map records for them (server/integrity.ts), the browser refusing any other
 * bytes, and the worker is started from a blob: URL of exactly those bytes. Vite
 * builds each worker as one self-contained file, so it imports nothing unchecked.
 *
 * The CSP requires Trusted Types for script URLs: this module's policy, `wb-worker`,
 * is the only one the SPA makes, and it names only blob: URLs this module made from
 * checked bytes. A worker the page has no digest for is refused, never started
 * unchecked (the Vite dev server, which writes no import map, excepted).
 */

interface TrustedScriptURLPolicy {
  createScriptURL(url: string): unknown;
}

const minted = new Set<string>();
let policy: TrustedScriptURLPolicy | null | undefined;

function workerPolicy(): TrustedScriptURLPolicy | null {
  if (policy !== undefined) return policy;
  const tt = (globalThis as { trustedTypes?: { createPolicy(name: string, rules: { createScriptURL(url: string): string }): TrustedScriptURLPolicy } }).trustedTypes;
  policy = tt
    ? tt.createPolicy('wb-worker', {
        createScriptURL(url: string) {
          if (minted.has(url) || (import.meta.env.DEV && new URL(url, location.href).origin === location.origin)) return url;
          throw new TypeError(`wb-worker: not a checked worker: ${url}`);
        },
      })
    : null;
  return policy;
}

/** The digest the page's import map records for a served path, if any. */
export function pinnedIntegrity(pathname: string): string | undefined {
  if (typeof document === 'undefined') return undefined;
  for (const el of document.querySelectorAll('script[type="importmap"]')) {
    try {
      const map = JSON.parse(el.textContent ?? '') as { integrity?: Record<string, unknown> };
      const value = map.integrity?.[pathname];
      if (typeof value === 'string') return value;
    } catch {
      // Not ours: the browser reports a malformed map itself.
    }
  }
  return undefined;
}

/** Raised when a worker's bytes are not the ones the page's digests name: the work is not done. */
export class WorkerIntegrityError extends Error {
  override name = 'WorkerIntegrityError';
}

/** Starts the module worker at `url` once its bytes have matched the page's digest for it. */
export async function startPinnedWorker(url: URL, signal?: AbortSignal): Promise<Worker> {
  const integrity = pinnedIntegrity(url.pathname);
  const tt = workerPolicy();
  if (!integrity) {
    if (!import.meta.env.DEV) throw new WorkerIntegrityError(`no digest for ${url.pathname}`);
    return new Worker((tt ? tt.createScriptURL(url.href) : url) as string | URL, { type: 'module' });
  }
  let bytes: Blob;
  try {
    const res = await fetch(url, { integrity, signal, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    bytes = await res.blob();
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new WorkerIntegrityError(`${url.pathname} does not match its digest or could not be read: ${(err as Error).message}`);
  }
  const blobUrl = URL.createObjectURL(new Blob([bytes], { type: 'text/javascript' }));
  minted.add(blobUrl);
  try {
    return new Worker((tt ? tt.createScriptURL(blobUrl) : blobUrl) as string, { type: 'module' });
  } finally {
    // The worker has its script once it is constructed and fetching begins; the URL need not outlive it.
    minted.delete(blobUrl);
    setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000);
  }
}
