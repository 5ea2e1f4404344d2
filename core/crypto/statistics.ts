/**
 * Categories for statistics (issue 37 Build 3; docs/decisions/sealed-cases.md "The
 * statistics key"): what a report is about (the violation category) is content, so it
 * is not kept in clear beside the case. The reporter's browser seals the categories to
 * the company's statistics key, an ECDH P-256 pair of its own (not the recovery key,
 * which opens every case; not a handler's key, which opens that handler's cases); a
 * holder of its private half counts them in the browser.
 *
 *     categories = sealed box (box.ts) of JSON { v: 1, violation, channel },
 *                  info "wb:stats:<case id>:categories:<statistics key id>"
 *
 * Invariants: a box names its case and purpose in its key's derivation, so it never
 * opens as a data key's wrap or a mail box, nor a wrap as one; the statistics key opens
 * categories and nothing else. A box that does not open or holds no known shape is
 * counted apart (`unopened`), never dropped silently and never as a category.
 */
import { bufferSource, fromBase64, toBase64, utf8, type Bytes } from './bytes.ts';
import { keyId, openSealedBox, sealToPublicKey } from './box.ts';
import { canonicalJson, type ActiveKey } from './keylog.ts';

export const CATEGORIES_PURPOSE = 'categories';
/** The categories counted; a channel is clear data the server has anyway, sealed here so one box answers a count. */
export interface CaseCategories {
  violation: string | null;
  channel: string;
}

const statsInfo = (caseId: string, recipientKeyId: string) => ({ caseId, epoch: 0, recipientKeyId, purpose: CATEGORIES_PURPOSE, domain: 'stats' as const });

/** A fresh statistics key pair, made in a browser; the private half is extractable so it can be printed or sealed to a handler. */
export async function makeStatisticsKey(): Promise<{ privateKey: CryptoKey; spki: Bytes; keyId: string }> {
  const pair = await globalThis.crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const spki = new Uint8Array(await globalThis.crypto.subtle.exportKey('spki', pair.publicKey));
  return { privateKey: pair.privateKey, spki, keyId: await keyId(spki) };
}

/** The categories of one case sealed to the statistics public key (SPKI, base64 or bytes). */
export async function sealCategories(statsKey: { spki: string | Uint8Array; keyId: string }, caseId: string, categories: CaseCategories): Promise<{ keyId: string; box: string }> {
  const spki = typeof statsKey.spki === 'string' ? fromBase64(statsKey.spki) : statsKey.spki;
  const body = { v: 1, violation: categories.violation, channel: categories.channel };
  return { keyId: statsKey.keyId, box: toBase64(await sealToPublicKey(spki, utf8(JSON.stringify(body)), statsInfo(caseId, statsKey.keyId))) };
}

/** One case's categories, or null when the box does not open with this key or holds no known shape. */
export async function openCategories(pair: { privateKey: CryptoKey; spki: Uint8Array; keyId: string }, caseId: string, box: string): Promise<CaseCategories | null> {
  try {
    const bytes = await openSealedBox({ privateKey: pair.privateKey, publicKey: pair.spki }, fromBase64(box), statsInfo(caseId, pair.keyId));
    const p = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as { v?: unknown; violation?: unknown; channel?: unknown };
    if (p.v !== 1 || typeof p.channel !== 'string' || (p.violation !== null && typeof p.violation !== 'string')) return null;
    return { violation: p.violation, channel: p.channel };
  } catch {
    return null;
  }
}

export interface CategoryCounts {
  /** Cases per violation category (`none`: the report named none). */
  violation: Record<string, number>;
  channel: Record<string, number>;
  /** Boxes that did not open with this key, or held no known shape. */
  unopened: number;
  total: number;
}

/** Counts the categories of every case's box in this browser; nothing is sent anywhere. */
export async function countCategories(pair: { privateKey: CryptoKey; spki: Uint8Array; keyId: string }, boxes: readonly { caseId: string; box: string }[]): Promise<CategoryCounts> {
  const counts: CategoryCounts = { violation: {}, channel: {}, unopened: 0, total: boxes.length };
  for (const b of boxes) {
    const c = await openCategories(pair, b.caseId, b.box);
    if (!c) {
      counts.unopened++;
      continue;
    }
    const v = c.violation ?? 'none';
    counts.violation[v] = (counts.violation[v] ?? 0) + 1;
    counts.channel[c.channel] = (counts.channel[c.channel] ?? 0) + 1;
  }
  return counts;
}

