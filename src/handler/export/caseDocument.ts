/**
 * The one builder of an export's document (docs/decisions/case-export.md "One document"):
 * a server-keyed case (serverCase.ts, from the case page's data) and a sealed case
 * (sealedCase.ts, from the parts the browser opened) are each mapped into an ExportCase,
 * and this turns either into the same sections, in the same order, with the same words.
 * A part that could not be opened is named where it would have been ("This message could
 * not be opened."), never left out silently and never a reason to stop the export.
 */
import type { OpenedNote } from '../../../machines/handler/notes.ts';
import { notesSection } from './notes.ts';
import type { ExportPart } from '../../../machines/schema.ts';
import type { MessageValues } from '../../i18n/message.ts';
import type { ExportDocument, ExportLine, ExportSection } from './document.ts';
import type { HashedFile } from './files.ts';
import type { AuditTranslators } from '../auditWords.ts';

export type Translate = (key: string, values?: MessageValues) => string;

export interface DocumentOptions {
  parts: readonly ExportPart[];
  terms: number;
  files: readonly HashedFile[];
  /** The handler making it, and when. */
  by: string;
  now: string;
  /** `handler` area (status, channel, labels the page already uses) and `export` area. */
  t: Translate;
  te: Translate;
  /** Every area an audit entry's words come from (auditWords.ts), for the audit part. */
  ta: AuditTranslators;
  date: (iso: string) => string;
  /** The internal notes as the browser opened them (src/handler/notes.ts readNotes) and the `notes` area's messages: used only with the part `notes`. */
  notes?: readonly OpenedNote[];
  tn?: Translate;
  /** The notes' files as hashed (and zipped) for this export, each naming its note: used only with the part `notes`. */
  noteFiles?: readonly (HashedFile & { noteId: string })[];
}

/** The report's answers, as either kind of case holds them (words already in the handler's language where they are enums). */
export interface ExportReport {
  relation?: string | null;
  subsidiary?: string | null;
  description?: string | null;
  violation?: string | null;
  persons: { name?: string; jobTitle?: string; phoneOrEmail?: string }[];
  unit?: string | null;
}

export interface ExportMessage {
  time: string;
  /** Who wrote it, in words (the reporter, a handler by name, or the message's type). */
  who: string;
  answerWanted: boolean;
  /** null: this message could not be opened. */
  text: string | null;
  /** Names of its files (a name that did not open already in words). */
  files: string[];
}

export interface ExportRecordVersion {
  version: number;
  createdAt: string;
  /** null: this version could not be opened. */
  text: string | null;
  sha256: string;
  approvedAt: string | null;
  /** false: the text opened here does not give the stored hash; null: not checked here (the server's own record). */
  verified: boolean | null;
}

export type ExportAuditEntry = { at: string; who: string; what: string; detail: string } | { at: string; unopened: true };

/** A case as the export sees it, whatever its kind. */
export interface ExportCase {
  caseNumber: string;
  /** Label and value lines of the summary, in words. */
  summary: { label: string; text: string }[];
  /** null: the report could not be opened. */
  report: ExportReport | null;
  /** null: none was given; `unopened`: it could not be opened. */
  identity: { name?: string; email?: string; phone?: string | null } | null | 'unopened';
  messages: ExportMessage[];
  /** null: the case has no record (a report through the form). `text`: the record without versions (an older server-keyed one). */
  record: { versions: ExportRecordVersion[]; text?: string | null; comments: { created: string; text: string | null }[] } | null;
  statusHistory: { status: string; at: string }[];
  audit: ExportAuditEntry[];
  /** Files whose name did not open: named by their date; nothing of them can be exported. */
  unopenedFiles: { created: string }[];
}

const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

