/**
 * The mail key (issue 37 Build 3, docs/decisions/blind-server.md "Mail for sealed
 * cases"): an ECDH P-256 pair the server's mail worker holds, apart from every case key.
 * The reporter's browser seals the address it gives for notifications (and the
 * interface language the mail is to be written in) to its public half; only the worker
 * opens it, at send time.
 *
 *     notify = sealed box (box.ts) of JSON { v: 1, address, language? },
 *              info "wb:mail:<case id>:notify:<mail key id>"
 *
 * Invariants: the box names its case and purpose in its key's derivation, so an
 * address box moved to another case, or a data key's wrap, does not open as one; the
 * address is never inside the identity envelope's key (the server could not read it
 * there) nor in clear anywhere.
 */
import { fromBase64, toBase64, utf8, type Bytes } from './bytes.ts';
import { openSealedBox, sealToPublicKey } from './box.ts';
import { EnvelopeError } from './errors.ts';

/** The mail key as GET /api/public/key-log serves it (SEALED_CASES=browser). */
export interface MailKey {
  /** base64 SPKI of the ECDH P-256 public key. */
  spki: string;
  /** keyId of that SPKI (hex SHA-256). */
  keyId: string;
}

export const NOTIFY_PURPOSE = 'notify';
/** A sane upper bound on an address (RFC 5321 allows 254 characters). */
export const MAX_NOTIFY_ADDRESS = 320;

export interface NotifyAddress {
  address: string;
  /** The interface language the reporter used; the mail is written in it. */
  language?: string;
}

const mailInfo = (caseId: string, purpose: string, keyId: string) => ({ caseId, epoch: 0, recipientKeyId: keyId, purpose });

/** Any bytes sealed to the mail key for one case and purpose (the server seals its outbox rows of sealed cases so). */
export async function sealToMailKey(mailKey: MailKey, caseId: string, purpose: string, plaintext: Bytes): Promise<Bytes> {
  return sealToPublicKey(fromBase64(mailKey.spki), plaintext, mailInfo(caseId, purpose, mailKey.keyId));
}

/** The bytes of a box `sealToMailKey` made; EnvelopeError when it was not made for this case, purpose and key. */
export async function openFromMailKey(pair: { privateKey: CryptoKey; publicKey: Bytes; keyId: string }, caseId: string, purpose: string, box: Bytes): Promise<Bytes> {
  return openSealedBox({ privateKey: pair.privateKey, publicKey: pair.publicKey }, box, mailInfo(caseId, purpose, pair.keyId));
}

/** What the report form sends as `notify`: the address sealed to the mail key, bound to the case. */
export async function sealNotifyAddress(mailKey: MailKey, caseId: string, address: string, language?: string): Promise<{ keyId: string; box: string }> {
  const trimmed = address.trim();
  if (!trimmed || trimmed.length > MAX_NOTIFY_ADDRESS) throw new EnvelopeError('format', 'not an e-mail address');
  const body: NotifyAddress & { v: 1 } = { v: 1, address: trimmed, ...(language ? { language } : {}) };
  return { keyId: mailKey.keyId, box: toBase64(await sealToMailKey(mailKey, caseId, NOTIFY_PURPOSE, utf8(JSON.stringify(body)))) };
}

/** The address in a `notify` box (the mail worker, at send time). */
export async function openNotifyAddress(pair: { privateKey: CryptoKey; publicKey: Bytes; keyId: string }, caseId: string, box: Bytes): Promise<NotifyAddress> {
  const bytes = await openFromMailKey(pair, caseId, NOTIFY_PURPOSE, box);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new EnvelopeError('format', 'not a notification address');
  }
  const p = parsed as { v?: unknown; address?: unknown; language?: unknown };
  if (p.v !== 1 || typeof p.address !== 'string' || !p.address || p.address.length > MAX_NOTIFY_ADDRESS || (p.language !== undefined && typeof p.language !== 'string')) {
    throw new EnvelopeError('format', 'not a notification address');
  }
  return { address: p.address, ...(typeof p.language === 'string' ? { language: p.language } : {}) };
}
