/** The case's audit trail (issue 38 Build 6): one entry per act, with its details, filterable by act (machines/handler/case.ts `auditEntries`). */
import { useId } from 'react';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/work/index.ts';
import { auditWords, useAuditTranslators } from './auditWords.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import { auditEntries } from '../../machines/handler/case.ts';
import * as styles from './Pages.css.ts';

type Entry = { at: string; handlerName: string; action: string; detail: Record<string, string | number | boolean> };

export function AuditTrail({ audit, files, action, onFilter }: { audit: Entry[]; files: { id: string; name: string }[]; action: string; onFilter: (action: string) => void }) {
  const t = useT('handler');
  const tw = useT('work');
  const words = useAuditTranslators();
  const lang = useLanguage();
  const filterId = useId();
  const names = { file: (id: string) => files.find((f) => f.id === id)?.name, keyHolder: () => undefined };
  const actionName = (a: string) => auditWords({ action: a }, names, words).what;

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
                <td data-detail>{auditWords(a, names, words).detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
