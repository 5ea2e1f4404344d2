/**
 * Sealed cases (issue 37, docs/decisions/blind-server.md "Sealed cases"): a report the
 * reporter's browser sealed under a data key the server never sees. The server keeps
 * what it is sent (the envelopes, and the data key wrapped to the reporter key and to
 * every public key the verified key log entitles to the case's officer and to the
 * company's recovery key) and checks only what it can without the key: the gate, the
 * envelopes' shape, and that the wrap set is exactly the entitled keys.
 *
 * Invariants: no server wrapping exists for a sealed case (`wrapped_key` null, a check
 * constraint holds it); nothing malformed is stored; a wrap to a key the log does not
 * entitle is refused, so a case is never opened to someone the officer scoping leaves out.
 */
import { fromBase64, keyId, verifyKeyLog, NONCE_BYTES, TAG_BYTES, FIELD_VERSION, BOX_VERSION, DATA_KEY_BYTES } from '../../core/crypto/index.ts';
import type { KeyWrap, SealedCaseDto, SealedMessageDto } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readKeyLog } from '../keys/key-log.ts';
import type { SealedParts } from './service.ts';

/** The first key epoch of a case; a revocation starts the next (not built yet). */
export const FIRST_EPOCH = 1;

/** A wrap's expected kind, by recipient key id. */
export type Recipients = Map<string, 'handler' | 'recovery'>;

/**
 * The keys a case for `officerId` must be sealed to, or null when this company does not
 * take sealed cases: the setting is off, no anchor is set, the log does not verify (the
 * server's own copy is damaged), or no certified key is entitled to the officer.
 */
export async function sealedRecipients(ctx: Pick<AppContext, 'db' | 'config'>, companyId: string, officerId: string): Promise<Recipients | null> {
  if (ctx.config.sealedCases !== 'browser') return null;
  const log = await readKeyLog(ctx, companyId);
  if (!log.anchor) return null;
  const checked = await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki));
  if (!checked.ok) return null;
  const entitled = checked.byOfficer.get(officerId) ?? [];
  if (!entitled.length) return null;
  const recipients: Recipients = new Map(entitled.map((k) => [k.ecdhKeyId, 'handler' as const]));
  recipients.set(await keyId(fromBase64(log.anchor.ecdhSpki)), 'recovery');
  return recipients;
}

const MIN_FIELD_BYTES = 1 + NONCE_BYTES + TAG_BYTES;
const REPORTER_WRAP_BYTES = 1 + NONCE_BYTES + DATA_KEY_BYTES + TAG_BYTES;
const BOX_BYTES = 1 + 65 + NONCE_BYTES + DATA_KEY_BYTES + TAG_BYTES;
const REPORTER_WRAP_VERSION = 1;

function decode(text: string, field: string): Buffer {
  try {
    return Buffer.from(fromBase64(text));
  } catch {
    throw new HttpError(400, 'BAD_ENVELOPE', 'Send sealed parts in base64.', field);
  }
}

/** A sealed field as core/crypto/field.ts writes it: version 1, nonce, at least a tag. */
export function parseEnvelope(text: string, field: string): Buffer {
  const bytes = decode(text, field);
  if (bytes.length < MIN_FIELD_BYTES || bytes[0] !== FIELD_VERSION) throw new HttpError(400, 'BAD_ENVELOPE', 'This is not a sealed field (version 1, nonce, ciphertext, tag).', field);
  return bytes;
}

/** A wrap as core/crypto writes it for its kind: exact size and version byte; 400 BAD_WRAP otherwise. */
export function parseWrap(w: Pick<KeyWrap, 'kind' | 'wrap'>, field: string): Buffer {
  const bytes = decode(w.wrap, field);
  const [version, size] = w.kind === 'reporter' ? [REPORTER_WRAP_VERSION, REPORTER_WRAP_BYTES] : [BOX_VERSION, BOX_BYTES];
  if (bytes.length !== size || bytes[0] !== version) throw new HttpError(400, 'BAD_WRAP', w.kind === 'reporter' ? 'This is not a data key wrapped to the reporter key.' : 'This is not a sealed box of a data key.', field);
  return bytes;
}

/** The parts of a sealed case as createCase stores them; 400 with the product's code for anything else. */
export function sealedParts(dto: SealedCaseDto, recipients: Recipients): SealedParts {
  const details = parseEnvelope(dto.envelopes.details, 'envelopes.details');
  const whistleblower = dto.envelopes.whistleblower ? parseEnvelope(dto.envelopes.whistleblower, 'envelopes.whistleblower') : null;
  const seen = new Set<string>();
  const wraps: SealedParts['wraps'] = [];
  for (const [i, w] of dto.wraps.entries()) {
    const field = `wraps[${i}]`;
    if (seen.has(w.recipientKeyId)) throw new HttpError(400, 'DUPLICATE_WRAP', 'Wrap the data key once per key.', field);
    seen.add(w.recipientKeyId);
    if ((w.kind === 'reporter') !== (w.recipientKeyId === 'reporter')) throw new HttpError(400, 'BAD_WRAP', 'The reporter wrap is named `reporter`, and only it.', field);
    if (w.kind === 'reporter') {
      if (!dto.caseAccount.follow) throw new HttpError(400, 'WRAP_UNEXPECTED', 'A case nobody follows has no reporter key to wrap to.', field);
    } else if (recipients.get(w.recipientKeyId) !== w.kind) {
      throw new HttpError(400, 'WRAP_UNKNOWN_KEY', 'This key is not one the key log entitles to the officer (or not of this kind).', field);
    }
    wraps.push({ recipientKeyId: w.recipientKeyId, kind: w.kind, wrap: parseWrap(w, field) });
  }
  if (dto.caseAccount.follow && !seen.has('reporter')) throw new HttpError(400, 'WRAP_MISSING', 'A followed case is wrapped to the reporter key too.', 'wraps');
  // A key left out would leave a handler (or the recovery key) unable to open the case; the browser reads the log again and resends.
  for (const id of recipients.keys()) if (!seen.has(id)) throw new HttpError(400, 'WRAP_MISSING', `The data key is not wrapped to key ${id}.`, 'wraps');
  return { details, whistleblower, epoch: FIRST_EPOCH, wraps };
}

