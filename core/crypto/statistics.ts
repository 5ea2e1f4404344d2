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
import { fromBase64, toBase64, utf8, type Bytes } from './bytes.ts';
import { keyId, openSealedBox, sealToPublicKey } from './box.ts';

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
