/**
 * An audit entry in words (sealed-workspace.md "Status and audit of sealed cases"): the
 * act and its details, the server's ids resolved against what this browser opened (a file
 * id to its opened name, a key id to the colleague). One function for the sealed case's
 * trail on the page and for the export's audit part, so both say the same.
 */
import type { Translate } from './export/caseDocument.ts';

export interface AuditNames {
  /** The opened name of a file by its id; null or undefined: it did not open, or is unknown here. */
  file: (id: string) => string | null | undefined;
  /** A colleague's name by the keyId of her ECDH key. */
  keyHolder: (id: string) => string | undefined;
}

/** `th`: the handler area; `tw`: sealedwork; `te`: export. */
export function auditWords(a: { action: string; detail?: Record<string, unknown> }, names: AuditNames, tr: { th: Translate; tw: Translate; te: Translate }): { what: string; detail: string } {
  const { th, tw, te } = tr;
  const d = a.detail ?? {};
  const what = a.action === 'ACCESS_GRANTED' || a.action === 'ACCESS_REVOKED' ? tw(`sealedwork.audit.action.${a.action}`) : th(`handler.audit.action.${a.action}`);
  const colleague = () => names.keyHolder(String(d.recipientKeyId)) ?? tw('sealedwork.audit.detail.unknownColleague');
  switch (a.action) {
    case 'STATUS_CHANGED':
      return { what, detail: tw('sealedwork.audit.detail.status', { from: th(`handler.status.${String(d.from)}`), to: th(`handler.status.${String(d.to)}`) }) };
    case 'FILE_DOWNLOADED':
      return { what, detail: tw('sealedwork.audit.detail.file', { name: names.file(String(d.fileId)) ?? tw('sealedwork.audit.detail.unknownFile') }) };
    case 'MESSAGE_SENT':
      return { what, detail: typeof d.type === 'string' ? th(`handler.messageType.${d.type}`) : '' };
    case 'ACCESS_GRANTED':
      return { what, detail: tw('sealedwork.audit.detail.grant', { name: colleague() }) };
    case 'ACCESS_REVOKED':
      return { what, detail: tw('sealedwork.audit.detail.revoke', { name: colleague(), epoch: Number(d.epoch) }) };
    case 'CASE_EXPORTED': {
      const parts = String(d.parts ?? '').split(',').filter(Boolean).map((p) => te(`export.part.${p}`)).join(', ');
      const count = Number(d.redactedTerms ?? 0);
      return { what, detail: te('export.audit.detail', { parts, redaction: count > 0 ? te('export.audit.redacted', { count }) : te('export.audit.notRedacted') }) };
    }
    default:
      return { what, detail: '' };
  }
}
