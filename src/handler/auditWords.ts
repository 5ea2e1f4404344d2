/**
 * An audit entry in words (issue 38 Build 6; sealed-workspace.md "Status and audit of
 * sealed cases"): the act and its details, the server's ids resolved against what this
 * page knows (a file id to its name, a key id to the colleague). The one function for
 * both kinds of case, on the page (AuditTrail.tsx, SealedCaseParts.tsx) and in the
 * export's audit part (export/serverCase.ts, export/sealedCase.ts), so that all four say
 * the same. An act's words live in the catalogue area of the feature that writes it; a
 * detail that is missing or not one the catalogues can say is left out rather than
 * shown raw.
 */
import { useT } from '../i18n/index.ts';
import type { Translate } from './export/caseDocument.ts';
import { EXPORT_PARTS } from '../../machines/schema.ts';
import '../i18n/work/index.ts';
import '../i18n/notes/index.ts';
import '../i18n/entry/index.ts';
import '../i18n/sealedwork/index.ts';
import '../i18n/export/index.ts';

/** The catalogue areas whose messages say an audit entry. */
export interface AuditTranslators {
  handler: Translate;
  sealedwork: Translate;
  work: Translate;
  notes: Translate;
  entry: Translate;
  export: Translate;
}

export function useAuditTranslators(): AuditTranslators {
  return { handler: useT('handler'), sealedwork: useT('sealedwork'), work: useT('work'), notes: useT('notes'), entry: useT('entry'), export: useT('export') };
}

export interface AuditNames {
  /** A file's name by its id; null or undefined: it did not open here, or is unknown. */
  file: (id: string) => string | null | undefined;
  /** A colleague's name by the keyId of her ECDH key (sealed cases' grants). */
  keyHolder: (id: string) => string | undefined;
}

/** Every act the server writes, by the area that names it (server/handlers/cases.ts AUDIT_ACTIONS). */
const ACTION_KEYS: Record<string, (t: AuditTranslators) => string> = {
  CASE_READ: (t) => t.handler('handler.audit.action.CASE_READ'),
  FILE_DOWNLOADED: (t) => t.handler('handler.audit.action.FILE_DOWNLOADED'),
  STATUS_CHANGED: (t) => t.handler('handler.audit.action.STATUS_CHANGED'),
  MESSAGE_SENT: (t) => t.handler('handler.audit.action.MESSAGE_SENT'),
  RECORD_EDITED: (t) => t.handler('handler.audit.action.RECORD_EDITED'),
  CASE_EXPORTED: (t) => t.handler('handler.audit.action.CASE_EXPORTED'),
  ASSIGNED: (t) => t.work('work.audit.action.ASSIGNED'),
  UNASSIGNED: (t) => t.work('work.audit.action.UNASSIGNED'),
  SHARED: (t) => t.work('work.audit.action.SHARED'),
  UNSHARED: (t) => t.work('work.audit.action.UNSHARED'),
  ACCESS_GRANTED: (t) => t.sealedwork('sealedwork.audit.action.ACCESS_GRANTED'),
  ACCESS_REVOKED: (t) => t.sealedwork('sealedwork.audit.action.ACCESS_REVOKED'),
  NOTE_ADDED: (t) => t.notes('notes.audit.NOTE_ADDED'),
  NOTE_EDITED: (t) => t.notes('notes.audit.NOTE_EDITED'),
  NOTE_FILES_ADDED: (t) => t.notes('notes.audit.NOTE_FILES_ADDED'),
  CASE_ENTERED: (t) => t.entry('entry.audit.action.CASE_ENTERED'),
};

/** The acts these words know, for a test that holds them equal to the server's list. */
export const AUDIT_WORDS_ACTIONS: readonly string[] = Object.keys(ACTION_KEYS);

const STATUSES = new Set(['PENDING_WHISTLEBLOWER_CONTACT', 'RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED']);
const MESSAGE_TYPES = new Set(['STANDARD', 'CONFIRMATION', 'FEEDBACK']);
const ENTRY_CHANNELS = new Set(['LETTER', 'EMAIL', 'IN_PERSON']);
const PARTS = new Set<string>(EXPORT_PARTS);

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

