/**
 * The key log: how a browser knows that a handler's public key is the handler's and not
 * one the server slipped in (docs/decisions/blind-server.md, "Key authenticity").
 *
 * An append-only list per company. Each entry adds or removes one handler's key pair,
 * names the officers the handler works for, links to the entry before it by hash, and
 * is signed (ECDSA P-256, SHA-256, IEEE P1363 r ‖ s, base64) by a certifier: the
 * company's recovery signing key (the trust anchor) or the ECDSA key of a handler
 * already added and not removed.
 *
 *     signed bytes = UTF-8 of canonicalJson(entry without `signature`)
 *     entry hash   = hex(SHA-256(canonicalJson(entry with `signature`)))
 *     prevHash     = the entry hash before it; "" for the first entry
 *     seq          = 1, 2, 3, … in order
 *
 * Invariants: verification accepts a log only as a whole (the first failure names its
 * reason and entry, and nothing of the log is used); a key counts only if every entry
 * up to the end verifies; a removed key certifies nothing after its removal.
 */
import { bufferSource, fromBase64, toBase64, toHex, utf8, type Bytes } from './bytes.ts';
import { keyId } from './box.ts';

export interface KeyLogEntry {
  seq: number;
  handlerId: string;
  /** The handler's ECDH P-256 public key (receives sealed boxes), SPKI in base64. */
  ecdhSpki: string;
  /** The handler's ECDSA P-256 public key (certifies later entries), SPKI in base64. */
  ecdsaSpki: string;
  officerIds: string[];
  /** ISO 8601. */
  addedAt: string;
  action: 'add' | 'remove';
  prevHash: string;
  /** keyId(SPKI) of the ECDSA key that signed: the anchor's or an active handler's. */
  certifierKeyId: string;
  signature: string;
}

export type UnsignedKeyLogEntry = Omit<KeyLogEntry, 'signature'>;

export type KeyLogFailure =
  /** An entry is not of the log's shape (fields, types, keys that do not import). */
  | 'format'
  /** seq is not the entry's place in the log. */
  | 'sequence'
  /** prevHash is not the hash of the entry before. */
  | 'chain'
  /** The certifier is neither the anchor nor a key the log has added. */
  | 'unknown-certifier'
  /** The certifier's key was removed before this entry. */
  | 'revoked-certifier'
  /** The signature does not verify (the entry was changed after signing, or signed by another key). */
  | 'signature'
  /** An add of a key that is already active. */
  | 'duplicate'
  /** A remove of a key that is not active for that handler. */
  | 'unknown-key'
  /** The log does not extend the head this browser saw before. */
  | 'fork';

export interface ActiveKey {
  handlerId: string;
  officerIds: string[];
  ecdhSpki: Bytes;
  ecdsaSpki: Bytes;
  /** keyId(ecdhSpki): the recipient key id of sealed boxes. */
  ecdhKeyId: string;
  ecdsaKeyId: string;
  /** The entry that added it. */
  seq: number;
}

export interface KeyLogHead {
  seq: number;
  hash: string;
}

export type KeyLogResult =
  | { ok: true; head: KeyLogHead | null; keys: ActiveKey[]; byOfficer: Map<string, ActiveKey[]> }
  | { ok: false; reason: KeyLogFailure; seq: number };

const ECDSA_SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const subtle = () => globalThis.crypto.subtle;
const FIELDS = ['action', 'addedAt', 'certifierKeyId', 'ecdhSpki', 'ecdsaSpki', 'handlerId', 'officerIds', 'prevHash', 'seq', 'signature'];

/**
 * JSON with object keys sorted (by UTF-16 code units) at every depth and no whitespace:
 * RFC 8785 for what the log holds (strings, integers, booleans, null, arrays, objects).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has finite numbers only');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot hold ${typeof value}`);
}

function unsigned(entry: KeyLogEntry): UnsignedKeyLogEntry {
  const { signature: _signature, ...rest } = entry;
  return rest;
}

/** The entry's hash, what the next entry's prevHash names. */
export async function hashKeyLogEntry(entry: KeyLogEntry): Promise<string> {
  return toHex(new Uint8Array(await subtle().digest('SHA-256', utf8(canonicalJson(entry)))));
}

/** The entry signed by the certifier's ECDSA private key (whose keyId the entry names). */
export async function signKeyLogEntry(certifierPrivateEcdsa: CryptoKey, entry: UnsignedKeyLogEntry): Promise<KeyLogEntry> {
  const signature = new Uint8Array(await subtle().sign(ECDSA_SIGN, certifierPrivateEcdsa, utf8(canonicalJson(entry))));
  return { ...entry, signature: toBase64(signature) };
}

