/**
 * A sealed case for the export, from the parts this browser opened
 * (machines/handler/sealedCase.ts `OpenedSealedCase`) and the sealed view's clear facts
 * (status, channel, status history, the audit trail the server writes in clear), mapped
 * into the one document builder (caseDocument.ts) a server-keyed case goes through too.
 * What did not open stays in as such: the builder names it where it would have been.
 */
import type { OpenedSealedCase, SealedView } from '../../../machines/handler/sealedCase.ts';
import { auditWords } from '../auditWords.ts';
import { caseDocument, type DocumentOptions, type ExportCase } from './caseDocument.ts';
import type { ExportDocument } from './document.ts';

export type SealedExportView = Pick<SealedView, 'caseNumber' | 'status'> & Partial<Pick<SealedView, 'created' | 'submissionType'>> & { caseStatusHistory?: { status: string; dateTime: string }[] };

export function fromSealedCase(view: SealedExportView, opened: OpenedSealedCase, o: Pick<DocumentOptions, 't' | 'te' | 'ta' | 'date'>): ExportCase {
  const { t, te, ta, date } = o;
  const d = opened.details;
  const fileName = (id: string) => opened.files.find((f) => f.id === id)?.name;
  const channel = view.submissionType ?? 'ONLINE_FORM';
  const summary = [{ label: t('handler.inbox.col.status'), text: t(`handler.status.${view.status}`) }, { label: t('handler.inbox.col.channel'), text: t(`handler.channel.${channel}`) }];
  if (view.created) summary.push({ label: te('export.pdf.created'), text: date(view.created) });
  return {
    caseNumber: view.caseNumber,
    summary,
    report: d && {
      relation: d.whistleblowerRelation ?? null,
      description: d.description ?? null,
      violation: d.violation ?? null,
      persons: d.reportedPersons ?? [],
      unit: d.reportedUnit ?? null,
    },
    identity: opened.whistleblower,
    messages: opened.messages.map((m) => ({
      time: m.time,
      who: m.createdByUserId === view.caseNumber ? t('handler.case.fromReporter') : (opened.senders[m.createdByUserId] ?? t(`handler.messageType.${m.type}`)),
      answerWanted: m.answerWanted,
      text: m.text,
      files: opened.files.filter((f) => f.messageId === m.id).map((f) => f.name ?? te('export.pdf.unopenedFile', { date: date(f.created) })),
    })),
    record:
      channel === 'ONLINE_FORM'
        ? null
        : {
            versions: opened.record.versions.map((v) => ({ version: v.version, createdAt: v.createdAt, text: v.text, sha256: v.sha256, approvedAt: v.approvedAt, verified: v.verified })),
            comments: opened.record.comments.map((c) => ({ created: c.created, text: c.text })),
          },
    statusHistory: (view.caseStatusHistory ?? []).map((e) => ({ status: e.status, at: e.dateTime })),
    audit: opened.audit.map((a) =>
      'unopened' in a ? a : { at: a.at, who: a.handlerName ?? '', ...auditWords(a, { file: fileName, keyHolder: (k) => opened.keyHolders[k] }, ta) },
    ),
    unopenedFiles: opened.files.filter((f) => f.name === null).map((f) => ({ created: f.created })),
  };
}

export function sealedCaseDocument(view: SealedExportView, opened: OpenedSealedCase, o: DocumentOptions): ExportDocument {
  return caseDocument(fromSealedCase(view, opened, o), o);
}
