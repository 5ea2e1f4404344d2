/**
 * The online form's sealing effects (issue 37, docs/decisions/blind-server.md "Reporter
 * pages"): the key log read and verified here (core/crypto/case.ts `recipientsFor`),
 * then the report sealed under a data key made here and wrapped to the verified keys
 * (and to the reporter key of a followed case), for every channel (online form, phone,
 * meeting). The files went before, sealed under the same data key (./sealFiles.ts);
 * the case names their uploads. An address given for e-mail notification is sealed to
 * the key log's mail key (core/crypto `sealNotifyAddress`), apart from the identity:
 * only the mail worker opens it. The case's categories for statistics (the violation
 * category and the channel) are sealed to the company's statistics key, and only when
 * this page verified its signature against the log it verified (core/crypto
 * verifyStatisticsKey); no key, or one that does not verify: no categories, the case goes
 * as before. Only envelopes, wraps, the sealed address and the
 * clear metadata the server needs leave the page; the plain case shape never does.
 *
 * The page remembers, per company host and for this page load only, the trust anchor's
 * keyId and the last log head it verified: a log under another anchor, or one that does
 * not extend that head, is refused at the next send. Nothing goes to the device's
 * storage: a stored trace of a company's key log would tell whoever holds the device
 * that its owner sent (or began) a report there. Catching a swapped anchor across
 * visits is the handlers' browsers' work (they keep the anchor and the head).
 */
