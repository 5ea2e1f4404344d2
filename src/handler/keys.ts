/**
 * The handler's keys in the browser (docs/decisions/blind-server.md, "Handlers" and "Key
 * authenticity"): the effects the session, enrolment and key-log charts name. Keys are
 * made, sealed, opened and signed with core/crypto only; what leaves the page is the
 * verifier, public keys, sealed copies and signed log entries.
 *
 * The browser remembers, per company host, the recovery key's fingerprint and the last
 * key-log head it verified (public values, localStorage), and refuses a log that does
 * not extend them: a server that swaps the anchor or rewrites the log is caught here.
 */
import { hasRecoveryCodeShape } from '../../core/recovery-shape.ts';
import { POW_HEADER, solveProof, type PowChallenge } from '../../core/pow.ts';
import {
  EnvelopeError,
  fromBase64,
  handlerSignInProof,
  keyFingerprint,
  keyId,
  makeHandlerKeyBundle,
  makeHandlerKeys,
  normaliseRecoveryCode,
  openPrivateKeys,
  openPrivateKeysWith,
  signKeyLogEntry,
  toBase64,
  verifyKeyLog,
  type HandlerKeyBundle,
  type Kdf,
  type KeyLogEntry,
  type KeyLogHead,
} from '../../core/crypto/index.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { Credentials, HandlerProfile, OpenedKeys, SessionAnswer, UnlockAnswer } from '../../machines/handler/session.ts';
import type { KeyLogAnswer } from '../../machines/handler/keyLog.ts';

interface SaltAnswer {
  salt: string;
  kdf: Kdf;
  legacy?: true;
}

interface SealedKeys {
  salt: string;
  kdf: Kdf;
  ecdhSpki: string;
  ecdsaSpki: string;
  sealedKeys: string;
  sealedKeysRecovery: string;
}

interface PublicKeyLog {
  anchor: { ecdhSpki: string; ecdsaSpki: string; fingerprint: string } | null;
  entries: KeyLogEntry[];
}

export interface Colleague {
  id: string;
  name: string;
  email: string | null;
  ecdhSpki: string;
  ecdsaSpki: string;
  officerIds: string[];
  /** A disabled account: not offered for certification, its logged key not a live recipient. */
  disabled: boolean;
}

async function status<T>(run: () => Promise<T>): Promise<{ status: number; data?: T }> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status };
    throw err;
  }
}

async function withCode<T>(run: () => Promise<T>): Promise<{ status: number; data?: T; code?: string }> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
    throw err;
  }
}

/**
 * The typed secret when it has a key recovery code's shape (core/recovery-shape.ts), else
 * undefined: then it is a password. Normalising alone is not enough, since it drops every
 * space and a passphrase of 28 letters (e.g. "a long administrator passphrase") would be
 * read as a code and never sign in.
 */
export function asRecoveryCode(secret: string): string | undefined {
  if (!hasRecoveryCodeShape(secret)) return undefined;
  try {
    normaliseRecoveryCode(secret);
    return secret;
  } catch {
    return undefined;
  }
}

