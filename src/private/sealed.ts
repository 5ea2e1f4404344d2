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
import type { CaseStatus, MessageType, SubmissionType, Violation } from '../../machines/schema.ts';
import type { RecordVersionEnvelope } from '../../core/crypto/record.ts';

export const SEALED_CASE_PATH = '/api/private/case/my-case/sealed';
export const SEALED_MESSAGE_PATH = '/api/private/case/messages/sealed';
export const SEALED_COMMENT_PATH = '/api/private/case/comments/sealed';

/** The case's data key, opened here, and the case it belongs to. */
export interface CaseKey {
  caseId: string;
  dataKey: Uint8Array;
}

/** The sealed details as the report form seals them (src/forms/seal.ts sealedDetailsOf). */
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
  messages: { id: string; type: MessageType; time: string; createdByUserId: string; answerWanted: boolean; body: string }[];
  pendingWhistleblowerAction: boolean;
  caseStatusHistory: StatusEvent[];
  protectionOfficer: PrivateCase['protectionOfficer'];
  submissionType?: SubmissionType;
  approvedAt?: string | null;
  record?: { versions: RecordVersionEnvelope[]; comments: { id: string; body: string; created: string }[] };
}

/** Reads and opens the sealed case; `hold` keeps the data key for the composer. */
export async function readSealedCase(api: ApiClient, reporterKey: CryptoKey | null, hold: (key: CaseKey | null) => void, signal?: AbortSignal): Promise<LoadCaseResult> {
  if (!reporterKey) {
    hold(null);
    return { status: 200, data: null, keyMissing: true };
  }
  const res = await api.request(SEALED_CASE_PATH, { signal });
  const view = (await res.json()) as SealedAnswer;
  const { openCaseKey, openCaseParts, openComments, openRecordVersions } = await import('../../core/crypto/index.ts');
  let dataKey: Uint8Array;
  try {
    dataKey = await openCaseKey(view, { reporterKey });
  } catch {
    // No wrap for this key, or a key that does not unwrap it (another password's): nothing would open.
    hold(null);
    return { status: 200, data: null, keyMissing: true };
  }
  const opened = await openCaseParts<SealedDetails, PrivateCase['whistleblower']>(dataKey, view);
  hold({ caseId: view.caseId, dataKey });
  const details = opened.details;
  const texts = new Map(opened.messages.map((m) => [m.id, m.text]));
  const messages: CaseMessage[] = view.messages.map((m) => {
    const text = texts.get(m.id) ?? null;
    return { id: m.id, message: text ?? '', ...(text === null ? { unopened: true } : {}), time: m.time, type: m.type, createdByUserId: m.createdByUserId, files: [] };
  });
  const unopened: ('details' | 'whistleblower')[] = [];
  if (details === null) unopened.push('details');
  if (opened.whistleblower === 'unopened') unopened.push('whistleblower');
  const history = view.caseStatusHistory ?? [];
  // The record of a phone or meeting report: each version opened and its hash checked here (core/crypto/record.ts).
  const versions = await openRecordVersions(dataKey, view.caseId, view.record?.versions ?? []);
  const comments = await openComments(dataKey, view.caseId, view.record?.comments ?? []);
  const latest = versions.at(-1);
  const report: PrivateCase['report'] = latest
    ? {
        text: latest.text ?? '',
        updatedAt: latest.createdAt,
        version: latest.version,
        sha256: latest.sha256,
        versions: versions.map((v) => ({ version: v.version, sha256: v.sha256, createdAt: v.createdAt, approvedAt: v.approvedAt, text: v.text ?? '', verified: v.verified, ...(v.text === null ? { unopened: true } : {}) })),
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
    comments: comments.map((c) => ({ comment: c.text ?? '', created: c.created, ...(c.text === null ? { unopened: true } : {}) })),
    pendingWhistleblowerAction: view.pendingWhistleblowerAction,
    protectionOfficer: view.protectionOfficer,
    subsidiary: null,
    caseAccount: { follow: true },
    files: [],
    messages,
    events: history.filter((e) => e.status !== 'PENDING_WHISTLEBLOWER_CONTACT'),
    caseStatusHistory: history,
    whistleblower: opened.whistleblower === 'unopened' ? null : opened.whistleblower,
    sealed: { unopened },
  };
  return { status: 200, data };
}

/** Seals a message under the case's data key here and sends only the envelope; resolves with the HTTP status. */
export async function postSealedMessage(api: ApiClient, key: CaseKey, text: string, signal?: AbortSignal): Promise<Response> {
  const { sealMessage } = await import('../../core/crypto/index.ts');
  const sealed = await sealMessage(key.dataKey, key.caseId, text);
  return api.request(SEALED_MESSAGE_PATH, { method: 'POST', body: sealed, signal });
}

/** Seals the reporter's comment on the record here and sends only the envelope; resolves with the HTTP response. */
export async function postSealedComment(api: ApiClient, key: CaseKey, text: string, signal?: AbortSignal): Promise<Response> {
  const { sealComment } = await import('../../core/crypto/index.ts');
  return api.request(SEALED_COMMENT_PATH, { method: 'POST', body: await sealComment(key.dataKey, key.caseId, text), signal });
}
