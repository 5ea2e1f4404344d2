/**
 * The record of an oral or meeting report, proven (docs/decisions/record-versions.md):
 * the latest version's text, every version with its number, time, SHA-256 and
 * approval, the differences from the version before (words added and removed), and
 * the download of each approved version with its hash and approval time.
 */
import { useState } from 'react';
import type { PrivateCase, RecordVersion } from '../../machines/session.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { RecordDiff as SharedRecordDiff } from '../components/RecordDiff.tsx';
import { usePrivateArea } from './context.tsx';
import { downloadRecord } from './services.ts';
import * as buttons from '../styles/button.css.ts';
import * as styles from './Pages.css.ts';
import * as own from './RecordVersions.css.ts';
import '../i18n/record/index.ts';

/** The shared diff, labelled from the reporter's catalogue. */
export function RecordDiff({ before, after }: { before: string; after: string }) {
  const t = useT('private');
  return <SharedRecordDiff before={before} after={after} addedLabel={t('private.record.added')} removedLabel={t('private.record.removed')} />;
}

/** `versions`, `title`, `download` for another subject (a voice message's transcript, issue 40); absent: the record's, with its downloads. */
export function RecordVersions({ c, versions: given, title, download = true }: { c: PrivateCase; versions?: RecordVersion[]; title?: string; download?: boolean }) {
  const t = useT('private');
  const tr = useT('record');
  const lang = useLanguage();
  const { services } = usePrivateArea();
  // A sealed case: each version was opened and its hash checked in this page (src/private/sealed.ts).
  const sealed = !!c.sealed;
  const check = (v: RecordVersion) =>
    v.unopened ? tr('record.unopened', { version: v.version }) : v.verified === false ? tr('record.mismatch', { version: v.version }) : tr('record.verified');
  // Presentation only: whether the last download failed.
  const [failed, setFailed] = useState(false);
  const versions: RecordVersion[] = given ?? c.report?.versions ?? [];
  const heading = title ?? t('private.record.versions');
  if (versions.length === 0) return null;
  const latest = versions.at(-1)!;
  const previous = versions.length > 1 ? versions.at(-2)! : null;
  return (
    <>
      <p className={own.hash} data-testid="record-hash">
        {t('private.record.current', { version: latest.version, hash: latest.sha256 })}
      </p>
      {sealed && latest.verified === false && (
        <p className={styles.error} role="alert" data-testid="record-mismatch">
          {latest.unopened ? tr('record.unopened', { version: latest.version }) : tr('record.reporter.refuse', { version: latest.version })}
        </p>
      )}
      {latest.approvedAt ? (
        <p className={styles.success}>{t('private.record.approvedVersion', { version: latest.version, date: formatLongDateTime(latest.approvedAt, lang) })}</p>
      ) : (
        <p className={own.awaiting} data-testid="record-awaiting">
          {t('private.record.awaiting', { version: latest.version })}
        </p>
      )}
      {previous && !previous.unopened && !latest.unopened && (
        <>
          <h3 className={own.subTitle}>{t('private.record.changes', { version: latest.version, previous: previous.version })}</h3>
          <RecordDiff before={previous.text} after={latest.text} />
        </>
      )}
      <h3 className={own.subTitle}>{heading}</h3>
      {failed && (
        <p className={styles.error} role="alert">
          {t('private.record.downloadFailed')}
        </p>
      )}
      <ol className={own.list} aria-label={heading}>
        {versions.map((v) => (
          <li key={v.version} className={own.item}>
            <span>{t('private.record.version', { version: v.version, date: formatLongDateTime(v.createdAt, lang) })}</span>
            <code className={own.code}>SHA-256 {v.sha256}</code>
            {sealed && <span className={v.verified === false ? styles.error : undefined} data-testid={`record-check-${v.version}`}>{check(v)}</span>}
            {/* The server cannot write a sealed case's approved version as a document: it has no key. */}
            {v.approvedAt && (sealed || !download) ? (
              <span>{t('private.record.approvedOn', { date: formatLongDateTime(v.approvedAt, lang) })}</span>
            ) : v.approvedAt ? (
              <>
                <span>{t('private.record.approvedOn', { date: formatLongDateTime(v.approvedAt, lang) })}</span>
                <button
                  type="button"
                  className={buttons.secondaryButton}
                  onClick={() => {
                    setFailed(false);
                    void downloadRecord(services, c.caseNumber, v.version).then((status) => setFailed(status !== 200));
                  }}
                >
                  {t('private.record.download', { version: v.version })}
                </button>
              </>
            ) : (
              <span>{t('private.record.notApproved')}</span>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}
