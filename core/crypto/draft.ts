/**
 * A handler's unsent text kept on the device (docs/decisions/handler-drafts.md): a draft
 * of a message or of an oral report's record, sealed to the handler's own ECDH public
 * key as a sealed box (box.ts), so the device holds only ciphertext that the handler's
 * private key opens, and that key exists on the device only in memory, after the
 * handler typed the password (or key recovery code).
 *
 *     id     = hex SHA-256("wb:draft-id" ‖ 0 ‖ handler id ‖ 0 ‖ kind ‖ 0 ‖ case number)
 *     plain  = UTF-8 JSON {v: 1, fields, pad}, padded to a multiple of 512 bytes
 *     draft  = sealed box to the handler's ECDH key, info "wb:draft:<id>:v1:<key id>"
 *
 * Invariants: AES-256-GCM under a key derived from a fresh ephemeral ECDH key and the
 * handler's public key, its private half dropped in the call: nothing on the device
 * opens a draft without the handler's private key. The id binds the draft to its
 * handler, kind and case: one moved to another case, kind or account derives another
 * key and is refused like an altered one. The padding hides the length to 512 bytes.
 */
import { bufferSource, fromUtf8, toHex, utf8, type Bytes } from './bytes.ts';
import { EnvelopeError } from './errors.ts';
import { keyId, openSealedBox, sealToPublicKey, type WrapInfo } from './box.ts';

export type DraftKind = 'message' | 'record';

/** Whose draft of what: the handler's account id, the kind, the case number. */
export interface DraftOwner {
  handlerId: string;
  kind: DraftKind;
  caseNumber: string;
}

/** What a draft holds: the editor's own fields (text, message type, answer wanted). */
export type DraftFields = Record<string, string | boolean>;

const PAD_STEP = 512;

/** The draft's id in the device's store: no case number in clear there. */
export async function draftId(owner: DraftOwner): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bufferSource(utf8(`wb:draft-id\u0000${owner.handlerId}\u0000${owner.kind}\u0000${owner.caseNumber}`)));
  return toHex(new Uint8Array(digest));
}

async function infoOf(owner: DraftOwner, spki: Uint8Array): Promise<WrapInfo> {
  return { caseId: await draftId(owner), epoch: 0, purpose: 'v1', domain: 'draft', recipientKeyId: await keyId(spki) };
}

function padded(fields: DraftFields): Bytes {
  const bare = JSON.stringify({ v: 1, fields, pad: '' });
  const size = utf8(bare).length;
  const target = Math.ceil(size / PAD_STEP) * PAD_STEP;
  return utf8(JSON.stringify({ v: 1, fields, pad: ' '.repeat(target - size) }));
}

/** The draft sealed to the handler's ECDH public key (SPKI). */
export async function sealDraft(recipientSpki: Uint8Array, owner: DraftOwner, fields: DraftFields): Promise<Bytes> {
  const plain = padded(fields);
  try {
    return await sealToPublicKey(recipientSpki, plain, await infoOf(owner, recipientSpki));
  } finally {
    plain.fill(0);
  }
}

/** The draft's fields, opened with the handler's private key; an altered, moved or foreign draft is refused. */
export async function openDraft(recipient: { privateKey: CryptoKey; publicKey: Uint8Array }, owner: DraftOwner, sealed: Uint8Array): Promise<DraftFields> {
  const plain = await openSealedBox(recipient, sealed, await infoOf(owner, recipient.publicKey));
  let parsed: { v?: unknown; fields?: unknown };
  try {
    parsed = JSON.parse(fromUtf8(plain)) as typeof parsed;
  } catch {
    throw new EnvelopeError('format', 'not a draft');
  } finally {
    plain.fill(0);
  }
  const fields = parsed.fields;
  if (parsed.v !== 1 || !fields || typeof fields !== 'object' || Array.isArray(fields)) throw new EnvelopeError('format', 'not a draft');
  if (!Object.values(fields).every((x) => typeof x === 'string' || typeof x === 'boolean')) throw new EnvelopeError('format', 'not a draft');
  return fields as DraftFields;
}