/**
 * The statistics key as the key log's answer publishes it: its public half and a
 * signature over `canonicalJson({ purpose: "wb:statistics-key", spki, keyId,
 * certifierKeyId })` by a certifier, the recovery signing key (the anchor) or an active
 * handler key of the verified log. A reporter's browser seals categories to it only
 * after `verifyStatisticsKey`; the server's copy is never taken unchecked.
 */
export interface PublishedStatisticsKey {
  spki: string;
  keyId: string;
  certifierKeyId: string;
  signature: string;
  /**
   * A rotated key names the key it replaces, under the same signature: the handlers'
   * browsers check that the company's keys form one chain, newest first, so a server
   * cannot pass off an old key as the newest or slip in one of its own between them.
   * Absent on the company's first key (its statement is the one it always was).
   */
  replaces?: string;
}

const STATS_KEY_PURPOSE = 'wb:statistics-key';
const ECDSA_SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const statement = (p: Omit<PublishedStatisticsKey, 'signature'>) =>
  utf8(canonicalJson({ purpose: STATS_KEY_PURPOSE, spki: p.spki, keyId: p.keyId, certifierKeyId: p.certifierKeyId, ...(p.replaces !== undefined ? { replaces: p.replaces } : {}) }));

/**
 * The statistics key's public half signed by a certifier (the anchor's or the handler's
 * own ECDSA key); `replaces`: the id of the key a rotation replaces (none for the first).
 */
export async function signStatisticsKey(certifier: { privateKey: CryptoKey; keyId: string }, spki: Uint8Array, replaces?: string): Promise<PublishedStatisticsKey> {
  const unsignedKey = { spki: toBase64(spki), keyId: await keyId(spki), certifierKeyId: certifier.keyId, ...(replaces !== undefined ? { replaces } : {}) };
  const signature = new Uint8Array(await globalThis.crypto.subtle.sign(ECDSA_SIGN, certifier.privateKey, statement(unsignedKey)));
  return { ...unsignedKey, signature: toBase64(signature) };
}

/**
 * The statistics key to seal to, or null: its id must be its SPKI's, it must be an ECDH
 * P-256 key, and its certifier the anchor (`anchorEcdsaSpki`) or an ECDSA key the
 * verified log lists as active (`certifiers`: verifyKeyLog's keys).
 */