import type { ApiClient } from '../api/client.ts';
import { POW_HEADER, proofHeader } from '../../core/pow.ts';
import type { KeyCheckOutcome, KeyRefusal, SealOutcome, SealReportInput, SubmitOutcome, SuccessData } from '../../machines/report.ts';
import type { OralSubmissionDto } from '../../machines/schema.ts';
import type { MailKey } from '../../core/crypto/mail.ts';
import { NETWORK_FAILURE } from './submit.ts';
import { solveProofOfWork } from './proof.ts';
import { UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';
// What is sealed as the case's details: one shape for every browser that seals a report, the workspace's entry included.
import { sealedDetailsOf } from '../../core/crypto/report.ts';
import { forgetSealedUploads, type SealedUploadMemory, type SealedUploads } from './sealFiles.ts';

const RESERVATION_HEADER = 'x-case-reservation';
const memoryKey = (host: string) => `wb:key-log:${host}`;

/** Where the anchor and head seen are kept: the page's memory (ReportPage.tsx), never the device's storage. */
export type KeyLogMemory = Pick<Storage, 'getItem' | 'setItem'>;

interface Remembered {
  anchorKeyId: string;
  head: { seq: number; hash: string } | undefined;
}

function remembered(storage: KeyLogMemory | undefined, host: string): Remembered | null {
  try {
    const v = JSON.parse(storage?.getItem(memoryKey(host)) ?? 'null') as { anchorKeyId?: unknown; head?: { seq?: unknown; hash?: unknown } | null } | null;
    if (!v || typeof v.anchorKeyId !== 'string') return null;
    const head = v.head && typeof v.head.seq === 'number' && typeof v.head.hash === 'string' ? { seq: v.head.seq, hash: v.head.hash } : undefined;
    return { anchorKeyId: v.anchorKeyId, head };
  } catch {
    return null;
  }
}

function remember(storage: KeyLogMemory | undefined, host: string, value: Remembered): void {
  try {
    storage?.setItem(memoryKey(host), JSON.stringify(value));
  } catch {
    // storage unavailable: the next send verifies against the anchor alone
  }
}

/** recipientsFor's reason in the form's words. */
function refusalOf(reason: string): KeyRefusal {
  return reason === 'signature' || reason === 'anchor' || reason === 'fork' || reason === 'no-keys' ? reason : 'invalid';
}

/**
 * The key log, verified here: the plain path when this portal or company takes no
 * sealed cases, else the keys entitled to `officerId`, or why they are refused.
 */
export async function checkKeyLog(api: ApiClient, host: string, officerId: string, storage: KeyLogMemory | undefined, signal?: AbortSignal): Promise<KeyCheckOutcome> {
  let log: { sealedCases?: unknown; mailKey?: unknown; statisticsKey?: unknown; anchor: { ecdhSpki: string; ecdsaSpki: string } | null; entries: unknown[] } | null;
  try {
    const res = await fetch(api.url('/api/public/key-log'), {
      headers: { accept: 'application/json', 'x-company-host': host },
      signal,
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    if (!res.ok) return null;
    log = (await res.json().catch(() => null)) as typeof log;
  } catch {
    return signal?.aborted ? null : NETWORK_FAILURE;
  }
  if (!log || !Array.isArray(log.entries)) return null;
  if (log.sealedCases !== 'browser') return { plain: true };
  const seen = remembered(storage, host);
  // A company without a recovery key takes no sealed case; one this browser saw with a key and now without is refused.
  if (!log.anchor) return seen ? { refused: 'anchor' } : { plain: true };
  let crypto: typeof import('../../core/crypto/index.ts');
  try {
    crypto = await import('../../core/crypto/index.ts');
  } catch {
    return NETWORK_FAILURE;
  }
  const { fromBase64, keyId, recipientsFor, verifyKeyLog, verifyStatisticsKey } = crypto;
  const recipients = await recipientsFor(log as Parameters<typeof recipientsFor>[0], officerId, seen ? { anchorKeyId: seen.anchorKeyId, head: seen.head } : {});
  if (!recipients.ok) return { refused: refusalOf(recipients.reason) };
  remember(storage, host, { anchorKeyId: await keyId(fromBase64(log.anchor.ecdsaSpki)), head: recipients.head ?? undefined });
  // The mail key rides with the keys (opaque to the chart): a notification address is sealed to it.
  const mk = log.mailKey as Partial<MailKey> | undefined;
  const mailKey = mk && typeof mk.spki === 'string' && typeof mk.keyId === 'string' && /^[0-9a-f]{64}$/.test(mk.keyId) ? { spki: mk.spki, keyId: mk.keyId } : null;
  // The statistics key, only as this page verified it against the log it verified: a key the server swapped in, or none, gets no categories.
  let statsKey: { spki: string; keyId: string } | null = null;
  if (log.statisticsKey) {
    const anchorEcdsa = fromBase64(log.anchor.ecdsaSpki);
    const checked = await verifyKeyLog(log.entries, anchorEcdsa);
    const verified = checked.ok ? await verifyStatisticsKey(log.statisticsKey, anchorEcdsa, checked.keys) : null;
    statsKey = verified ? { spki: crypto.toBase64(verified.spki), keyId: verified.keyId } : null;
  }
  return { recipients: { ...recipients, mailKey, statsKey } };
}

/** What a sealed case of the phone and meeting channels seals as its details: the relation only (their record comes later, from the handler). */
export function sealedOralDetailsOf(dto: OralSubmissionDto) {
  return { description: null, violation: null, repeatedViolations: null, whistleblowerRelation: dto.whistleblowerRelation, reportedPersons: [], reportedUnit: null };
}

const SUBMISSION_TYPES = { online: 'ONLINE_FORM', oral: 'PHONE', meeting: 'MEETING' } as const;

/**
 * What is counted for statistics: the violation category (the form's only enum answer
 * about the matter; the relation and the rest are free text) and the channel.
 */
export function categoriesOf(submission: SealReportInput['submission']): { violation: string | null; channel: string } {
  return { violation: submission.channel === 'online' ? (submission.dto.violation ?? null) : null, channel: SUBMISSION_TYPES[submission.channel] };
}

function isSuccess(x: unknown): x is SuccessData {
  const dto = (x as SuccessData | null)?.caseDto;
  return typeof dto?.caseNumber === 'string' && dto.caseNumber.length > 0;
}

/**
 * Seals the report here and sends `sealedCaseDto` (POST /api/public/case/new/sealed).
 * `memory`: the form's sealed uploads, dropped once a case names them (or can no longer).
 */
export async function sealReport(api: ApiClient, host: string, input: SealReportInput, signal?: AbortSignal, language?: string, memory?: SealedUploadMemory): Promise<SealOutcome> {
  const { submission } = input;
  const uploads = (input.uploads ?? null) as SealedUploads | null;
  // Files go sealed, uploaded before (sending.uploading): never in this call.
  if (submission.files.length && (submission.channel !== 'online' || !uploads || uploads.ids.length !== submission.files.length)) return null;
  const dto = submission.dto;
  const account = dto.caseAccount as { follow: boolean; reservation?: string; verifier?: string; kdf?: unknown };
  // A followed case goes with its derived account only: never a password.
  if (account.follow && (typeof account.reservation !== 'string' || !input.reporterKey)) return null;
  const recipients = input.recipients as Parameters<typeof import('../../core/crypto/index.ts').sealNewCase>[0] & { mailKey?: MailKey | null; statsKey?: { spki: string; keyId: string } | null };
  const who = dto.whistleblower ?? null;
  const address = who?.notification && account.follow && who.email ? who.email : null;
  // Notification asked for, but this log gives no mail key: nothing would open the address.
  if (address && !recipients.mailKey) return null;
  const { sealCategories, sealNewCase, sealNotifyAddress } = await import('../../core/crypto/index.ts');
  const sealed = await sealNewCase(recipients, {
    ...(uploads ? { caseId: uploads.caseId, dataKey: new Uint8Array(uploads.dataKey) } : {}),
    details: submission.channel === 'online' ? sealedDetailsOf(submission.dto) : sealedOralDetailsOf(submission.dto),
    // The address for notifications is kept apart, sealed to the mail key: not in the identity.
    whistleblower: who ? (address ? { ...who, email: null } : who) : undefined,
    reporterKey: account.follow ? (input.reporterKey as CryptoKey) : null,
  });
  const notify = address ? await sealNotifyAddress(recipients.mailKey!, sealed.caseId, address, language) : null;
  // Categories for statistics, sealed to the verified statistics key; none published: nothing sealed, none sent.
  const categories = recipients.statsKey ? await sealCategories(recipients.statsKey, sealed.caseId, categoriesOf(submission)) : null;
  // A key made here, or this call's copy of the uploads' one (the form's memory keeps it until a case names them), goes now.
  sealed.dataKey.fill(0);
  const body = {
    caseId: sealed.caseId,
    ...(submission.channel === 'online' ? {} : { submissionType: SUBMISSION_TYPES[submission.channel] }),
    protectionOfficer: dto.protectionOfficer,
    subsidiary: dto.subsidiary ?? null,
    caseAccount: account.follow ? { follow: true, reservation: account.reservation, verifier: account.verifier, kdf: account.kdf } : { follow: false },
    envelopes: sealed.envelopes,
    wraps: sealed.wraps,
    ...(uploads ? { uploads: uploads.ids } : {}),
    ...(notify ? { notify } : {}),
    ...(categories ? { categories } : {}),
  };
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', 'x-company-host': host };
  if (language) headers['accept-language'] = language;
  if (account.follow) headers[RESERVATION_HEADER] = account.reservation!;
  if (uploads) headers[UPLOAD_SESSION_HEADER] = uploads.session;
  // The reservation paid for the first send; an unfollowed case, or a second send, pays with a proof.
  if (!account.follow || input.resealed) {
    try {
      headers[POW_HEADER] = proofHeader(await solveProofOfWork(api, input.proof, signal));
    } catch {
      return typeof navigator !== 'undefined' && navigator.onLine === false ? NETWORK_FAILURE : null;
    }
  }
  try {
    const res = await fetch(api.url('/api/public/case/new/sealed'), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after'));
      return { rateLimited: { retryAfterSeconds: Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60 } };
    }
    const answer: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const code = (answer as { error?: { code?: string } } | null)?.error?.code;
      // The session made its case already, or this id is taken: those uploads can join no case.
      if (code === 'UPLOAD_SESSION_USED' || code === 'CASE_ID_TAKEN' || res.status === 401) forgetSealedUploads(memory);
      // Keys changed since the log was read (a handler key certified, the mail key rotated): read it again, once.
      return code === 'WRAP_MISSING' || code === 'MAIL_KEY_CHANGED' ? { wrapMissing: true } : null;
    }
    if (!isSuccess(answer)) return null;
    forgetSealedUploads(memory);
    return answer as SubmitOutcome;
  } catch {
    return signal?.aborted ? null : NETWORK_FAILURE;
  }
}
