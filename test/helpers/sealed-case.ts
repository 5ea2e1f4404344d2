/**
 * A case sealed as the reporter's browser seals it (docs/decisions/blind-server.md
 * "Sealed cases"), with core/crypto only: read and verify the key log, pick the keys
 * entitled to the officer, make the data key, seal the fields, wrap the key. Used by
 * the server tests; the form does the same in the page.
 */
import { randomUUID } from 'node:crypto';
import { fieldContext, fromBase64, keyId, makeDataKey, sealField, sealToPublicKey, toBase64, verifyKeyLog, wrapDataKey } from '../../core/crypto/index.ts';

export const DETAILS_COLUMN = 'report_case.details_enc';
export const WHISTLEBLOWER_COLUMN = 'report_case.whistleblower_enc';

export interface PublicKeyLog {
  anchor: { ecdhSpki: string; ecdsaSpki: string } | null;
  entries: unknown[];
}

export interface SealedCase {
  caseId: string;
  dataKey: Uint8Array;
  body: {
    caseId: string;
    protectionOfficer: { id: string };
    subsidiary?: string | null;
    caseAccount: unknown;
    envelopes: { details: string; whistleblower: string | null };
    wraps: { recipientKeyId: string; kind: 'reporter' | 'handler' | 'recovery'; wrap: string }[];
  };
}

export async function sealCase(log: PublicKeyLog, input: { officerId: string; details: unknown; whistleblower?: unknown; account?: { caseAccount: unknown; reporterKey: CryptoKey } }): Promise<SealedCase> {
  if (!log.anchor) throw new Error('no anchor');
  const checked = await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki));
  if (!checked.ok) throw new Error(`key log: ${checked.reason}`);
  const caseId = randomUUID();
  const dataKey = makeDataKey();
  const at = { caseId, epoch: 1 };
  const wraps: SealedCase['body']['wraps'] = [];
  for (const k of checked.byOfficer.get(input.officerId) ?? []) {
    wraps.push({ recipientKeyId: k.ecdhKeyId, kind: 'handler', wrap: toBase64(await sealToPublicKey(k.ecdhSpki, dataKey, { ...at, recipientKeyId: k.ecdhKeyId })) });
  }
  const recovery = fromBase64(log.anchor.ecdhSpki);
  const recoveryId = await keyId(recovery);
  wraps.push({ recipientKeyId: recoveryId, kind: 'recovery', wrap: toBase64(await sealToPublicKey(recovery, dataKey, { ...at, recipientKeyId: recoveryId })) });
  if (input.account) wraps.push({ recipientKeyId: 'reporter', kind: 'reporter', wrap: toBase64(await wrapDataKey(input.account.reporterKey, dataKey, at)) });
  const seal = async (column: string, value: unknown) => toBase64(await sealField(dataKey, fieldContext(caseId, column), JSON.stringify(value)));
  return {
    caseId,
    dataKey,
    body: {
      caseId,
      protectionOfficer: { id: input.officerId },
      caseAccount: input.account?.caseAccount ?? { follow: false },
      envelopes: { details: await seal(DETAILS_COLUMN, input.details), whistleblower: input.whistleblower ? await seal(WHISTLEBLOWER_COLUMN, input.whistleblower) : null },
      wraps,
    },
  };
}
