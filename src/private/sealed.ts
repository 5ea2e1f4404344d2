/**
 * A sealed case in the private area (issue 37, docs/decisions/blind-server.md "Reporter
 * pages"): the server answers the usual case read with 409 CASE_SEALED, so the page
 * reads the sealed view, unwraps the case's data key with the reporter key the sign-in
 * page handed over (src/private/reporterKey.ts), and opens each part on its own
 * (core/crypto/case.ts `openCaseParts`): a part that does not open is named as such
 * and the rest still shows. The data key stays in memory for the composer, which seals
 * messages with it; it goes with the session.
 *
 * Without a reporter key, or with one that does not unwrap the case's key, the answer
 * is `keyMissing`: the session chart then asks the reporter to log in again.
 */
import type { ApiClient } from '../api/client.ts';
import type { CaseMessage, LoadCaseResult, PrivateCase, StatusEvent } from '../../machines/session.ts';
import { ALLOWED_FILE_TYPES, fileExtension, type CaseStatus, type MessageType, type SubmissionType, type Violation } from '../../machines/schema.ts';
import type { CaseFile } from '../../machines/session.ts';
import type { EpochKeys } from '../../core/crypto/index.ts';
import type { RecordVersionEnvelope } from '../../core/crypto/record.ts';

export const SEALED_CASE_PATH = '/api/private/case/my-case/sealed';
export const SEALED_MESSAGE_PATH = '/api/private/case/messages/sealed';
export const SEALED_IDENTITY_PATH = '/api/private/case/whistleblower/sealed';
export const REPORTER_WRAP_PATH = '/api/private/case/my-case/reporter-wrap';
/** The case read's sign that this case wants a reporter wrap from the page (server/routes/private.ts). */
export const REPORTER_WRAP_HEADER = 'x-reporter-wrap';
export const SEALED_COMMENT_PATH = '/api/private/case/comments/sealed';
export const EPOCH_WRAP_PATH = '/api/private/case/my-case/epoch-wrap';
export const SEALED_NOTIFY_PATH = '/api/private/case/notification/sealed';
export const KEY_LOG_PATH = '/api/public/key-log';

/** The case's data key, opened here, and the case it belongs to. */
export interface CaseKey {
  caseId: string;
  /** The newest key the reporter wrap reaches (through the forward links after a revocation), what new messages are sealed under. */
  dataKey: Uint8Array;
  /** Its key epoch (core/crypto/epochs.ts); absent: the first. */
  epoch?: number;
  /** Every epoch's key the wrap reaches (older content is sealed under older keys); absent: only `dataKey`. */
  byEpoch?: ReadonlyMap<number, Uint8Array>;
}

/** The key a file (or any part) of `epoch` is sealed under, or null when this page's wrap does not reach it. */
export function keyOfEpoch(key: CaseKey, epoch: number | undefined): Uint8Array | null {
  if (!key.byEpoch) return !epoch || epoch === (key.epoch ?? 1) ? key.dataKey : null;
  return key.byEpoch.get(epoch ?? 1) ?? null;
}

/** The sealed details as the report form seals them (core/crypto/report.ts sealedDetailsOf). */
interface SealedDetails {
  description?: string;
  violation?: Violation;
  repeatedViolations?: boolean;
  whistleblowerRelation?: string;
  reportedPersons?: { name: string; jobTitle: string; phoneOrEmail: string }[];
  reportedUnit?: string | null;
}

interface SealedAnswer {
  caseNumber: string;
  caseId: string;
  status: CaseStatus;
  created: string;
  epoch: number;
  envelopes: { details: string; whistleblower: string | null };
  wrap: { recipientKeyId: string; kind: string; wrap: string } | null;
  messages: { id: string; type: MessageType; time: string; createdByUserId: string; answerWanted: boolean; body: string; epoch?: number }[];
  files?: { id: string; messageId: string | null; name: string; size: number; created: string; epoch?: number }[];
  links?: { epoch: number; kind: 'previous' | 'next'; link: string }[];
  pendingWhistleblowerAction: boolean;
  caseStatusHistory: StatusEvent[];
  protectionOfficer: PrivateCase['protectionOfficer'];
  submissionType?: SubmissionType;
  approvedAt?: string | null;
  record?: { versions: RecordVersionEnvelope[]; comments: { id: string; body: string; created: string }[] };
  transcripts?: { fileId: string; versions: RecordVersionEnvelope[]; comments: { id: string; body: string; created: string }[] }[];
  /** Whether a notification address is stored (sealed to the mail key: this page cannot open it). */
  notify?: boolean;
}

