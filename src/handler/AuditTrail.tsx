/** The case's audit trail (issue 38 Build 6): one entry per act, with its details, filterable by act (machines/handler/case.ts `auditEntries`). */
import { useId } from 'react';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/work/index.ts';
import '../i18n/notes/index.ts';
import { useEntryAudit } from './entryAudit.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import { auditEntries } from '../../machines/handler/case.ts';
import * as styles from './Pages.css.ts';

type Entry = { at: string; handlerName: string; action: string; detail: Record<string, string | number | boolean> };
const WORK_ACTIONS = new Set(['ASSIGNED', 'UNASSIGNED', 'SHARED', 'UNSHARED']);
const NOTE_ACTIONS = new Set(['NOTE_ADDED', 'NOTE_EDITED', 'NOTE_FILES_ADDED']);
const STATUSES = new Set(['PENDING_WHISTLEBLOWER_CONTACT', 'RECEIVED', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED']);
const MESSAGE_TYPES = new Set(['STANDARD', 'CONFIRMATION', 'FEEDBACK']);

export function AuditTrail({ audit, files, action, onFilter }: { audit: Entry[]; files: { id: string; name: string }[]; action: string; onFilter: (action: string) => void }) {
  const t = useT('handler');
  const tw = useT('work');
  const tn = useT('notes');
  const entered = useEntryAudit();
  const lang = useLanguage();
  const filterId = useId();
  const actionName = (a: string) => (NOTE_ACTIONS.has(a) ? tn(`notes.audit.${a}`) : a === 'CASE_ENTERED' ? entered.action() : WORK_ACTIONS.has(a) ? tw(`work.audit.action.${a}`) : t(`handler.audit.action.${a}`));
  const str = (v: unknown) => (typeof v === 'string' ? v : '');

  // Details in words; an unknown key or value is left out rather than shown raw.
  const details = (e: Entry): string => {
    const d = e.detail;
    switch (e.action) {
      case 'STATUS_CHANGED':
        return STATUSES.has(str(d.from)) && STATUSES.has(str(d.to)) ? `${t(`handler.status.${str(d.from)}`)} → ${t(`handler.status.${str(d.to)}`)}` : '';
      case 'MESSAGE_SENT': {
        const parts = [MESSAGE_TYPES.has(str(d.type)) ? t(`handler.messageType.${str(d.type)}`) : ''];
        if (d.answerWanted === true) parts.push(t('handler.composer.answerWanted'));
        if (typeof d.files === 'number' && d.files > 0) parts.push(tw('work.audit.files', { count: d.files }));
        return parts.filter(Boolean).join(' · ');
      }
      case 'FILE_DOWNLOADED': {
        if (typeof d.recordVersion === 'number') return tw('work.audit.recordVersion', { version: d.recordVersion });
        const f = files.find((x) => x.id === d.fileId);
        // A note's file is not among the case's files: named as such (internal-notes.md "Files").
        return f ? tw('work.audit.file', { name: f.name }) : d.noteId ? tn('notes.audit.noteFile') : '';
      }
      case 'RECORD_EDITED':
        return typeof d.characters === 'number' ? tw('work.audit.characters', { count: d.characters }) : '';
      case 'ASSIGNED':
        return d.from ? tw('work.audit.fromTo', { from: str(d.from), to: str(d.to) }) : tw('work.audit.to', { name: str(d.to) });
      case 'UNASSIGNED':
        return tw('work.audit.from', { name: str(d.from) });
      case 'SHARED':
      case 'UNSHARED':
        return tw('work.audit.with', { name: str(d.with) });
      case 'NOTE_EDITED':
        return typeof d.version === 'number' ? tn('notes.audit.version', { version: d.version }) : '';
      case 'NOTE_FILES_ADDED':
        return typeof d.files === 'number' ? tn('notes.audit.files', { count: d.files }) : '';
      case 'CASE_ENTERED':
        return entered.detail(d);
      default:
        return '';
    }
  };

  const present = [...new Set(audit.map((e) => e.action))];
  const shown = auditEntries(audit, action);
  return (
    <section className={styles.section} aria-labelledby="case-audit">
      <h2 id="case-audit" className={styles.sectionTitle}>
        {t('handler.audit.title')}
      </h2>
      <div className={styles.field}>
        <label htmlFor={filterId} className={styles.label}>
          {tw('work.audit.filter')}
        </label>
        <select id={filterId} name="audit-filter" className={input} value={action} onChange={(e) => onFilter(e.target.value)}>
          <option value="ALL">{tw('work.audit.filter.all')}</option>
          {present.map((a) => (
            <option key={a} value={a}>
              {actionName(a)}
            </option>
          ))}
        </select>
      </div>
      <div className={styles.scroll} role="region" aria-labelledby="case-audit" tabIndex={0}>
        <table className={styles.table} data-testid="audit-trail">
          <caption className={styles.caption}>{tw('work.audit.count', { count: shown.length })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('handler.audit.when')}</th>
              <th scope="col">{t('handler.audit.who')}</th>
              <th scope="col">{t('handler.audit.what')}</th>
              <th scope="col">{tw('work.audit.detail')}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((a, i) => (
              <tr key={i}>
                <td>{formatLongDateTime(a.at, lang)}</td>
                <td>{a.handlerName}</td>
                <td data-action={a.action}>{actionName(a.action)}</td>
                <td data-detail>{details(a)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
