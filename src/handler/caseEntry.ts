/**
 * The report entry's effects (machines/handler/caseEntry.ts; docs/decisions/
 * handler-entered-reports.md). At a company whose key log this browser verifies, the
 * report is sealed here exactly as the reporter's form seals one (core/crypto): the
 * entitled keys from the verified log (`recipientsFor`), a case number reserved, the
 * reporter's key and verifier derived from it and the password generated here
 * (`makeCasePassword`, `deriveReporterKeys`), the details in the form's shape
 * (`sealedDetailsOf`), the data key wrapped to every entitled key, the recovery key and
 * the reporter (`sealNewCase`). Only envelopes, wraps and the verifier leave the page.
 *
 * A company without a recovery key, or an officer without a certified key, is
 * server-keyed: the content goes in clear to the plain route, as on the spec's plain
 * routes, with the generated password. The server refuses that route for a company that
 * seals (409 SEALING_REQUIRED), and this browser refuses a log that lost the anchor it
 * saw (src/handler/keys.ts `verifiedLog`), so neither side alone can downgrade a case.
 */
import { chooseKdf, deriveReporterKeys, fromBase64, makeCasePassword, recipientsFor, sealNewCase, sealedDetailsOf, toBase64 } from '../../core/crypto/index.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { EnteredReport } from '../../machines/schema.ts';
import type { ChoicesAnswer, EntryAnswer, EntryChoices } from '../../machines/handler/caseEntry.ts';
import type { HandlerKeysApi } from './keys.ts';

const fromBase64url = (s: string) => fromBase64(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
const toBase64url = (b: Uint8Array) => toBase64(b).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

async function call<T>(run: () => Promise<T>): Promise<{ status: number; data?: T; code?: string }> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
    throw err;
  }
}

type Created = { caseDto: { caseNumber: string } };

export function caseEntryEffects(api: ApiClient, keys: Pick<HandlerKeysApi, 'verifiedLog'>) {
  const loadChoices = async (): Promise<ChoicesAnswer> => {
    const r = await call(() => api.json<EntryChoices>('/api/handler/case-entry'));
    return { status: r.status, choices: r.data };
  };

  const answer = (r: { status: number; data?: Created; code?: string }, password: string | null): EntryAnswer =>
    r.status === 200 && r.data ? { status: 201, caseNumber: r.data.caseDto.caseNumber, password } : { status: r.status, code: r.code };

  /** The report sealed here and sent with only its envelopes. */
  const enterSealed = async (report: EnteredReport, recipients: Parameters<typeof sealNewCase>[0]): Promise<EntryAnswer> => {
    const password = report.follow ? makeCasePassword() : null;
    let caseAccount: Record<string, unknown> = { follow: false };
    let reporterKey: CryptoKey | null = null;
    if (password) {
      const reserved = await call(() => api.json<{ reservation: string; caseNumber: string; salt: string }>('/api/handler/case-entry/reservation', { method: 'POST' }));
      if (reserved.status !== 200 || !reserved.data) return { status: reserved.status, code: reserved.code };
      const kdf = await chooseKdf();
      const derived = await deriveReporterKeys({ caseNumber: reserved.data.caseNumber, password, salt: fromBase64url(reserved.data.salt), kdf });
      reporterKey = derived.reporterKey;
      caseAccount = { follow: true, reservation: reserved.data.reservation, verifier: toBase64url(derived.verifier), kdf };
    }
    const sealed = await sealNewCase(recipients, { details: sealedDetailsOf(report), whistleblower: report.whistleblower ?? undefined, reporterKey });
    sealed.dataKey.fill(0);
    const body = {
      caseId: sealed.caseId,
      channel: report.channel,
      receivedOn: report.receivedOn,
      protectionOfficer: report.protectionOfficer,
      subsidiary: report.subsidiary ?? null,
      caseAccount,
      envelopes: sealed.envelopes,
      wraps: sealed.wraps,
    };
    return answer(await call(() => api.json<Created>('/api/handler/case-entry/sealed', { method: 'POST', body })), password);
  };

  /** A server-keyed company: the content in clear, as on the plain routes, with the password generated here. */
  const enterPlain = async (report: EnteredReport): Promise<EntryAnswer> => {
    const password = report.follow ? makeCasePassword() : null;
    const { follow: _follow, ...content } = report;
    const body = { ...content, caseAccount: password ? { follow: true, password } : { follow: false } };
    return answer(await call(() => api.json<Created>('/api/handler/case-entry', { method: 'POST', body })), password);
  };

  const enterCase = async (report: EnteredReport): Promise<EntryAnswer> => {
    const v = await keys.verifiedLog();
    if (!v.ok) return { status: 409, code: `KEY_LOG_${v.reason.toUpperCase()}` };
    const sealing = (v.log as { sealedCases?: unknown }).sealedCases === 'browser' && v.log.anchor !== null;
    if (!sealing) return enterPlain(report);
    const recipients = await recipientsFor(v.log, report.protectionOfficer.id, v.anchorId ? { anchorKeyId: v.anchorId } : {});
    if (recipients.ok) return enterSealed(report, recipients);
    // No key certified for this officer yet: the company keeps this officer's cases server-keyed, as the form's do.
    if (recipients.reason === 'no-keys') return enterPlain(report);
    return { status: 409, code: `KEY_LOG_${recipients.reason.toUpperCase().replace(/-/g, '_')}` };
  };

  return { loadChoices, enterCase };
}

export type CaseEntryEffects = ReturnType<typeof caseEntryEffects>;
