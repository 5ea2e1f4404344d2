/**
 * A case sealed as the reporter's browser seals it (docs/decisions/blind-server.md
 * "Sealed cases"), with core/crypto/case.ts: the keys from the verified key log, a fresh
 * data key, the fields sealed, the key wrapped. The body is what
 * `POST /api/public/case/new/sealed` takes.
 */
import { recipientsFor, sealNewCase, SEALED_COLUMNS, type PublishedKeyLog } from '../../core/crypto/index.ts';

export const DETAILS_COLUMN = SEALED_COLUMNS.details;
export type PublicKeyLog = PublishedKeyLog;

/** `submissionType`: a phone or meeting case through the same sealed route (its record is sealed too, docs/decisions/record-versions.md). */
export async function sealCase(log: PublicKeyLog, input: { officerId: string; details: unknown; whistleblower?: unknown; account?: { caseAccount: unknown; reporterKey: CryptoKey }; submissionType?: 'ONLINE_FORM' | 'PHONE' | 'MEETING' }) {
  const recipients = await recipientsFor(log, input.officerId);
  // An officer with no certified key: sealed to the recovery key alone, so the server's refusal can be tested.
  const usable = recipients.ok ? recipients : recipients.reason === 'no-keys' ? await recoveryOnly(log) : null;
  if (!usable) throw new Error(`key log: ${(recipients as { reason: string }).reason}`);
  const sealed = await sealNewCase(usable, { details: input.details, whistleblower: input.whistleblower, reporterKey: input.account?.reporterKey });
  return {
    caseId: sealed.caseId,
    dataKey: sealed.dataKey,
    body: {
      caseId: sealed.caseId,
      protectionOfficer: { id: input.officerId },
      caseAccount: input.account?.caseAccount ?? { follow: false },
      envelopes: sealed.envelopes,
      wraps: sealed.wraps,
      ...(input.submissionType ? { submissionType: input.submissionType } : {}),
    },
  };
}

async function recoveryOnly(log: PublicKeyLog) {
  const { fromBase64, keyId } = await import('../../core/crypto/index.ts');
  const spki = fromBase64(log.anchor!.ecdhSpki);
  return { ok: true as const, handlers: [], recovery: { spki, keyId: await keyId(spki) }, head: null };
}
