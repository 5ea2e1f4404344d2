/**
 * Sealed cases (issue 37, docs/decisions/sealed-cases.md "Sealed cases"): a report the
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
import { fromBase64, keyId, verifyKeyLog, NONCE_BYTES, TAG_BYTES, FIELD_VERSION, BOX_VERSION, DATA_KEY_BYTES, type ActiveKey, type Bytes, type Recipients as SealingKeys, type SealedCaseAnswer } from '../../core/crypto/index.ts';
import type { KeyWrap, SealedCaseDto, SealedMessageDto, SubmissionType } from '../../machines/schema.ts';
import { sealedRecord } from './sealed-record.ts';
import { sealedTranscripts } from './transcript.ts';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readKeyLog } from '../keys/key-log.ts';
import { sealedFileRows, type SealedParts } from './service.ts';
import type { StagedFile } from './upload.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { onCaseEvent } from '../mail/notify.ts';

/**
 * The sealed calls are JSON; a sealed case's files come only by tus, as ciphertext in a
 * sealed upload session (sealed-cases.md "Sealed files"): a multipart body is refused
 * with its own code before a byte of it is read, rather than as unreadable JSON.
 */
export function refuseSealedMultipart(req: FastifyRequest): void {
  if (req.isMultipart()) throw new HttpError(409, 'SEALED_MULTIPART_UNAVAILABLE', 'A sealed case takes its files sealed in the browser by resumable upload (a sealed upload session), not in a multipart body; send this call as JSON.');
}

/** The first key epoch of a case; a revocation starts the next (server/cases/grants.ts revokeCaseKey). */
export const FIRST_EPOCH = 1;

/** The case's current key epoch: the newest with a wrap (a revocation starts the next). */
export async function currentEpoch(ctx: Pick<AppContext, 'db'>, caseId: string): Promise<number> {
  const row = await ctx.db.selectFrom('case_key_wrap').select((eb) => eb.fn.max('epoch').as('epoch')).where('case_id', '=', caseId).executeTakeFirst();
  return row?.epoch ?? FIRST_EPOCH;
}

/**
 * A handler whose key was revoked from this case (grants.ts revokeCaseKey) is refused
 * its sealed routes from then on: 403 CASE_KEY_REVOKED, until a holder grants the case
 * to her again.
 */
export async function refuseRevoked(ctx: Pick<AppContext, 'db'>, handlerId: string, row: { id: string; sealed: boolean }): Promise<void> {
  if (!row.sealed) return;
  const revoked = await ctx.db.selectFrom('case_key_revocation').select('handler_id').where('case_id', '=', row.id).where('handler_id', '=', handlerId).executeTakeFirst();
  if (revoked) throw new HttpError(403, 'CASE_KEY_REVOKED', 'Your access to this case\'s key was revoked; a colleague who holds it can grant it again.');
}

/** A wrap's expected kind, by recipient key id. */
export type Recipients = Map<string, 'handler' | 'recovery'>;

/**
 * A company's key log as the server verified it (with `verifyKeyLog`, as a browser
 * would): the recovery key's ECDH half and the certified keys per officer; null when
 * no anchor is set or the server's own copy does not verify (damaged: nothing is sealed
 * to it). The migration of legacy cases (server/keys/migrate-wraps.ts) reads it too.
 */
export async function verifiedKeys(ctx: Pick<AppContext, 'db'>, companyId: string): Promise<{ recovery: { spki: Bytes; keyId: string }; byOfficer: Map<string, ActiveKey[]> } | null> {
  const log = await readKeyLog(ctx, companyId);
  if (!log.anchor) return null;
  const checked = await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki));
  if (!checked.ok) return null;
  const spki = fromBase64(log.anchor.ecdhSpki);
  return { recovery: { spki, keyId: await keyId(spki) }, byOfficer: checked.byOfficer };
}

/**
 * The keys a case for `officerId` is sealed to, in core/crypto's shape (`sealNewCase`),
 * or null when this company does not take sealed cases: the setting is off, no anchor
 * is set, the log does not verify, or no certified key is entitled to the officer.
 * The one gate of both the browser's sealed route and the plain routes' sealing on arrival.
 */
export async function sealingKeys(ctx: Pick<AppContext, 'db' | 'config'>, companyId: string, officerId: string): Promise<SealingKeys | null> {
  if (ctx.config.sealedCases !== 'browser') return null;
  const keys = await verifiedKeys(ctx, companyId);
  const handlers = keys?.byOfficer.get(officerId) ?? [];
  if (!keys || !handlers.length) return null;
  return { ok: true, handlers, recovery: keys.recovery, head: null };
}

