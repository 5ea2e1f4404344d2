/**
 * The export's document of a server-keyed case, from the case page's own data (what
 * GET /api/handler/cases/:n answered) and the files' hashes the browser computed.
 * A sealed case maps its opened parts (machines/handler/sealedCase.ts
 * `OpenedSealedCase`) into the same ExportDocument; the internal notes, when chosen, are
 * one more section (notes.ts, shared with the sealed case's export).
 */
import type { ExportPart } from '../../../machines/schema.ts';
import type { MessageValues } from '../../i18n/message.ts';
import type { ExportDocument, ExportSection } from './document.ts';
import type { HashedFile } from './files.ts';
import type { OpenedNote } from '../../../machines/handler/notes.ts';
import { notesSection } from './notes.ts';

type Translate = (key: string, values?: MessageValues) => string;

export interface ExportableCase {
  caseNumber: string;
  status: string;
  submission: { type: string };
  receivedDate: string | null;
  description: string | null;
  violation: string | null;
  repeatedViolations: boolean | null;
  whistleblowerRelation: string;
  reportedPersons: { name: string; jobTitle: string; phoneOrEmail: string }[];
  reportedUnit: string | null;
  subsidiary: { name: string } | null;
  protectionOfficer: { name: string; jobTitle: string };
  whistleblower: { name: string; email: string; phone?: string | null } | null;
  messages: { id: string; message: string; time: string; type: string; createdByUserId: string; answerWanted: boolean; files: { id: string; name: string }[] }[];
  caseStatusHistory: { status: string; dateTime: string }[];
  comments: { comment: string; created: string }[];
  report: { text: string; updatedAt: string; versions?: { version: number; sha256: string; createdAt: string; approvedAt: string | null; text: string }[] } | null;
  approvedAt: string | null;
  audit: { at: string; handlerName: string; action: string }[];
}

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
  date: (iso: string) => string;
  /** The internal notes as the page opened them, and the `notes` area's messages: only with the part `notes`. */
  notes?: readonly OpenedNote[];
  tn?: Translate;
}

const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

export function serverCaseDocument(c: ExportableCase, o: DocumentOptions): ExportDocument {
  const { t, te, date } = o;
  const has = (p: ExportPart) => o.parts.includes(p);
  const none = [{ text: te('export.pdf.none') }];
  const sections: ExportSection[] = [];
  const summary = [
    { label: t('handler.inbox.col.status'), text: t(`handler.status.${c.status}`) },
    { label: t('handler.inbox.col.channel'), text: t(`handler.channel.${c.submission.type}`) },
    { label: t('handler.inbox.col.received'), text: c.receivedDate ? date(c.receivedDate) : t('handler.inbox.notReceived') },
    { label: t('handler.case.officer'), text: `${c.protectionOfficer.name}, ${c.protectionOfficer.jobTitle}` },
  ];
  sections.push({ title: t('handler.case.summary'), lines: summary });
  if (has('report')) {
    const lines = [{ label: t('handler.case.relation'), text: c.whistleblowerRelation }];
    if (c.subsidiary) lines.push({ label: t('handler.case.subsidiary'), text: c.subsidiary.name });
    if (c.description) lines.push({ label: t('handler.case.description'), text: c.description });
    if (c.violation) lines.push({ label: t('handler.case.violation'), text: `${c.violation}${c.repeatedViolations ? ` (${t('handler.case.repeated')})` : ''}` });
    for (const p of c.reportedPersons) lines.push({ label: t('handler.case.reportedPerson'), text: [p.name, p.jobTitle, p.phoneOrEmail].filter(Boolean).join(', ') });
    if (c.reportedUnit) lines.push({ label: t('handler.case.reportedUnit'), text: c.reportedUnit });
    sections.push({ title: te('export.part.report'), lines });
  }
  if (has('identity')) {
    const w = c.whistleblower;
    sections.push({ title: te('export.part.identity'), lines: [{ text: w ? [w.name, w.email, w.phone].filter(Boolean).join(', ') : te('export.pdf.anonymous') }] });
  }
  if (has('messages')) {
    const lines = c.messages.flatMap((m) => {
      const who = m.createdByUserId === c.caseNumber ? t('handler.case.fromReporter') : t(`handler.messageType.${m.type}`);
      const head = `${date(m.time)} · ${who}${m.answerWanted ? ` · ${t('handler.composer.answerWanted')}` : ''}`;
      return [{ label: head, text: [m.message, ...m.files.map((f) => `– ${f.name}`)].filter(Boolean).join('\n') }];
    });
    sections.push({ title: te('export.part.messages'), lines: lines.length ? lines : none });
  }
  if (has('notes') && o.tn) sections.push(notesSection(o.notes ?? [], o.tn, date, te('export.pdf.none')));
  if (has('record') && c.submission.type !== 'ONLINE_FORM') {
    const lines: ExportSection['lines'] = [];
    for (const v of c.report?.versions ?? []) {
      lines.push({ label: te('export.pdf.version', { version: v.version, when: date(v.createdAt) }), text: v.text });
      lines.push({ text: te('export.pdf.sha256', { hash: v.sha256 }), mono: true });
      lines.push({ text: v.approvedAt ? te('export.pdf.approved', { when: date(v.approvedAt) }) : te('export.pdf.notApproved') });
    }
    if (lines.length === 0 && c.report) lines.push({ text: c.report.text });
    for (const cm of c.comments) lines.push({ label: te('export.pdf.comment', { when: date(cm.created) }), text: cm.comment });
    sections.push({ title: te('export.part.record'), lines: lines.length ? lines : none });
  }
  if (has('status')) {
    sections.push({ title: te('export.part.status'), lines: c.caseStatusHistory.length ? c.caseStatusHistory.map((e) => ({ text: `${date(e.dateTime)}: ${t(`handler.status.${e.status}`)}` })) : none });
  }
  if (has('audit')) {
    sections.push({ title: te('export.part.audit'), lines: c.audit.length ? c.audit.map((a) => ({ text: te('export.pdf.audit', { when: date(a.at), who: a.handlerName, what: t(`handler.audit.action.${a.action}`) }) })) : none });
  }
  if (has('files')) {
    const lines = o.files.flatMap((f) => [
      { label: te('export.pdf.file', { name: f.name, size: f.size }), text: te('export.pdf.sha256', { hash: f.sha256 }), mono: true },
      { text: te('export.pdf.zipEntry', { entry: f.entry }) },
    ]);
    sections.push({ title: te('export.part.files'), lines: lines.length ? lines : none });
  }
  return {
    title: te('export.pdf.title', { number: spaced(c.caseNumber) }),
    intro: [te('export.pdf.made', { when: date(o.now), name: o.by }), te('export.pdf.parts', { parts: o.parts.map((p) => (p === 'notes' && o.tn ? o.tn('notes.export') : te(`export.part.${p}`))).join(', ') })],
    redactionNotice: o.terms > 0 ? te('export.pdf.redacted', { count: o.terms }) : null,
    sections,
  };
}
