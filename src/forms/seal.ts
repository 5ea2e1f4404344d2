/**
 * The online form's sealing effects (issue 37, docs/decisions/blind-server.md "Reporter
 * pages"): the key log read and verified here (core/crypto/case.ts `recipientsFor`),
 * then the report sealed under a data key made here and wrapped to the verified keys
 * (and to the reporter key of a followed case). Only envelopes, wraps and the clear
 * metadata the server needs leave the page; the plain case shape never does.
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
import type { CaseDto } from '../../machines/schema.ts';
import { NETWORK_FAILURE } from './submit.ts';
import { solveProofOfWork } from './proof.ts';

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
  let log: { sealedCases?: unknown; anchor: { ecdhSpki: string; ecdsaSpki: string } | null; entries: unknown[] } | null;
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
  const { fromBase64, keyId, recipientsFor } = crypto;
  const recipients = await recipientsFor(log as Parameters<typeof recipientsFor>[0], officerId, seen ? { anchorKeyId: seen.anchorKeyId, head: seen.head } : {});
  if (!recipients.ok) return { refused: refusalOf(recipients.reason) };
  remember(storage, host, { anchorKeyId: await keyId(fromBase64(log.anchor.ecdsaSpki)), head: recipients.head ?? undefined });
  return { recipients };
}

/** What is sealed as the case's details: the reporter's words, as the handlers' browsers open them. */
export function sealedDetailsOf(dto: CaseDto) {
  return {
    description: dto.description,
    violation: dto.violation,
    repeatedViolations: dto.repeatedViolations,
    whistleblowerRelation: dto.whistleblowerRelation,
    reportedPersons: dto.reportedPersons,
    reportedUnit: dto.reportedUnit ?? null,
  };
}

function isSuccess(x: unknown): x is SuccessData {
  const dto = (x as SuccessData | null)?.caseDto;
  return typeof dto?.caseNumber === 'string' && dto.caseNumber.length > 0;
}

/** Seals the report here and sends `sealedCaseDto` (POST /api/public/case/new/sealed). */
export async function sealReport(api: ApiClient, host: string, input: SealReportInput, signal?: AbortSignal, language?: string): Promise<SealOutcome> {
  const { submission } = input;
  if (submission.channel !== 'online' || submission.files.length) return null;
  const dto = submission.dto;
  const account = dto.caseAccount as { follow: boolean; reservation?: string; verifier?: string; kdf?: unknown };
  // A followed case goes with its derived account only: never a password.
  if (account.follow && (typeof account.reservation !== 'string' || !input.reporterKey)) return null;
  const { sealNewCase } = await import('../../core/crypto/index.ts');
  const sealed = await sealNewCase(input.recipients as Parameters<typeof sealNewCase>[0], {
    details: sealedDetailsOf(dto),
    whistleblower: dto.whistleblower ?? undefined,
    reporterKey: account.follow ? (input.reporterKey as CryptoKey) : null,
  });
  sealed.dataKey.fill(0);
  const body = {
    caseId: sealed.caseId,
    protectionOfficer: dto.protectionOfficer,
    subsidiary: dto.subsidiary ?? null,
    caseAccount: account.follow ? { follow: true, reservation: account.reservation, verifier: account.verifier, kdf: account.kdf } : { follow: false },
    envelopes: sealed.envelopes,
    wraps: sealed.wraps,
  };
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', 'x-company-host': host };
  if (language) headers['accept-language'] = language;
  if (account.follow) headers[RESERVATION_HEADER] = account.reservation!;
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
    if (!res.ok) return (answer as { error?: { code?: string } } | null)?.error?.code === 'WRAP_MISSING' ? { wrapMissing: true } : null;
    return isSuccess(answer) ? (answer as SubmitOutcome) : null;
  } catch {
    return signal?.aborted ? null : NETWORK_FAILURE;
  }
}