export function caseDocument(c: ExportCase, o: DocumentOptions): ExportDocument {
  const { t, te, date } = o;
  const has = (p: ExportPart) => o.parts.includes(p);
  const none = [{ text: te('export.pdf.none') }];
  const unopened = te('export.pdf.unopened');
  const sections: ExportSection[] = [{ title: t('handler.case.summary'), lines: c.summary }];
  // A file's lines, the same for the case's files and a note's: name and size, SHA-256 and its zip entry, or why it did not open.
  const fileLines = (f: HashedFile): ExportLine[] => {
    const head = te('export.pdf.file', { name: f.name, size: f.size });
    if (!f.failure) return [{ label: head, text: te('export.pdf.sha256', { hash: f.sha256 ?? '' }), mono: true }, { text: te('export.pdf.zipEntry', { entry: f.entry ?? '' }) }];
    const why = { label: f.name, text: te(`export.pdf.file.${f.failure}`) };
    return f.entry ? [why, { text: te('export.pdf.zipIncomplete', { entry: f.entry }) }] : [why];
  };
  if (has('report')) {
    const r = c.report;
    const lines: ExportLine[] = [];
    if (!r) lines.push({ text: unopened });
    else {
      if (r.relation) lines.push({ label: t('handler.case.relation'), text: r.relation });
      if (r.subsidiary) lines.push({ label: t('handler.case.subsidiary'), text: r.subsidiary });
      if (r.description) lines.push({ label: t('handler.case.description'), text: r.description });
      if (r.violation) lines.push({ label: t('handler.case.violation'), text: r.violation });
      for (const p of r.persons) lines.push({ label: t('handler.case.reportedPerson'), text: [p.name, p.jobTitle, p.phoneOrEmail].filter(Boolean).join(', ') });
      if (r.unit) lines.push({ label: t('handler.case.reportedUnit'), text: r.unit });
    }
    sections.push({ title: te('export.part.report'), lines: lines.length ? lines : none });
  }
  if (has('identity')) {
    const w = c.identity;
    const text = w === 'unopened' ? unopened : w ? [w.name, w.email, w.phone].filter(Boolean).join(', ') : te('export.pdf.anonymous');
    sections.push({ title: te('export.part.identity'), lines: [{ text }] });
  }
  if (has('messages')) {
    const lines = c.messages.map((m) => ({
      label: `${date(m.time)} · ${m.who}${m.answerWanted ? ` · ${t('handler.composer.answerWanted')}` : ''}`,
      text: [m.text ?? te('export.pdf.unopenedMessage'), ...m.files.map((f) => `– ${f}`)].filter(Boolean).join('\n'),
    }));
    sections.push({ title: te('export.part.messages'), lines: lines.length ? lines : none });
  }
  if (has('notes') && o.tn) sections.push(notesSection(o.notes ?? [], o.tn, date, te('export.pdf.none'), { files: o.noteFiles ?? [], lines: fileLines }));
  if (has('record') && c.record) {
    const lines: ExportLine[] = [];
    for (const v of c.record.versions) {
      lines.push({ label: te('export.pdf.version', { version: v.version, when: date(v.createdAt) }), text: v.text ?? unopened });
      lines.push({ text: te('export.pdf.sha256', { hash: v.sha256 }), mono: true });
      if (v.text !== null && v.verified === false) lines.push({ text: te('export.pdf.hashMismatch') });
      lines.push({ text: v.approvedAt ? te('export.pdf.approved', { when: date(v.approvedAt) }) : te('export.pdf.notApproved') });
    }
    if (lines.length === 0 && c.record.text) lines.push({ text: c.record.text });
    for (const cm of c.record.comments) lines.push({ label: te('export.pdf.comment', { when: date(cm.created) }), text: cm.text ?? unopened });
    sections.push({ title: te('export.part.record'), lines: lines.length ? lines : none });
  }
  if (has('status')) {
    sections.push({ title: te('export.part.status'), lines: c.statusHistory.length ? c.statusHistory.map((e) => ({ text: `${date(e.at)}: ${t(`handler.status.${e.status}`)}` })) : none });
  }
  if (has('audit')) {
    const lines = c.audit.map((a) =>
      'unopened' in a
        ? { text: `${date(a.at)} · ${te('export.pdf.unopenedEntry')}` }
        : { text: te('export.pdf.audit', { when: date(a.at), who: a.who, what: a.detail ? `${a.what} (${a.detail})` : a.what }) },
    );
    sections.push({ title: te('export.part.audit'), lines: lines.length ? lines : none });
  }
  if (has('files')) {
    const lines: ExportLine[] = o.files.flatMap(fileLines);
    for (const u of c.unopenedFiles) lines.push({ text: te('export.pdf.unopenedFile', { date: date(u.created) }) });
    sections.push({ title: te('export.part.files'), lines: lines.length ? lines : none });
  }
  return {
    title: te('export.pdf.title', { number: spaced(c.caseNumber) }),
    intro: [te('export.pdf.made', { when: date(o.now), name: o.by }), te('export.pdf.parts', { parts: o.parts.map((p) => (p === 'notes' && o.tn ? o.tn('notes.export') : te(`export.part.${p}`))).join(', ') })],
    redactionNotice: o.terms > 0 ? te('export.pdf.redacted', { count: o.terms }) : null,
    sections,
  };
}
