/**
 * Scripted handler enrolment and sign-in, as the workspace's browser does them
 * (core/crypto/handler-wire.ts): the key bundle made from a password, and the verifier
 * from the salt the server answers. PBKDF2 at its floor (native WebCrypto) keeps tests
 * quick; the browser's choice (Argon2id) is the e2e journeys'.
 */
import { makeHandlerKeyBundle, handlerSignInProof, PBKDF2_DEFAULT, type HandlerKeyBundle, type Kdf } from '../../core/crypto/index.ts';

const proofs = new Map<string, Promise<string>>();

/** A key bundle for `password` (what enrolment/finish and a legacy upgrade take). */
export async function keyBundle(password: string): Promise<HandlerKeyBundle> {
  return (await makeHandlerKeyBundle(password, { kdf: { ...PBKDF2_DEFAULT } })).bundle;
}

/** The verifier for `password` under the salt answer; the same inputs always give the same verifier, so it is kept. */
export function verifierFor(password: string, answer: { salt: string; kdf: Kdf }): Promise<string> {
  const key = `${password}\u0000${answer.salt}\u0000${JSON.stringify(answer.kdf)}`;
  let p = proofs.get(key);
  if (!p) proofs.set(key, (p = handlerSignInProof({ password }, answer.salt, answer.kdf).then((r) => r.verifier)));
  return p;
}

/** `{ email, verifier }` for a sign-in body: asks the salt through `post`, derives. */
export async function signInProof(post: (path: string, json: unknown) => Promise<{ status: number; data: any }>, email: string, password: string): Promise<{ email: string; verifier: string }> {
  const salt = await post('/api/handler/session/salt', { email });
  if (salt.status !== 200) throw new Error(`salt answered ${salt.status}`);
  return { email, verifier: await verifierFor(password, salt.data) };
}