export function handlerKeys(api: ApiClient, storage: Pick<Storage, 'getItem' | 'setItem'>, host: string) {
  const sealed = () => status(() => api.json<SealedKeys>('/api/handler/keys'));

  /**
   * During a burst of failed sign-ins the server asks for a proof-of-work (403
   * POW_REQUIRED, docs/decisions/administration.md): fetch the challenge, solve it
   * (core/pow.ts, as the reporter's side), and send the same sign-in again with it.
   */
  const signInWith = async (c: Credentials, body: Record<string, unknown>): Promise<SessionAnswer> => {
    type Answer = { handler: HandlerProfile; signIn?: { failedSignIns: number } };
    const send = (headers?: Record<string, string>) => withCode(() => api.json<Answer>('/api/handler/session', { method: 'POST', body: { email: c.email, code: c.code, ...body }, headers }));
    let r = await send();
    if (r.code === 'POW_REQUIRED') {
      const { challenge } = await api.json<{ challenge: PowChallenge | null }>('/api/handler/session/challenge');
      if (!challenge) return { status: 403 };
      const nonce = await solveProof(challenge.challenge, challenge.difficulty);
      if (nonce === null) return { status: 403 };
      r = await send({ [POW_HEADER]: `${challenge.challenge}:${nonce}` });
    }
    return { status: r.status, handler: r.data ? { ...r.data.handler, ...(r.data.signIn ? { failedSignIns: r.data.signIn.failedSignIns } : {}) } : undefined };
  };

  /**
   * Sign-in: the salt, one derivation, the verifier sent, and the keys opened with the
   * same derivation. A legacy account sends the password this once, with the keys made
   * now, and gets its key recovery code to note.
   */
  const signIn = async (c: Credentials): Promise<SessionAnswer> => {
    const salt = await status(() => api.json<SaltAnswer>('/api/handler/session/salt', { method: 'POST', body: { email: c.email } }));
    if (salt.status !== 200 || !salt.data) return { status: salt.status };
    if (salt.data.legacy) {
      const made = await makeHandlerKeyBundle(c.password);
      const r = await signInWith(c, { password: c.password, keys: made.bundle satisfies HandlerKeyBundle });
      return r.status === 200 ? { ...r, keys: made.keys, recoveryCode: made.recoveryCode } : r;
    }
    // A lost password: the key recovery code signs in in its place and opens its own sealed copy.
    const recoveryCode = asRecoveryCode(c.password);
    let proof: { verifier: string; keysKey: CryptoKey };
    try {
      proof = await handlerSignInProof(recoveryCode ? { recoveryCode } : { password: c.password }, salt.data.salt, salt.data.kdf);
    } catch (err) {
      // A derivation weaker than the floor is refused here, whatever the server says.
      if (err instanceof EnvelopeError) return { status: 400 };
      throw err;
    }
    const r = await signInWith(c, { verifier: proof.verifier });
    if (r.status !== 200) return r;
    const s = await sealed().catch(() => ({ status: 0 }) as { status: number; data?: SealedKeys });
    if (s.status !== 200 || !s.data) return r;
    try {
      return { ...r, keys: await openPrivateKeysWith(proof.keysKey, fromBase64(recoveryCode ? s.data.sealedKeysRecovery : s.data.sealedKeys)) };
    } catch {
      return r;
    }
  };

  /** After a reload: the password or the key recovery code opens the sealed copy made for it. */
  const unlock = async (secret: string): Promise<UnlockAnswer> => {
    const s = await sealed();
    if (s.status === 404) return { outcome: 'missing' };
    if (s.status !== 200 || !s.data) throw new Error(`keys answered ${s.status}`);
    const recoveryCode = asRecoveryCode(secret);
    try {
      const keys = recoveryCode
        ? await openPrivateKeys(fromBase64(s.data.sealedKeysRecovery), { recoveryCode }, fromBase64(s.data.salt), s.data.kdf)
        : await openPrivateKeys(fromBase64(s.data.sealedKeys), { password: secret }, fromBase64(s.data.salt), s.data.kdf);
      return { outcome: 'opened', keys };
    } catch (err) {
      if (err instanceof EnvelopeError) return { outcome: 'refused' };
      throw err;
    }
  };

  const memoryKey = `wb:handler:key-log:${host}`;
  const remembered = (): { fingerprint: string; head: KeyLogHead | null } | null => {
    try {
      const v = JSON.parse(storage.getItem(memoryKey) ?? 'null') as { fingerprint?: unknown; head?: { seq?: unknown; hash?: unknown } | null } | null;
      if (!v || typeof v.fingerprint !== 'string') return null;
      const head = v.head && typeof v.head.seq === 'number' && typeof v.head.hash === 'string' ? { seq: v.head.seq, hash: v.head.hash } : null;
      return { fingerprint: v.fingerprint, head };
    } catch {
      return null;
    }
  };

  /** The log, verified here against the anchor and what this browser saw before. */
  const verifiedLog = async () => {
    const log = await api.json<PublicKeyLog>('/api/public/key-log');
    const memory = remembered();
    if (!log.anchor) return memory ? ({ ok: false, reason: 'anchor' } as const) : ({ ok: true, log, anchorId: null, result: null } as const);
    const anchorSpki = fromBase64(log.anchor.ecdsaSpki);
    const anchorId = await keyId(anchorSpki);
    if (memory && memory.fingerprint !== anchorId) return { ok: false, reason: 'anchor' } as const;
    const result = await verifyKeyLog(log.entries, anchorSpki, memory?.head ? { knownHead: memory.head } : {});
    if (!result.ok) return { ok: false, reason: result.reason } as const;
    storage.setItem(memoryKey, JSON.stringify({ fingerprint: anchorId, head: result.head }));
    return { ok: true, log, anchorId, result } as const;
  };

  const loadKeyLog = async (own: { keys: OpenedKeys; handlerId: string }): Promise<KeyLogAnswer> => {
    const v = await verifiedLog();
    if (!v.ok) return { status: 'refused', reason: v.reason };
    const mineId = await keyId(own.keys.ecdsaSpki);
    const active = new Set((v.result?.keys ?? []).map((k) => k.ecdsaKeyId));
    const { handlers } = await api.json<{ handlers: Colleague[] }>('/api/handler/keys/colleagues');
    const pending = [];
    for (const h of handlers) {
      if (h.disabled || h.id === own.handlerId || active.has(await keyId(fromBase64(h.ecdsaSpki)))) continue;
      pending.push({ id: h.id, name: h.name, email: h.email, fingerprint: await keyFingerprint(h.ecdsaSpki) });
    }
    // A logged key whose account is disabled, or holds another key or none (removed, reset),
    // is not a recipient any more; the log keeps it until a certifier signs its removal.
    const closed = [];
    for (const k of v.result?.keys ?? []) {
      const holder = handlers.find((h) => h.id === k.handlerId);
      const held = holder && (await keyId(fromBase64(holder.ecdsaSpki))) === k.ecdsaKeyId;
      if (held && !holder.disabled) continue;
      closed.push({ handlerId: k.handlerId, name: holder?.name ?? null, fingerprint: await keyFingerprint(k.ecdsaSpki), why: held ? ('disabled' as const) : ('gone' as const) });
    }
    return {
      status: 'ok',
      view: {
        anchorFingerprint: v.anchorId ? await keyFingerprint(v.log.anchor!.ecdsaSpki) : null,
        headSeq: v.result?.head?.seq ?? 0,
        mine: { fingerprint: await keyFingerprint(own.keys.ecdsaSpki), certified: active.has(mineId) },
        pending,
        closed,
      },
    };
  };

  /** The next entry of the verified log for `subject`, signed by `certifier`. */
  const appendFor = async (certifier: { privateKey: CryptoKey; spki: Uint8Array }, subject: { handlerId: string; ecdhSpki: string; ecdsaSpki: string; officerIds: string[] }) => {
    const v = await verifiedLog();
    if (!v.ok) return { status: 409 };
    const entry = await signKeyLogEntry(certifier.privateKey, {
      seq: (v.result?.head?.seq ?? 0) + 1,
      handlerId: subject.handlerId,
      ecdhSpki: subject.ecdhSpki,
      ecdsaSpki: subject.ecdsaSpki,
      officerIds: subject.officerIds,
      addedAt: new Date().toISOString(),
      action: 'add',
      prevHash: v.result?.head?.hash ?? '',
      certifierKeyId: await keyId(certifier.spki),
    });
    const r = await status(() => api.json<{ seq: number; hash: string }>('/api/handler/key-log', { method: 'POST', body: entry }));
    if (r.status === 200 && r.data) storage.setItem(memoryKey, JSON.stringify({ fingerprint: remembered()?.fingerprint, head: r.data }));
    return { status: r.status === 200 ? 201 : r.status };
  };

  /**
   * The company's recovery key, made here: its public half set as the anchor, the first
   * handler (this one) certified by it, its private half returned once to print and
   * then dropped with this function's scope.
   */
  const makeAnchor = async (own: { keys: OpenedKeys; handler: HandlerProfile }): Promise<{ status: number; recoveryKey?: string }> => {
    const recovery = await makeHandlerKeys();
    const set = await status(() => api.json('/api/handler/key-anchor', { method: 'POST', body: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) } }));
    if (set.status !== 200) return { status: set.status };
    const appended = await appendFor(
      { privateKey: recovery.ecdsa.privateKey, spki: recovery.ecdsaSpki },
      { handlerId: own.handler.id, ecdhSpki: toBase64(own.keys.ecdhSpki), ecdsaSpki: toBase64(own.keys.ecdsaSpki), officerIds: own.handler.officers },
    );
    if (appended.status !== 201) return { status: appended.status };
    const pkcs8 = async (k: CryptoKey) => toBase64(new Uint8Array(await crypto.subtle.exportKey('pkcs8', k)));
    const printable = JSON.stringify({ v: 1, kind: 'wb-company-recovery-key', ecdh: await pkcs8(recovery.ecdh.privateKey), ecdsa: await pkcs8(recovery.ecdsa.privateKey) });
    return { status: 201, recoveryKey: btoa(printable).match(/.{1,64}/g)!.join('\n') };
  };

  const certify = async (own: { keys: OpenedKeys }, handlerId: string): Promise<{ status: number }> => {
    const { handlers } = await api.json<{ handlers: Colleague[] }>('/api/handler/keys/colleagues');
    const colleague = handlers.find((h) => h.id === handlerId);
    if (!colleague) return { status: 404 };
    if (colleague.disabled) return { status: 409 };
    return appendFor({ privateKey: own.keys.ecdsa.privateKey, spki: own.keys.ecdsaSpki }, { handlerId, ecdhSpki: colleague.ecdhSpki, ecdsaSpki: colleague.ecdsaSpki, officerIds: colleague.officerIds });
  };

  /** Enrolment: the keys made and sealed here; the server gets the bundle, the page the key recovery code. */
  const enrolmentKeys = async (password: string) => {
    const made = await makeHandlerKeyBundle(password);
    return { bundle: made.bundle, keyRecoveryCode: made.recoveryCode };
  };

  return { signIn, unlock, loadKeyLog, makeAnchor, certify, enrolmentKeys, verifiedLog };
}

export type HandlerKeysApi = ReturnType<typeof handlerKeys>;
