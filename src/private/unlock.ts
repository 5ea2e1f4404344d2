/**
 * The case password asked for once in the private area (issue 37, docs/decisions/
 * blind-server.md "Reporters"): with an external OpenID issuer no sign-in page of ours
 * derived the reporter key, so the page derives it here from the case number (the
 * token's claim) and the password typed into the session chart's `askingPassword`,
 * with the case's salt and kdf from the same look-up the provider's sign-in page makes.
 * The key goes where the sign-in page would put it: this tab's sessionStorage
 * (`REPORTER_KEY_HANDOVER`), read into memory by src/private/reporterKey.ts; never a
 * URL, cookie or request. The password lives in this call only.
 */
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';

/** The salt and kdf of a case number (server/idp/index.ts `kdfFor`): one POST, the number in no URL. */
export const KDF_PATH = '/idp/realms/whistleblower/signin/kdf';

export async function handOverFromPassword(
  input: { origin: string; caseNumber: string; password: string },
  storage: Storage,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(`${input.origin}${KDF_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ caseNumber: input.caseNumber }),
    credentials: 'same-origin',
    signal,
  });
  if (!res.ok) throw new Error(`kdf ${res.status}`);
  const answer = (await res.json()) as { salt?: unknown; kdf?: { name?: unknown } };
  // A case made before verifiers is never sealed: nothing to derive for it here.
  if (typeof answer.salt !== 'string' || !answer.kdf || answer.kdf.name === 'legacy') throw new Error('no derivation for this case');
  const { deriveReporterKeyBytes, fromBase64, toBase64 } = await import('../../core/crypto/index.ts');
  const salt = fromBase64(answer.salt.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = await deriveReporterKeyBytes({ caseNumber: input.caseNumber, password: input.password, salt, kdf: answer.kdf as never });
  try {
    storage.setItem(REPORTER_KEY_HANDOVER, JSON.stringify({ k: toBase64(bytes), t: Date.now() }));
  } finally {
    bytes.fill(0);
  }
}