function detailOf(action: string, d: Record<string, unknown>, names: AuditNames, t: AuditTranslators): string {
  switch (action) {
    case 'STATUS_CHANGED':
      return STATUSES.has(str(d.from)) && STATUSES.has(str(d.to))
        ? t.sealedwork('sealedwork.audit.detail.status', { from: t.handler(`handler.status.${str(d.from)}`), to: t.handler(`handler.status.${str(d.to)}`) })
        : '';
    case 'MESSAGE_SENT': {
      const files = count(d.files);
      return [
        MESSAGE_TYPES.has(str(d.type)) ? t.handler(`handler.messageType.${str(d.type)}`) : '',
        d.answerWanted === true ? t.handler('handler.composer.answerWanted') : '',
        files ? t.work('work.audit.files', { count: files }) : '',
      ]
        .filter(Boolean)
        .join(' · ');
    }
    case 'FILE_DOWNLOADED': {
      const version = count(d.recordVersion);
      if (version !== null) return t.work('work.audit.recordVersion', { version });
      if (!str(d.fileId)) return '';
      const name = names.file(str(d.fileId));
      if (name) return t.sealedwork('sealedwork.audit.detail.file', { name });
      // A note's file is not among the case's files the page names (internal-notes.md "Files").
      return str(d.noteId) ? t.notes('notes.audit.noteFile') : t.sealedwork('sealedwork.audit.detail.file', { name: t.sealedwork('sealedwork.audit.detail.unknownFile') });
    }
    case 'RECORD_EDITED': {
      const characters = count(d.characters);
      return characters === null ? '' : t.work('work.audit.characters', { count: characters });
    }
    case 'ASSIGNED':
      return str(d.from) ? t.work('work.audit.fromTo', { from: str(d.from), to: str(d.to) }) : str(d.to) ? t.work('work.audit.to', { name: str(d.to) }) : '';
    case 'UNASSIGNED':
      return str(d.from) ? t.work('work.audit.from', { name: str(d.from) }) : '';
    case 'SHARED':
    case 'UNSHARED':
      return str(d.with) ? t.work('work.audit.with', { name: str(d.with) }) : '';
    case 'ACCESS_GRANTED':
      return t.sealedwork('sealedwork.audit.detail.grant', { name: names.keyHolder(str(d.recipientKeyId)) ?? t.sealedwork('sealedwork.audit.detail.unknownColleague') });
    case 'ACCESS_REVOKED': {
      const name = names.keyHolder(str(d.recipientKeyId)) ?? t.sealedwork('sealedwork.audit.detail.unknownColleague');
      const epoch = count(d.epoch);
      return epoch === null ? '' : t.sealedwork('sealedwork.audit.detail.revoke', { name, epoch });
    }
    case 'NOTE_FILES_ADDED': {
      const files = count(d.files);
      return files === null ? '' : t.notes('notes.audit.files', { count: files });
    }
    case 'NOTE_EDITED': {
      const version = count(d.version);
      return version === null ? '' : t.notes('notes.audit.version', { version });
    }
    case 'CASE_ENTERED': {
      const channel = str(d.channel);
      const day = /^\d{4}-\d{2}-\d{2}$/.test(str(d.receivedOn)) ? str(d.receivedOn) : '';
      return ENTRY_CHANNELS.has(channel) && day
        ? t.entry('entry.audit.channel', { channel: t.entry(`entry.channel.${channel}`), day: `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}` })
        : '';
    }
    case 'CASE_EXPORTED': {
      const parts = str(d.parts)
        .split(',')
        .filter((p) => PARTS.has(p))
        .map((p) => (p === 'notes' ? t.notes('notes.export') : t.export(`export.part.${p}`)))
        .join(', ');
      const terms = count(d.redactedTerms) ?? 0;
      return t.export('export.audit.detail', { parts, redaction: terms > 0 ? t.export('export.audit.redacted', { count: terms }) : t.export('export.audit.notRedacted') });
    }
    default:
      return '';
  }
}

/** The act and its details in words; an act these words do not know keeps its code, so it is never silently dropped from a trail. */
export function auditWords(a: { action: string; detail?: Record<string, unknown> | null }, names: AuditNames, t: AuditTranslators): { what: string; detail: string } {
  const what = ACTION_KEYS[a.action]?.(t) ?? a.action;
  return { what, detail: detailOf(a.action, a.detail ?? {}, names, t) };
}