/** The same gate as `sealingKeys`, as the wrap kinds the browser's wrap set must match, by recipient key id. */
export async function sealedRecipients(ctx: Pick<AppContext, 'db' | 'config'>, companyId: string, officerId: string): Promise<Recipients | null> {
  const keys = await sealingKeys(ctx, companyId, officerId);
  if (!keys) return null;
  const recipients: Recipients = new Map(keys.handlers.map((k) => [k.ecdhKeyId, 'handler' as const]));
  recipients.set(keys.recovery.keyId, 'recovery');
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

/** A notify box's plaintext: JSON of an address (at most MAX_NOTIFY_ADDRESS) and a language; a bound, not a parse (the server cannot open it here). */
const NOTIFY_MIN = BOX_BYTES - DATA_KEY_BYTES + 20;
const NOTIFY_MAX = BOX_BYTES - DATA_KEY_BYTES + 512;

/**
 * The notification address as the browser sealed it to the mail key: a sealed box of
 * a plausible size, to the current mail key, on a followed case. The server does not
 * open it here: only the mail worker does, at send time.
 */
function parseNotify(dto: SealedCaseDto, mailKeyId: string | null): SealedParts['notify'] {
  if (!dto.notify) return null;
  const bytes = parseNotifyBox(dto.notify.box);
  if (!dto.caseAccount.follow) throw new HttpError(400, 'NOTIFY_UNEXPECTED', 'A case nobody follows gets no mail: send no notification address.', 'notify');
  return { mailKeyId: assertMailKey(dto.notify.keyId, mailKeyId), box: bytes };
}

/** A notify box's shape (a sealed box of a plausible size); 400 BAD_ENVELOPE otherwise. The report form's and the private area's. */
export function parseNotifyBox(box: string): Buffer {
  const bytes = decode(box, 'notify.box');
  if (bytes.length < NOTIFY_MIN || bytes.length > NOTIFY_MAX || bytes[0] !== BOX_VERSION) throw new HttpError(400, 'BAD_ENVELOPE', 'This is not a notification address sealed to the mail key (core/crypto sealNotifyAddress).', 'notify.box');
  return bytes;
}

/** The key id a notify box names, if it is the current mail key's; 409 MAIL_KEY_CHANGED otherwise. */
export function assertMailKey(keyId: string, mailKeyId: string | null): string {
  // A rotation between the browser's read of the key log and the send: the browser reads it again.
  if (keyId !== mailKeyId) throw new HttpError(409, 'MAIL_KEY_CHANGED', 'This is not the current mail key: read the key log again and seal the address to its mailKey.', 'notify.keyId');
  return keyId;
}

/** The parts of a sealed case as createCase stores them; 400 with the product's code for anything else. */
export function sealedParts(dto: SealedCaseDto, recipients: Recipients, mailKeyId: string | null = null): SealedParts {
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
  return { details, whistleblower, epoch: FIRST_EPOCH, wraps, notify: parseNotify(dto, mailKeyId) };
}

/** What a browser needs to open a sealed case (core/crypto/case.ts SealedCaseAnswer, one type for every side). */
export type SealedCaseView = SealedCaseAnswer;

type SealedRow = { id: string; case_number: string; status: string; created_at: Date | string; protection_officer_id: string; subsidiary_id: string | null; sealed: boolean; details_enc: Uint8Array; whistleblower_enc: Uint8Array | null; submission_type: string; approved_at: Date | string | null; entry_channel?: string | null };

/** The case as sealed, with the wrap for `recipientKeyId` (a handler's ECDH keyId, or `reporter`) of the current epoch. */
export async function sealedCaseView(ctx: Pick<AppContext, 'db'>, row: SealedRow, recipientKeyId: string | null): Promise<SealedCaseView> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: read it on the usual path.');
  const wrap = recipientKeyId
    ? await ctx.db.selectFrom('case_key_wrap').select(['recipient_key_id', 'kind', 'wrap', 'epoch']).where('case_id', '=', row.id).where('recipient_key_id', '=', recipientKeyId).orderBy('epoch', 'desc').executeTakeFirst()
    : undefined;
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  const messages = await ctx.db.selectFrom('case_message').select(['id', 'type', 'created_at', 'created_by', 'answer_wanted', 'body_enc', 'epoch']).where('case_id', '=', row.id).orderBy('created_at').orderBy('id').execute();
  // A note's files are listed with the notes (server/cases/notes.ts), for handlers only, never here.
  const files = await ctx.db.selectFrom('case_file').select(['id', 'message_id', 'name_enc', 'size', 'created_at', 'epoch']).where('case_id', '=', row.id).where('note_id', 'is', null).orderBy('created_at').orderBy('position').orderBy('id').execute();
  // Links back to older keys go to every asker with a wrap; the forward links only to the reporter, whose wrap no handler can make again (sealed-workspace.md "Revocation and key epochs").
  const linkKinds: ('previous' | 'next')[] = recipientKeyId === 'reporter' ? ['previous', 'next'] : ['previous'];
  const links = wrap ? await ctx.db.selectFrom('case_key_wrap').select(['epoch', 'kind', 'wrap']).where('case_id', '=', row.id).where('kind', 'in', linkKinds).orderBy('epoch').execute() : [];
  return {
    caseNumber: row.case_number,
    caseId: row.id,
    status: row.status,
    created: new Date(row.created_at).toISOString(),
    protectionOfficerId: row.protection_officer_id,
    subsidiaryId: row.subsidiary_id,
    epoch: wrap?.epoch ?? FIRST_EPOCH,
    currentEpoch: await currentEpoch(ctx, row.id),
    links: links.map((l) => ({ epoch: l.epoch, kind: l.kind as 'previous' | 'next', link: b64(l.wrap) })),
    envelopes: { details: b64(row.details_enc), whistleblower: row.whistleblower_enc ? b64(row.whistleblower_enc) : null },
    wrap: wrap ? { recipientKeyId: wrap.recipient_key_id, kind: wrap.kind, wrap: b64(wrap.wrap) } : null,
    files: files.map((f) => ({ id: f.id, messageId: f.message_id, name: b64(f.name_enc), size: Number(f.size), created: new Date(f.created_at).toISOString(), epoch: f.epoch })),
    messages: messages.map((m) => ({ id: m.id, type: m.type, time: new Date(m.created_at).toISOString(), createdByUserId: m.created_by, answerWanted: m.answer_wanted, body: b64(m.body_enc), epoch: m.epoch })),
    submissionType: row.submission_type as SubmissionType,
    entryChannel: (row.entry_channel ?? null) as SealedCaseView['entryChannel'],
    approvedAt: row.approved_at ? new Date(row.approved_at).toISOString() : null,
    record: await sealedRecord(ctx, row.id),
    transcripts: await sealedTranscripts(ctx, row.id),
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
 * action, a reporter's message clears it, as on the usual path; the mails of the usual
 * path are queued in the same transaction (none holds content; server/mail/notify.ts).
 */
export async function addSealedMessage(
  ctx: AppContext,
  row: { id: string; sealed: boolean },
  msg: SealedMessageDto & { createdBy: string; fromReporter: boolean },
  /** Files sealed in the browser, uploaded in the sender's sealed upload session for this case: claimed in the message's transaction. */
  uploads?: { claim(trx: Transaction<DB>): Promise<StagedFile[]>; commit(files: readonly StagedFile[]): Promise<void> },
): Promise<{ id: string; time: string; files: { id: string; size: number }[] }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: send the message on the usual path.');
  const body = parseEnvelope(msg.body, 'body');
  // Sealed under an older epoch's key (a page opened before a revocation): the browser reads the case again and seals with the current key.
  const epoch = msg.epoch ?? FIRST_EPOCH;
  if (epoch !== (await currentEpoch(ctx, row.id))) throw new HttpError(409, 'EPOCH_STALE', 'This case has a newer key epoch: read the case again and seal with its current key.', 'epoch');
  const now = ctx.clock.now();
  let claimed: StagedFile[] = [];
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('case_message').values({ id: msg.id, case_id: row.id, type: msg.fromReporter ? 'STANDARD' : msg.type, created_by: msg.createdBy, created_at: now, body_enc: body, answer_wanted: !msg.fromReporter && msg.answerWanted, epoch }).execute();
      if (!msg.fromReporter && msg.answerWanted) await trx.updateTable('report_case').set({ pending_whistleblower_action: true }).where('id', '=', row.id).execute();
      if (msg.fromReporter) await trx.updateTable('report_case').set({ pending_whistleblower_action: false }).where('id', '=', row.id).execute();
      claimed = uploads ? await uploads.claim(trx) : [];
      if (claimed.length) await trx.insertInto('case_file').values(sealedFileRows(row.id, msg.id, claimed, now).map((f) => ({ ...f, epoch }))).execute();
      await onCaseEvent(ctx, trx, row.id, msg.fromReporter ? 'reporterMessage' : 'reporterNews');
    });
  } catch (err) {
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'MESSAGE_ID_TAKEN', 'This message id is in use; choose another.', 'id');
    throw err;
  }
  if (uploads) await uploads.commit(claimed);
  return { id: msg.id, time: now.toISOString(), files: claimed.map((f) => ({ id: f.id, size: f.size })) };
}

/**
 * The reporter's identity, changed in the browser of a sealed case: the envelope as
 * sealed there (core/crypto `sealIdentity`), checked for shape only (400 BAD_ENVELOPE,
 * nothing stored). Why no name rule here as on the usual path (a given name stays): the
 * server cannot read either envelope; the page keeps the name, and a reporter who
 * scripts another one changes only what the handlers read of their own identity.
 */
export async function updateSealedIdentity(ctx: Pick<AppContext, 'db'>, row: { id: string; sealed: boolean }, envelope: string): Promise<void> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: change the identity on the usual path.');
  const bytes = parseEnvelope(envelope, 'envelope');
  await ctx.db.updateTable('report_case').set({ whistleblower_enc: bytes }).where('id', '=', row.id).execute();
}