/** What a browser needs to open a sealed case: its clear metadata, the envelopes, and one recipient's wrap. */
export interface SealedCaseView {
  caseNumber: string;
  caseId: string;
  status: string;
  created: string;
  protectionOfficerId: string;
  subsidiaryId: string | null;
  epoch: number;
  envelopes: { details: string; whistleblower: string | null };
  /** The data key wrapped to the asker; null when none exists for them (the page says the case cannot be opened). */
  wrap: { recipientKeyId: string; kind: string; wrap: string } | null;
  /** Oldest first; `body` is the envelope as its sender's browser sealed it. */
  messages: { id: string; type: string; time: string; createdByUserId: string; answerWanted: boolean; body: string }[];
}

type SealedRow = { id: string; case_number: string; status: string; created_at: Date | string; protection_officer_id: string; subsidiary_id: string | null; sealed: boolean; details_enc: Uint8Array; whistleblower_enc: Uint8Array | null };

/** The case as sealed, with the wrap for `recipientKeyId` (a handler's ECDH keyId, or `reporter`) of the current epoch. */
export async function sealedCaseView(ctx: Pick<AppContext, 'db'>, row: SealedRow, recipientKeyId: string | null): Promise<SealedCaseView> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: read it on the usual path.');
  const wrap = recipientKeyId
    ? await ctx.db.selectFrom('case_key_wrap').select(['recipient_key_id', 'kind', 'wrap', 'epoch']).where('case_id', '=', row.id).where('recipient_key_id', '=', recipientKeyId).orderBy('epoch', 'desc').executeTakeFirst()
    : undefined;
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const messages = await ctx.db.selectFrom('case_message').select(['id', 'type', 'created_at', 'created_by', 'answer_wanted', 'body_enc']).where('case_id', '=', row.id).orderBy('created_at').orderBy('id').execute();
  return {
    caseNumber: row.case_number,
    caseId: row.id,
    status: row.status,
    created: new Date(row.created_at).toISOString(),
    protectionOfficerId: row.protection_officer_id,
    subsidiaryId: row.subsidiary_id,
    epoch: wrap?.epoch ?? FIRST_EPOCH,
    envelopes: { details: b64(row.details_enc), whistleblower: row.whistleblower_enc ? b64(row.whistleblower_enc) : null },
    wrap: wrap ? { recipientKeyId: wrap.recipient_key_id, kind: wrap.kind, wrap: b64(wrap.wrap) } : null,
    messages: messages.map((m) => ({ id: m.id, type: m.type, time: new Date(m.created_at).toISOString(), createdByUserId: m.created_by, answerWanted: m.answer_wanted, body: b64(m.body_enc) })),
  };
}

/** keyId of a handler's ECDH public key (enrolment, migration 0180); null for an account without keys. */
export async function handlerRecipientId(ctx: Pick<AppContext, 'db'>, handlerId: string): Promise<string | null> {
  const row = await ctx.db.selectFrom('handler_account').select('ecdh_spki').where('id', '=', handlerId).executeTakeFirst();
  return row?.ecdh_spki ? keyId(new Uint8Array(row.ecdh_spki)) : null;
}

/**
 * Stores a message of a sealed case as its sender's browser sealed it (a malformed
 * envelope is refused, never stored). A handler's question sets the reporter's pending
 * action, a reporter's message clears it, as on the usual path; no mail is queued (the
 * outbox is sealed under the case's key, which the server does not have).
 */
export async function addSealedMessage(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  row: { id: string; sealed: boolean },
  msg: SealedMessageDto & { createdBy: string; fromReporter: boolean },
): Promise<{ id: string; time: string }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: send the message on the usual path.');
  const body = parseEnvelope(msg.body, 'body');
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('case_message').values({ id: msg.id, case_id: row.id, type: msg.fromReporter ? 'STANDARD' : msg.type, created_by: msg.createdBy, created_at: now, body_enc: body, answer_wanted: !msg.fromReporter && msg.answerWanted }).execute();
      if (!msg.fromReporter && msg.answerWanted) await trx.updateTable('report_case').set({ pending_whistleblower_action: true }).where('id', '=', row.id).execute();
      if (msg.fromReporter) await trx.updateTable('report_case').set({ pending_whistleblower_action: false }).where('id', '=', row.id).execute();
    });
  } catch (err) {
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'MESSAGE_ID_TAKEN', 'This message id is in use; choose another.', 'id');
    throw err;
  }
  return { id: msg.id, time: now.toISOString() };
}
