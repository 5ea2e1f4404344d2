/**
 * The export's document of a sealed case, from the parts the browser opened
 * (machines/handler/sealedCase.ts `OpenedSealedCase`) and the sealed view's clear facts;
 * the files are those the browser opened and hashed (files.ts). Not offered in the
 * workspace yet: the audit route refuses a sealed case until its audit trail is written
 * by the browser (docs/decisions/case-export.md "Sealed cases"); this is the mapping that
 * will be used then, tested now.
 */
import type { OpenedSealedCase, SealedView } from '../../../machines/handler/sealedCase.ts';
import type { ExportDocument, ExportSection } from './document.ts';
import type { DocumentOptions } from './serverCase.ts';

const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

export function sealedCaseDocument(view: Pick<SealedView, 'caseNumber' | 'status'>, opened: OpenedSealedCase, o: DocumentOptions): ExportDocument {
  const { t, te, date } = o;
  const has = (p: (typeof o.parts)[number]) => o.parts.includes(p);
  const none = [{ text: te('export.pdf.none') }];
  const unopened = te('export.pdf.unopened');
  const sections: ExportSection[] = [{ title: t('handler.case.summary'), lines: [{ label: t('handler.inbox.col.status'), text: t(`handler.status.${view.status}`) }] }];
  if (has('report')) {
    const d = opened.details;
    const lines: ExportSection['lines'] = [];
    if (!d) lines.push({ text: unopened });
    else {
      if (d.whistleblowerRelation) lines.push({ label: t('handler.case.relation'), text: d.whistleblowerRelation });
      if (d.description) lines.push({ label: t('handler.case.description'), text: d.description });
      if (d.violation) lines.push({ label: t('handler.case.violation'), text: d.violation });
      for (const p of d.reportedPersons ?? []) lines.push({ label: t('handler.case.reportedPerson'), text: [p.name, p.jobTitle, p.phoneOrEmail].filter(Boolean).join(', ') });
      if (d.reportedUnit) lines.push({ label: t('handler.case.reportedUnit'), text: d.reportedUnit });
    }
    sections.push({ title: te('export.part.report'), lines: lines.length ? lines : none });
  }
  if (has('identity')) {
    const w = opened.whistleblower;
    const text = w === 'unopened' ? unopened : w ? [w.name, w.email, w.phone].filter(Boolean).join(', ') : te('export.pdf.anonymous');
    sections.push({ title: te('export.part.identity'), lines: [{ text }] });
  }
  if (has('messages')) {
    const lines = opened.messages.map((m) => {
      const who = m.createdByUserId === view.caseNumber ? t('handler.case.fromReporter') : (opened.senders[m.createdByUserId] ?? t(`handler.messageType.${m.type}`));
      return { label: `${date(m.time)} · ${who}`, text: m.text ?? unopened };
    });
    sections.push({ title: te('export.part.messages'), lines: lines.length ? lines : none });
  }
  if (has('files')) {
    const lines = o.files.flatMap((f) => [
      { label: te('export.pdf.file', { name: f.name, size: f.size }), text: te('export.pdf.sha256', { hash: f.sha256 }), mono: true },
      { text: te('export.pdf.zipEntry', { entry: f.entry }) },
    ]);
    sections.push({ title: te('export.part.files'), lines: lines.length ? lines : none });
  }
  return {
    title: te('export.pdf.title', { number: spaced(view.caseNumber) }),
    intro: [te('export.pdf.made', { when: date(o.now), name: o.by }), te('export.pdf.parts', { parts: o.parts.map((p) => te(`export.part.${p}`)).join(', ') })],
    redactionNotice: o.terms > 0 ? te('export.pdf.redacted', { count: o.terms }) : null,
    sections,
  };
}