export async function verifyStatisticsKey(published: unknown, anchorEcdsaSpki: Uint8Array, certifiers: readonly Pick<ActiveKey, 'ecdsaSpki' | 'ecdsaKeyId'>[]): Promise<{ spki: Bytes; keyId: string } | null> {
  const p = published as Partial<PublishedStatisticsKey> | null;
  if (!p || typeof p !== 'object' || ![p.spki, p.keyId, p.certifierKeyId, p.signature].every((x) => typeof x === 'string')) return null;
  if (p.replaces !== undefined && p.replaces !== null && typeof p.replaces !== 'string') return null;
  try {
    const spki = fromBase64(p.spki!);
    if ((await keyId(spki)) !== p.keyId) return null;
    await globalThis.crypto.subtle.importKey('spki', bufferSource(spki), { name: 'ECDH', namedCurve: 'P-256' }, false, []);
    const certifierSpki = (await keyId(anchorEcdsaSpki)) === p.certifierKeyId ? anchorEcdsaSpki : certifiers.find((k) => k.ecdsaKeyId === p.certifierKeyId)?.ecdsaSpki;
    if (!certifierSpki) return null;
    const verify = await globalThis.crypto.subtle.importKey('spki', bufferSource(certifierSpki), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    const signed = { spki: p.spki!, keyId: p.keyId!, certifierKeyId: p.certifierKeyId!, ...(typeof p.replaces === 'string' ? { replaces: p.replaces } : {}) };
    const ok = await globalThis.crypto.subtle.verify(ECDSA_SIGN, verify, bufferSource(fromBase64(p.signature!)), statement(signed));
    return ok ? { spki, keyId: p.keyId! } : null;
  } catch {
    return null;
  }
}

const privateInfo = (statsKeyId: string, recipientKeyId: string) => ({ caseId: statsKeyId, epoch: 0, recipientKeyId, purpose: 'statistics-key', domain: 'stats' as const });

/** The statistics private key (PKCS#8) sealed to one handler's ECDH key, so that handler can count. */
export async function sealStatisticsPrivateKey(pair: { privateKey: CryptoKey; keyId: string }, recipient: { spki: Uint8Array; keyId: string }): Promise<{ recipientKeyId: string; box: string }> {
  const pkcs8 = new Uint8Array(await globalThis.crypto.subtle.exportKey('pkcs8', pair.privateKey));
  try {
    return { recipientKeyId: recipient.keyId, box: toBase64(await sealToPublicKey(recipient.spki, pkcs8, privateInfo(pair.keyId, recipient.keyId))) };
  } finally {
    pkcs8.fill(0);
  }
}

/**
 * The statistics key pair opened with a handler's ECDH key; null when the box is not this
 * key's for this handler. `extractable` only to seal it on to a colleague right away
 * (`sealStatisticsPrivateKey`); for counting it stays unexportable.
 */
export async function openStatisticsPrivateKey(
  handler: { privateKey: CryptoKey; publicKey: CryptoKey | Uint8Array; keyId: string },
  statsKey: { spki: Uint8Array; keyId: string },
  box: string,
  opts: { extractable?: boolean } = {},
): Promise<{ privateKey: CryptoKey; spki: Uint8Array; keyId: string } | null> {
  try {
    const pkcs8 = await openSealedBox({ privateKey: handler.privateKey, publicKey: handler.publicKey }, fromBase64(box), privateInfo(statsKey.keyId, handler.keyId));
    const privateKey = await globalThis.crypto.subtle.importKey('pkcs8', bufferSource(pkcs8), { name: 'ECDH', namedCurve: 'P-256' }, opts.extractable === true, ['deriveBits']);
    pkcs8.fill(0);
    return { privateKey, spki: statsKey.spki, keyId: statsKey.keyId };
  } catch {
    return null;
  }
}

/**
 * The company's statistics keys, newest first, as a handler's browser takes them for
 * counting: the newest must verify (`verifyStatisticsKey`, as a reporter's browser checks
 * it before sealing), and each older one must be the key its successor's signed
 * statement `replaces`, with its id its SPKI's. Null when the chain does not hold.
 *
 * Why an older key needs no signature of its own that verifies now: its certifier may
 * have left the log since; it is named by the signed statement of the key after it, and
 * what it is used for here (opening boxes already stored) needs no more. Only the newest
 * key is ever sealed to.
 */
export async function verifyStatisticsKeyChain(
  published: readonly unknown[],
  anchorEcdsaSpki: Uint8Array,
  certifiers: readonly Pick<ActiveKey, 'ecdsaSpki' | 'ecdsaKeyId'>[],
): Promise<{ spki: Bytes; keyId: string }[] | null> {
  const newest = published[0];
  if (!newest) return [];
  const first = await verifyStatisticsKey(newest, anchorEcdsaSpki, certifiers);
  if (!first) return null;
  const chain = [first];
  let named = (newest as PublishedStatisticsKey).replaces;
  for (const older of published.slice(1)) {
    const p = older as Partial<PublishedStatisticsKey> | null;
    if (!p || typeof p.spki !== 'string' || typeof p.keyId !== 'string' || p.keyId !== named) return null;
    try {
      const spki = fromBase64(p.spki);
      if ((await keyId(spki)) !== p.keyId) return null;
      await globalThis.crypto.subtle.importKey('spki', bufferSource(spki), { name: 'ECDH', namedCurve: 'P-256' }, false, []);
      chain.push({ spki, keyId: p.keyId });
    } catch {
      return null;
    }
    named = typeof p.replaces === 'string' ? p.replaces : undefined;
  }
  // The oldest key replaces none: a chain cut short would hide a key.
  return named === undefined ? chain : null;
}
