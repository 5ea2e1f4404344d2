/** The audit entry of an entered report (CASE_ENTERED) in words, for both audit trails (AuditTrail.tsx, SealedCaseParts.tsx). */
import '../i18n/entry/index.ts';
import { useT } from '../i18n/index.ts';

const CHANNELS = new Set(['LETTER', 'EMAIL', 'IN_PERSON']);

export function useEntryAudit() {
  const te = useT('entry');
  return {
    action: () => te('entry.audit.action.CASE_ENTERED'),
    /** "Letter, received on 30/11/2026"; an unknown channel or day is left out rather than shown raw. */
    detail: (d: Record<string, unknown>) => {
      const channel = typeof d.channel === 'string' ? d.channel : '';
      const day = typeof d.receivedOn === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d.receivedOn) ? d.receivedOn : '';
      return CHANNELS.has(channel) && day ? te('entry.audit.channel', { channel: te(`entry.channel.${channel}`), day: `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}` }) : '';
    },
  };
}
