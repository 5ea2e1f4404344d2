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
import type { CaseStatus, MessageType, Violation } from '../../machines/schema.ts';

export const SEALED_CASE_PATH = '/api/private/case/my-case/sealed';
export const SEALED_MESSAGE_PATH = '/api/private/case/messages/sealed';
export const EPOCH_WRAP_PATH = '/api/private/case/my-case/epoch-wrap';

/** The case's data key, opened here, and the case it belongs to. */
export interface CaseKey {
  caseId: string;
  /** The newest key the reporter wrap reaches (through the forward links after a revocation), what new messages are sealed under. */
  dataKey: Uint8Array;
  /** Its key epoch (core/crypto/epochs.ts); absent: the first. */
  epoch?: number;
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
  messages: { id: string; type: MessageType; time: string; createdByUserId: string; answerWanted: boolean; body: string; epoch?: number }[];
  links?: { epoch: number; kind: 'previous' | 'next'; link: string }[];
  pendingWhistleblowerAction: boolean;
  caseStatusHistory: StatusEvent[];
  protectionOfficer: PrivateCase['protectionOfficer'];
}

/** Reads and opens the sealed case; `hold` keeps the data key for the composer. */
export async function readSealedCase(api: ApiClient, reporterKey: CryptoKey | null, hold: (key: CaseKey | null) => void, signal?: AbortSignal): Promise<LoadCaseResult> {
  if (!reporterKey) {
    hold(null);
    return { status: 200, data: null, keyMissing: true };
  }
  const res = await api.request(SEALED_CASE_PATH, { signal });
  const view = (await res.json()) as SealedAnswer;
  const { openCaseKeys, openCaseParts } = await import('../../core/crypto/index.ts');
  let keys: Awaited<ReturnType<typeof openCaseKeys>>;
  try {
    keys = await openCaseKeys(view, { reporterKey });
  } catch {
    // No wrap for this key, or a key that does not unwrap it (another password's): nothing would open.
    hold(null);
    return { status: 200, data: null, keyMissing: true };
  }
  // Walked forward past a revocation: wrap the newest key under the reporter key, so the server can drop the forward links (sealed-cases.md "Revocation and key epochs"). A failure only leaves them for the next sign-in.
  if (keys.epoch > view.epoch) {
    const { toBase64, wrapDataKey } = await import('../../core/crypto/index.ts');
    const wrap = toBase64(await wrapDataKey(reporterKey, keys.dataKey, { caseId: view.caseId, epoch: keys.epoch }));
    await api.request(EPOCH_WRAP_PATH, { method: 'PUT', body: { epoch: keys.epoch, wrap }, signal }).catch(() => undefined);
  }
  const opened = await openCaseParts<SealedDetails, PrivateCase['whistleblower']>(keys, view);
  hold({ caseId: view.caseId, dataKey: keys.dataKey, epoch: keys.epoch });
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
    submission: { type: 'ONLINE_FORM' },
    approvedAt: null,
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
  return api.request(SEALED_MESSAGE_PATH, { method: 'POST', body: { ...sealed, epoch: key.epoch ?? 1 }, signal });
}