function wellFormed(e: unknown): e is KeyLogEntry {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return false;
  const o = e as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  if (keys.length !== FIELDS.length || keys.some((k, i) => k !== FIELDS[i])) return false;
  const str = (k: string) => typeof o[k] === 'string';
  return (
    Number.isInteger(o.seq) &&
    ['handlerId', 'ecdhSpki', 'ecdsaSpki', 'addedAt', 'prevHash', 'certifierKeyId', 'signature'].every(str) &&
    Array.isArray(o.officerIds) &&
    o.officerIds.every((x) => typeof x === 'string') &&
    (o.action === 'add' || o.action === 'remove')
  );
}

async function importVerifyKey(spki: Uint8Array): Promise<CryptoKey | undefined> {
  try {
    return await subtle().importKey('spki', bufferSource(spki), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  } catch {
    return undefined;
  }
}

async function isEcdhKey(spki: Uint8Array): Promise<boolean> {
  try {
    await subtle().importKey('spki', bufferSource(spki), { name: 'ECDH', namedCurve: 'P-256' }, false, []);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks the whole log against the trust anchor (the company recovery key's ECDSA SPKI)
 * and, when given, the head this browser saw last; returns the keys it proves, every
 * active key under each officer it names.
 */
export async function verifyKeyLog(entries: readonly unknown[], anchorSpki: Uint8Array, options: { knownHead?: KeyLogHead } = {}): Promise<KeyLogResult> {
  const anchorId = await keyId(anchorSpki);
  const anchorKey = await importVerifyKey(anchorSpki);
  if (!anchorKey) return { ok: false, reason: 'format', seq: 0 };
  const active = new Map<string, ActiveKey & { verify: CryptoKey }>(); // by ecdsaKeyId
  const removed = new Set<string>(); // ecdsa key ids
  let prevHash = '';
  let head: KeyLogHead | null = null;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const fail = (reason: KeyLogFailure): KeyLogResult => ({ ok: false, reason, seq: i + 1 });
    if (!wellFormed(entry)) return fail('format');
    if (entry.seq !== i + 1) return fail('sequence');
    if (entry.prevHash !== prevHash) return fail('chain');
    let certifier: CryptoKey | undefined;
    if (entry.certifierKeyId === anchorId) certifier = anchorKey;
    else certifier = active.get(entry.certifierKeyId)?.verify;
    if (!certifier) return fail(removed.has(entry.certifierKeyId) ? 'revoked-certifier' : 'unknown-certifier');
    let signature: Bytes, ecdhSpki: Bytes, ecdsaSpki: Bytes;
    try {
      signature = fromBase64(entry.signature);
      ecdhSpki = fromBase64(entry.ecdhSpki);
      ecdsaSpki = fromBase64(entry.ecdsaSpki);
    } catch {
      return fail('format');
    }
    if (!(await subtle().verify(ECDSA_SIGN, certifier, signature, utf8(canonicalJson(unsigned(entry)))))) return fail('signature');
    const verify = await importVerifyKey(ecdsaSpki);
    if (!verify || !(await isEcdhKey(ecdhSpki))) return fail('format');
    const ecdhKeyId = await keyId(ecdhSpki);
    const ecdsaKeyId = await keyId(ecdsaSpki);
    if (entry.action === 'add') {
      if (active.has(ecdsaKeyId) || [...active.values()].some((k) => k.ecdhKeyId === ecdhKeyId)) return fail('duplicate');
      active.set(ecdsaKeyId, { handlerId: entry.handlerId, officerIds: [...entry.officerIds], ecdhSpki, ecdsaSpki, ecdhKeyId, ecdsaKeyId, seq: entry.seq, verify });
    } else {
      const current = active.get(ecdsaKeyId);
      if (!current || current.handlerId !== entry.handlerId || current.ecdhKeyId !== ecdhKeyId) return fail('unknown-key');
      active.delete(ecdsaKeyId);
      removed.add(ecdsaKeyId);
    }
    prevHash = await hashKeyLogEntry(entry);
    head = { seq: entry.seq, hash: prevHash };
    if (options.knownHead && options.knownHead.seq === entry.seq && options.knownHead.hash !== prevHash) return fail('fork');
  }
  if (options.knownHead && options.knownHead.seq > entries.length) return { ok: false, reason: 'fork', seq: entries.length };
  const keys = [...active.values()].map(({ verify: _verify, ...k }) => k);
  const byOfficer = new Map<string, ActiveKey[]>();
  for (const k of keys) for (const officer of k.officerIds) byOfficer.set(officer, [...(byOfficer.get(officer) ?? []), k]);
  return { ok: true, head, keys, byOfficer };
}
