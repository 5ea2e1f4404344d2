/**
 * A sealed case as the browsers make and open it (docs/decisions/blind-server.md
 * "Sealed cases"): the reporter's browser checks the key log, picks the keys entitled
 * to the officer, makes the data key, seals the fields and wraps the key; a handler's or
 * the reporter's browser unwraps its own wrap and opens each part on its own.
 *
 * Invariants: a case is sealed only to keys `verifyKeyLog` proved back to the anchor
 * (and, when given, to the anchor and head this browser saw before); a log that does
 * not verify, or has no key for the officer, yields a refusal with its reason and no
 * data key. Opening never lets one bad part hide the others: each part that fails to
 * open is `null` beside the parts that opened.
 */
import { fromBase64, toBase64, type Bytes } from './bytes.ts';
import { keyId, openSealedBox, sealToPublicKey } from './box.ts';
import { fieldContext, makeDataKey, openFieldText, sealField } from './field.ts';
import { verifyKeyLog, type ActiveKey, type KeyLogFailure, type KeyLogHead } from './keylog.ts';
import { unwrapDataKey, wrapDataKey } from './reporter.ts';
import type { EpochKeys, KeyLink } from './epochs.ts';
import type { RecordVersionEnvelope } from './record.ts';

export const FIRST_EPOCH = 1;
/** The columns the additional data names (as the server's COLUMNS). */
export const SEALED_COLUMNS = { details: 'report_case.details_enc', whistleblower: 'report_case.whistleblower_enc', messageBody: 'case_message.body_enc' } as const;

export interface PublishedKeyLog {
  anchor: { ecdhSpki: string; ecdsaSpki: string } | null;
  entries: readonly unknown[];
}

export type RecipientsRefusal = {
  ok: false;
  /** `no-anchor`: the company has no recovery key; `no-keys`: none certified for the officer; `anchor`: not the anchor seen before; else verifyKeyLog's reason. */
  reason: 'no-anchor' | 'no-keys' | 'anchor' | KeyLogFailure;
  seq: number;
};
export type Recipients = { ok: true; handlers: ActiveKey[]; recovery: { spki: Bytes; keyId: string }; head: KeyLogHead | null };

/** The keys a case for `officerId` is sealed to, from a log this browser verified itself. */
export async function recipientsFor(log: PublishedKeyLog, officerId: string, seen: { anchorKeyId?: string; head?: KeyLogHead } = {}): Promise<Recipients | RecipientsRefusal> {
  if (!log.anchor) return { ok: false, reason: 'no-anchor', seq: 0 };
  let ecdsa: Bytes, ecdh: Bytes;
  try {
    ecdsa = fromBase64(log.anchor.ecdsaSpki);
    ecdh = fromBase64(log.anchor.ecdhSpki);
  } catch {
    return { ok: false, reason: 'format', seq: 0 };
  }
  if (seen.anchorKeyId && (await keyId(ecdsa)) !== seen.anchorKeyId) return { ok: false, reason: 'anchor', seq: 0 };
  const checked = await verifyKeyLog(log.entries, ecdsa, { knownHead: seen.head });
  if (!checked.ok) return checked;
  const handlers = checked.byOfficer.get(officerId) ?? [];
  if (!handlers.length) return { ok: false, reason: 'no-keys', seq: 0 };
  return { ok: true, handlers, recovery: { spki: ecdh, keyId: await keyId(ecdh) }, head: checked.head };
}

export interface SealedCaseParts {
  caseId: string;
  dataKey: Bytes;
  envelopes: { details: string; whistleblower: string | null };
  wraps: { recipientKeyId: string; kind: 'reporter' | 'handler' | 'recovery'; wrap: string }[];
}

/** Seals a new case's details and identity under a fresh data key, wrapped to every recipient (and the reporter key when followed). */
export async function sealNewCase(
  recipients: Recipients,
  /** `dataKey`: one made before (the server's weaker path encrypts a request's files under it first); else a fresh one. */
  input: { details: unknown; whistleblower?: unknown; reporterKey?: CryptoKey | null; caseId?: string; dataKey?: Bytes },
): Promise<SealedCaseParts> {
  const caseId = input.caseId ?? globalThis.crypto.randomUUID();
  const dataKey = input.dataKey ?? makeDataKey();
  const at = { caseId, epoch: FIRST_EPOCH };
  const wraps: SealedCaseParts['wraps'] = [];
  for (const k of recipients.handlers) wraps.push({ recipientKeyId: k.ecdhKeyId, kind: 'handler', wrap: toBase64(await sealToPublicKey(k.ecdhSpki, dataKey, { ...at, recipientKeyId: k.ecdhKeyId })) });
  wraps.push({ recipientKeyId: recipients.recovery.keyId, kind: 'recovery', wrap: toBase64(await sealToPublicKey(recipients.recovery.spki, dataKey, { ...at, recipientKeyId: recipients.recovery.keyId })) });
  if (input.reporterKey) wraps.push({ recipientKeyId: 'reporter', kind: 'reporter', wrap: toBase64(await wrapDataKey(input.reporterKey, dataKey, at)) });
  const seal = async (column: string, value: unknown) => toBase64(await sealField(dataKey, fieldContext(caseId, column), JSON.stringify(value)));
  return {
    caseId,
    dataKey,
    envelopes: { details: await seal(SEALED_COLUMNS.details, input.details), whistleblower: input.whistleblower ? await seal(SEALED_COLUMNS.whistleblower, input.whistleblower) : null },
    wraps,
  };
}

/** A message sealed under the case's data key (of the epoch the request names beside it), with the id its additional data names. */
export async function sealMessage(dataKey: Uint8Array, caseId: string, text: string, id: string = globalThis.crypto.randomUUID()): Promise<{ id: string; body: string }> {
  return { id, body: toBase64(await sealField(dataKey, fieldContext(caseId, SEALED_COLUMNS.messageBody, id), text)) };
}