/** Reads and opens the sealed case; `hold` keeps the data key for the composer. */
export async function readSealedCase(api: ApiClient, reporterKey: CryptoKey | null, hold: (key: CaseKey | null) => void, signal?: AbortSignal): Promise<LoadCaseResult> {
  if (!reporterKey) {
    hold(null);
    return { status: 200, data: null, keyMissing: true };
  }
  const res = await api.request(SEALED_CASE_PATH, { signal });
  const view = (await res.json()) as SealedAnswer;
  const { openCaseKeys, openCaseParts, openComments, openRecordVersions } = await import('../../core/crypto/index.ts');
  let keys: Awaited<ReturnType<typeof openCaseKeys>>;
  try {
    keys = await openCaseKeys(view, { reporterKey });
  } catch {
    // No wrap for this key, or a key that does not unwrap it (another password's): nothing would open.
    hold(null);
    return { status: 200, data: null, keyMissing: true };
  }
  // Walked forward past a revocation: wrap the newest key under the reporter key, so the server can drop the forward links (sealed-workspace.md "Revocation and key epochs"). A failure only leaves them for the next sign-in.
  if (keys.epoch > view.epoch) {
    const { toBase64, wrapDataKey } = await import('../../core/crypto/index.ts');
    const wrap = toBase64(await wrapDataKey(reporterKey, keys.dataKey, { caseId: view.caseId, epoch: keys.epoch }));
    await api.request(EPOCH_WRAP_PATH, { method: 'PUT', body: { epoch: keys.epoch, wrap }, signal }).catch(() => undefined);
  }
  const opened = await openCaseParts<SealedDetails, PrivateCase['whistleblower']>(keys, view);
  hold({ caseId: view.caseId, dataKey: keys.dataKey, epoch: keys.epoch, byEpoch: keys.byEpoch });
  const details = opened.details;
  const texts = new Map(opened.messages.map((m) => [m.id, m.text]));
  const files = await openFileList(keys, view.caseId, view.files ?? []);
  const filesOf = (messageId: string | null) => files.filter((f) => f.messageId === messageId).map(({ messageId: _, ...f }) => f);
  const messages: CaseMessage[] = view.messages.map((m) => {
    const text = texts.get(m.id) ?? null;
    return { id: m.id, message: text ?? '', ...(text === null ? { unopened: true } : {}), time: m.time, type: m.type, createdByUserId: m.createdByUserId, files: filesOf(m.id) };
  });
  const unopened: ('details' | 'whistleblower')[] = [];
  if (details === null) unopened.push('details');
  if (opened.whistleblower === 'unopened') unopened.push('whistleblower');
  const history = view.caseStatusHistory ?? [];
  // The record of a phone or meeting report: each version opened and its hash checked here (core/crypto/record.ts).
  const versions = await openRecordVersions(keys, view.caseId, view.record?.versions ?? []);
  const comments = await openComments(keys, view.caseId, view.record?.comments ?? []);
  const latest = versions.at(-1);
  const versionView = (v: (typeof versions)[number]) => ({ version: v.version, sha256: v.sha256, createdAt: v.createdAt, approvedAt: v.approvedAt, text: v.text ?? '', verified: v.verified, ...(v.text === null ? { unopened: true } : {}) });
  const commentView = (c: (typeof comments)[number]) => ({ comment: c.text ?? '', created: c.created, ...(c.text === null ? { unopened: true } : {}) });
  // Each voice file's transcript, opened and checked the same way, bound to its file (issue 40).
  const transcripts = await Promise.all(
    (view.transcripts ?? []).map(async (t) => {
      const tv = await openRecordVersions(keys, view.caseId, t.versions, t.fileId);
      return { fileId: t.fileId, approvedAt: tv.at(-1)?.approvedAt ?? null, versions: tv.map(versionView), comments: (await openComments(keys, view.caseId, t.comments, t.fileId)).map(commentView) };
    }),
  );
  const report: PrivateCase['report'] = latest
    ? {
        text: latest.text ?? '',
        updatedAt: latest.createdAt,
        version: latest.version,
        sha256: latest.sha256,
        versions: versions.map(versionView),
      }
    : null;
  const data: PrivateCase = {
    caseNumber: view.caseNumber,
    status: view.status,
    created: view.created,
    receivedDate: history.find((e) => e.status === 'RECEIVED')?.dateTime ?? null,
    description: details?.description ?? null,
    violation: details?.violation ?? null,
    repeatedViolations: details?.repeatedViolations ?? null,
    whistleblowerRelation: details?.whistleblowerRelation ?? null,
    reportedPersons: details?.reportedPersons ?? [],
    reportedUnit: details?.reportedUnit ?? null,
    submission: { type: view.submissionType ?? 'ONLINE_FORM' },
    approvedAt: view.approvedAt ?? null,
    report,
    comments: comments.map(commentView),
    transcripts,
    pendingWhistleblowerAction: view.pendingWhistleblowerAction,
    protectionOfficer: view.protectionOfficer,
    subsidiary: null,
    caseAccount: { follow: true },
    files: filesOf(null),
    messages,
    events: history.filter((e) => e.status !== 'PENDING_WHISTLEBLOWER_CONTACT'),
    caseStatusHistory: history,
    whistleblower: opened.whistleblower === 'unopened' ? null : opened.whistleblower,
    sealed: { unopened, ...(view.notify ? { notify: true } : {}) },
  };
  return { status: 200, data };
}

