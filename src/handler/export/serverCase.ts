/**
 * A server-keyed case for the export, from the case page's own data (what
 * GET /api/handler/cases/:n answered), mapped into the one document builder
 * (caseDocument.ts) that a sealed case (sealedCase.ts) goes through too; the internal
 * notes, when they come, are one more part there (docs/decisions/case-export.md "Seams").
 */
import { caseDocument, type DocumentOptions, type ExportCase } from './caseDocument.ts';
import type { ExportDocument } from './document.ts';
import { auditWords } from '../auditWords.ts';

export type { DocumentOptions } from './caseDocument.ts';

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
  files?: { id: string; name: string }[];
  audit: { at: string; handlerName: string; action: string; detail?: Record<string, unknown> }[];
}

/** The case in the export's terms: every part is on the page in clear, so none is `unopened`. */
export function fromServerCase(c: ExportableCase, o: Pick<DocumentOptions, 't' | 'ta' | 'date'>): ExportCase {
  const { t, ta, date } = o;
  const names = { file: (id: string) => c.files?.find((f) => f.id === id)?.name, keyHolder: () => undefined };
  return {
    caseNumber: c.caseNumber,
    summary: [
      { label: t('handler.inbox.col.status'), text: t(`handler.status.${c.status}`) },
      { label: t('handler.inbox.col.channel'), text: t(`handler.channel.${c.submission.type}`) },
      { label: t('handler.inbox.col.received'), text: c.receivedDate ? date(c.receivedDate) : t('handler.inbox.notReceived') },
      { label: t('handler.case.officer'), text: `${c.protectionOfficer.name}, ${c.protectionOfficer.jobTitle}` },
    ],
    report: {
      relation: c.whistleblowerRelation,
      subsidiary: c.subsidiary?.name ?? null,
      description: c.description,
      violation: c.violation ? `${c.violation}${c.repeatedViolations ? ` (${t('handler.case.repeated')})` : ''}` : null,
      persons: c.reportedPersons,
      unit: c.reportedUnit,
    },
    identity: c.whistleblower,
    messages: c.messages.map((m) => ({
      time: m.time,
      who: m.createdByUserId === c.caseNumber ? t('handler.case.fromReporter') : t(`handler.messageType.${m.type}`),
      answerWanted: m.answerWanted,
      text: m.message,
      files: m.files.map((f) => f.name),
    })),
    record:
      c.submission.type === 'ONLINE_FORM'
        ? null
        : {
            versions: (c.report?.versions ?? []).map((v) => ({ ...v, verified: null })),
            text: c.report?.text ?? null,
            comments: c.comments.map((cm) => ({ created: cm.created, text: cm.comment })),
          },
    statusHistory: c.caseStatusHistory.map((e) => ({ status: e.status, at: e.dateTime })),
    audit: c.audit.map((a) => ({ at: a.at, who: a.handlerName, ...auditWords(a, names, ta) })),
    unopenedFiles: [],
  };
}

export function serverCaseDocument(c: ExportableCase, o: DocumentOptions): ExportDocument {
  return caseDocument(fromServerCase(c, o), o);
}