/**
 * The reporter's identity changed on a sealed case: sealed under the case's data key as
 * the creation seals it (`report_case.whistleblower_enc`, no row), so `openCaseParts`
 * opens it the same way; the server stores the envelope as sent.
 */
export async function sealIdentity(dataKey: Uint8Array, caseId: string, whistleblower: unknown): Promise<string> {
  return toBase64(await sealField(dataKey, fieldContext(caseId, SEALED_COLUMNS.whistleblower), JSON.stringify(whistleblower)));
}

export interface SealedCaseView {
  caseId: string;
  epoch: number;
  envelopes: { details: string; whistleblower: string | null };
  wrap: { recipientKeyId: string; kind: string; wrap: string } | null;
  messages: { id: string; body: string; epoch?: number }[];
  /** The case's newest key epoch (`epoch` is that of this asker's wrap) and the links between epochs' keys (core/crypto/epochs.ts). */
  currentEpoch?: number;
  links?: KeyLink[];
}

/**
 * What the sealed reads answer (GET /api/handler/cases/:n/sealed and
 * /api/private/case/my-case/sealed; server/cases/sealed.ts): the clear metadata, the
 * envelopes, this asker's wrap of the current epoch (null when none exists for them),
 * the files (`name` as the browser sealed it, `size` the sealed size the download
 * sends; `messageId` null: sent with the report) and the thread oldest first, each
 * `body` the envelope as its sender's browser sealed it. One type for the server, the
 * workspace's chart and scripted clients.
 */
export interface SealedCaseAnswer extends SealedCaseView {
  caseNumber: string;
  status: string;
  created: string;
  protectionOfficerId: string;
  subsidiaryId: string | null;
  files: { id: string; messageId: string | null; name: string; size: number; created: string; epoch?: number }[];
  messages: { id: string; type: string; time: string; createdByUserId: string; answerWanted: boolean; body: string; epoch?: number }[];
  // The server always sends the three below; optional so a reader written before the record (a fixture, a script) still types.
  /** The channel; PHONE and MEETING cases have a record (record.ts). */
  submissionType?: 'ONLINE_FORM' | 'PHONE' | 'MEETING';
  /** How a report a handler entered came (docs/decisions/handler-entered-reports.md); null: the reporter sent it. */
  entryChannel?: 'LETTER' | 'EMAIL' | 'IN_PERSON' | null;
  /** When the reporter approved the latest version; null while it awaits approval. */
  approvedAt?: string | null;
  /** The record's versions (each `text` the envelope the handler's browser sealed) and the reporter's comments, oldest first. */
  record?: { versions: RecordVersionEnvelope[]; comments: { id: string; body: string; created: string }[] };
  /** The transcripts of voice files (issue 40), one per file that has one: the same parts as the record, each sealed with the file's id in its additional data. */
  transcripts?: { fileId: string; versions: RecordVersionEnvelope[]; comments: { id: string; body: string; created: string }[] }[];
}

/** The data key from this browser's wrap: a handler's ECDH key pair (private key and SPKI) or the reporter key. */
export async function openCaseKey(view: Pick<SealedCaseView, 'caseId' | 'epoch' | 'wrap'>, key: { ecdh: { privateKey: CryptoKey; publicKey: CryptoKey | Uint8Array }; keyId: string } | { reporterKey: CryptoKey }): Promise<Bytes> {
  if (!view.wrap) throw new Error('no wrap for this key');
  const at = { caseId: view.caseId, epoch: view.epoch };
  const wrap = fromBase64(view.wrap.wrap);
  return 'reporterKey' in key ? unwrapDataKey(key.reporterKey, wrap, at) : openSealedBox(key.ecdh, wrap, { ...at, recipientKeyId: key.keyId });
}

export interface OpenedCase<D, W> {
  /** null: this part could not be opened (altered, truncated, another key); the rest still shows. */
  details: D | null;
  whistleblower: W | null | 'unopened';
  messages: { id: string; text: string | null }[];
}

/**
 * Opens each part on its own; one that fails is null (the whistleblower: `unopened`, null
 * meaning none was sent). `keys`: one data key for every part, or the keys of each epoch
 * (`openCaseKeys`): the report under the first, each message under the epoch it names.
 */
export async function openCaseParts<D = unknown, W = unknown>(keys: Uint8Array | EpochKeys, view: Pick<SealedCaseView, 'caseId' | 'envelopes' | 'messages'>): Promise<OpenedCase<D, W>> {
  const open = async (column: string, text: string, rowId = '', epoch = FIRST_EPOCH): Promise<string | null> => {
    const dataKey = keys instanceof Uint8Array ? keys : keys.byEpoch.get(epoch);
    if (!dataKey) return null;
    try {
      return await openFieldText(dataKey, fieldContext(view.caseId, column, rowId), fromBase64(text));
    } catch {
      return null;
    }
  };
  const json = <T>(t: string | null): T | null => {
    if (t === null) return null;
    try {
      return JSON.parse(t) as T;
    } catch {
      return null;
    }
  };
  const details = json<D>(await open(SEALED_COLUMNS.details, view.envelopes.details));
  const whistleblower = view.envelopes.whistleblower === null ? null : (json<W>(await open(SEALED_COLUMNS.whistleblower, view.envelopes.whistleblower)) ?? 'unopened');
  const messages = await Promise.all(view.messages.map(async (m) => ({ id: m.id, text: await open(SEALED_COLUMNS.messageBody, m.body, m.id, m.epoch) })));
  return { details, whistleblower, messages };
}