/**
 * Each file's name opened on its own (core/crypto `openFileName`): its type comes from
 * the opened name (the server stores every sealed file as octet-stream), its size shown
 * is the true one. A name that does not open leaves the file listed as `unopened`,
 * beside the rest; its bytes are not offered (they would open under no name either).
 */
export async function openFileList(keys: Uint8Array | EpochKeys, caseId: string, files: NonNullable<SealedAnswer['files']>): Promise<(CaseFile & { messageId: string | null })[]> {
  const { keyForEpoch, openFileName } = await import('../../core/crypto/index.ts');
  return Promise.all(
    files.map(async (f) => {
      try {
        const dataKey = keyForEpoch(keys, f.epoch);
        if (!dataKey) throw new Error('no key of this epoch');
        const opened = await openFileName(dataKey, caseId, f.id, f.name);
        const ext = fileExtension(opened.name);
        const mimeType = Object.hasOwn(ALLOWED_FILE_TYPES, ext) ? ALLOWED_FILE_TYPES[ext as keyof typeof ALLOWED_FILE_TYPES][0]! : 'application/octet-stream';
        return { id: f.id, messageId: f.messageId, name: opened.name, size: opened.size ?? f.size, plainSize: opened.size, mimeType, created: f.created, ...(f.epoch ? { epoch: f.epoch } : {}) };
      } catch {
        return { id: f.id, messageId: f.messageId, name: '', size: f.size, plainSize: null, mimeType: 'application/octet-stream', created: f.created, unopened: true };
      }
    }),
  );
}

/** Seals a message under the case's data key here and sends only the envelope, naming the sealed uploads of `uploads.session`; resolves with the HTTP status. */
export async function postSealedMessage(api: ApiClient, key: CaseKey, text: string, signal?: AbortSignal, uploads?: { session: string; ids: string[] } | null): Promise<Response> {
  const { sealMessage } = await import('../../core/crypto/index.ts');
  const sealed = await sealMessage(key.dataKey, key.caseId, text);
  return api.request(SEALED_MESSAGE_PATH, {
    method: 'POST',
    body: uploads ? { ...sealed, epoch: key.epoch ?? 1, uploads: uploads.ids } : { ...sealed, epoch: key.epoch ?? 1 },
    headers: uploads ? { 'x-upload-session': uploads.session } : {},
    signal,
  });
}

/**
 * What a sealed case's identity becomes, by the usual path's rules (server/cases/
 * reporter.ts), applied here since the server cannot read it: a name once given stays;
 * the identity's notification flag is kept as sent with the report and needs an e-mail
 * address (the address mails go to is sealed apart, to the mail key, and changed on its
 * own: `putSealedNotify`).
 */
export function sealedIdentityOf(
  input: { name: string; email: string | null; phone: string | null; phoneCountryCode: string | null },
  current: { name?: string | null; notification?: boolean } | null,
): { name: string; email: string; phone: string | null; phoneCountryCode: string | null; notification: boolean } {
  const email = input.email?.trim() || '';
  return {
    name: current?.name?.trim() ? current.name : input.name,
    email,
    phone: input.phone?.trim() || null,
    phoneCountryCode: input.phoneCountryCode ?? null,
    notification: !!current?.notification && !!email,
  };
}

/** Why no notification address was sent: the key log did not verify here, or it names no mail key. */
export class MailKeyRefused extends Error {}

/**
 * The mail key as the key log gives it, taken only from a log this page verified
 * against the company's anchor (core/crypto `verifyKeyLog`), as the report form does:
 * a log that does not verify, or none with sealed cases, gives no key and nothing is sent.
 */
export async function verifiedMailKey(api: ApiClient, signal?: AbortSignal): Promise<{ spki: string; keyId: string }> {
  const log = (await (await api.request(KEY_LOG_PATH, { signal })).json()) as { sealedCases?: unknown; mailKey?: { spki?: unknown; keyId?: unknown }; anchor?: { ecdsaSpki?: unknown } | null; entries?: unknown };
  if (log.sealedCases !== 'browser' || !log.anchor || typeof log.anchor.ecdsaSpki !== 'string' || !Array.isArray(log.entries)) throw new MailKeyRefused('no sealed cases');
  const { fromBase64, keyId, verifyKeyLog } = await import('../../core/crypto/index.ts');
  const checked = await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki));
  if (!checked.ok) throw new MailKeyRefused(checked.reason);
  const mk = log.mailKey;
  if (!mk || typeof mk.spki !== 'string' || typeof mk.keyId !== 'string' || (await keyId(fromBase64(mk.spki))) !== mk.keyId) throw new MailKeyRefused('no mail key');
  return { spki: mk.spki, keyId: mk.keyId };
}

/**
 * The notification wish of a sealed case: on seals `address` here to the verified mail
 * key (core/crypto `sealNotifyAddress`, bound to the case) and sends only the box; off
 * deletes the stored one. The address never leaves the page in clear.
 */
export async function putSealedNotify(api: ApiClient, caseId: string, wish: { on: boolean; address: string; language?: string }, signal?: AbortSignal): Promise<Response> {
  if (!wish.on) return api.request(SEALED_NOTIFY_PATH, { method: 'DELETE', signal });
  const mailKey = await verifiedMailKey(api, signal);
  const { sealNotifyAddress } = await import('../../core/crypto/index.ts');
  return api.request(SEALED_NOTIFY_PATH, { method: 'PUT', body: { notify: await sealNotifyAddress(mailKey, caseId, wish.address, wish.language) }, signal });
}

/** The identity as the form sends it, sealed here under the case's data key (core/crypto `sealIdentity`); only the envelope leaves. */
export async function putSealedIdentity(api: ApiClient, key: CaseKey, whistleblower: unknown, signal?: AbortSignal): Promise<Response> {
  const { sealIdentity } = await import('../../core/crypto/index.ts');
  return api.request(SEALED_IDENTITY_PATH, { method: 'PUT', body: { envelope: await sealIdentity(key.dataKey, key.caseId, whistleblower) }, signal });
}

/**
 * A server-keyed case being migrated (docs/decisions/sealed-migration.md "Migration"):
 * a reporter who signed in by verifier holds the reporter key only here, so the page
 * asks for the case's data key, wraps it to that key, checks the wrap opens, sends it
 * and forgets the key. 409 REPORTER_WRAP_NOT_NEEDED (sealed, wrapped already, not being
 * migrated) and any failure are quiet: the next sign-in offers it again. Resolves with
 * whether a wrap was stored.
 */
export async function offerReporterWrap(api: ApiClient, reporterKey: CryptoKey | null): Promise<boolean> {
  if (!reporterKey) return false;
  let offer: { caseId: string; epoch: number; dataKey: string };
  try {
    offer = (await (await api.request(REPORTER_WRAP_PATH)).json()) as typeof offer;
  } catch {
    return false;
  }
  const { fromBase64, toBase64, unwrapDataKey, wrapDataKey } = await import('../../core/crypto/index.ts');
  const dataKey = fromBase64(offer.dataKey);
  try {
    const at = { caseId: offer.caseId, epoch: offer.epoch };
    const wrap = await wrapDataKey(reporterKey, dataKey, at);
    const back = await unwrapDataKey(reporterKey, wrap, at);
    if (back.length !== dataKey.length || back.some((b, i) => b !== dataKey[i])) return false;
    back.fill(0);
    await api.request(REPORTER_WRAP_PATH, { method: 'PUT', body: { wrap: toBase64(wrap) } });
    return true;
  } catch {
    return false;
  } finally {
    dataKey.fill(0);
  }
}

/** Seals the reporter's comment on the record here and sends only the envelope; resolves with the HTTP response. */
export async function postSealedComment(api: ApiClient, key: CaseKey, text: string, signal?: AbortSignal): Promise<Response> {
  const { sealComment } = await import('../../core/crypto/index.ts');
  return api.request(SEALED_COMMENT_PATH, { method: 'POST', body: await sealComment(key.dataKey, key.caseId, text), signal });
}

/** The path of a voice file's transcript calls (issue 40): `…/transcript/approve`, `…/transcript/comments`. */
export const transcriptPath = (fileId: string, rest: string) => `/api/private/case/files/${encodeURIComponent(fileId)}/transcript/${rest}`;

/** A comment on a voice file's transcript, sealed here bound to the file (core/crypto/record.ts). */
export async function postSealedTranscriptComment(api: ApiClient, key: CaseKey, fileId: string, text: string, signal?: AbortSignal): Promise<Response> {
  const { sealComment } = await import('../../core/crypto/index.ts');
  return api.request(transcriptPath(fileId, 'comments/sealed'), { method: 'POST', body: await sealComment(key.dataKey, key.caseId, text, undefined, fileId), signal });
}
