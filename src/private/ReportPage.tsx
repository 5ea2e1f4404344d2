/**
 * /private/report (spec §2, §4 Modification by reporter, §5 Comment): the report,
 * read-only; for a phone or meeting report not yet approved, Submit comments and Approve
 * below the record they act on (src/private/RecordReview.tsx, machines/reportReview.ts).
 */
import { formatCaseNumber } from '../../machines/schema.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { useCase, usePrivateArea } from './context.tsx';
import { reviewActors } from './services.ts';
import { RecordVersions } from './RecordVersions.tsx';
import { CommentItems, Review, type ReviewSubject } from './RecordReview.tsx';
import { Unopened } from './Unopened.tsx';
import '../i18n/record/index.ts';
import { card } from '../styles/card.css.ts';
import * as styles from './Pages.css.ts';

export function ReportPage() {
  const t = useT('private');
  const lang = useLanguage();
  const c = useCase();
  const { session } = usePrivateArea();
  const subsidiary = typeof c.subsidiary === 'string' ? c.subsidiary : c.subsidiary?.name;
  const persons = c.reportedPersons ?? [];
  return (
    <>
      <PageTitle title={t('private.report.title', { caseNumber: formatCaseNumber(c.caseNumber) })} />
      <section className={card} aria-labelledby="report-heading">
        <h2 id="report-heading" className={styles.cardTitle}>
          {t('private.report.details')}
        </h2>
        {/* A sealed case's details that did not open here: named, the dates and officer still show. */}
        {c.sealed?.unopened.includes('details') && <Unopened />}
        <dl className={styles.dl}>
          <dt>{t('private.report.created')}</dt>
          <dd>{formatLongDateTime(c.created, lang)}</dd>
          <dt>{t('private.report.channel')}</dt>
          <dd>{t(`private.report.submission.${c.submission.type}`)}</dd>
          {subsidiary && (
            <>
              <dt>{t('private.report.subsidiary')}</dt>
              <dd>{subsidiary}</dd>
            </>
          )}
          {c.protectionOfficer && (
            <>
              <dt>{t('private.report.officer')}</dt>
              <dd>{[c.protectionOfficer.name, c.protectionOfficer.jobTitle, c.protectionOfficer.company].filter(Boolean).join(', ')}</dd>
            </>
          )}
          {c.whistleblowerRelation && (
            <>
              <dt>{t('private.report.relation')}</dt>
              <dd>{c.whistleblowerRelation}</dd>
            </>
          )}
          {c.violation && (
            <>
              <dt>{t('private.report.violation')}</dt>
              <dd>{t(`private.report.violations.${c.violation}`)}</dd>
            </>
          )}
          {c.description && (
            <>
              <dt>{t('private.report.description')}</dt>
              <dd>{c.description}</dd>
            </>
          )}
          {c.repeatedViolations !== null && c.repeatedViolations !== undefined && (
            <>
              <dt>{t('private.report.repeated')}</dt>
              <dd>{t(c.repeatedViolations ? 'private.common.yes' : 'private.common.no')}</dd>
            </>
          )}
          {persons.length > 0 && (
            <>
              <dt>{t('private.report.persons')}</dt>
              <dd>{persons.map((p) => [p.name, p.jobTitle, p.phoneOrEmail].filter(Boolean).join(', ')).join('\n')}</dd>
            </>
          )}
          {c.reportedUnit && (
            <>
              <dt>{t('private.report.unit')}</dt>
              <dd>{c.reportedUnit}</dd>
            </>
          )}
        </dl>
      </section>
      {c.submission.type !== 'ONLINE_FORM' && (
        <section className={card} aria-labelledby="record-heading">
          <h2 id="record-heading" className={styles.cardTitle}>
            {t('private.report.record')}
          </h2>
          {c.report?.text ? (
            <p style={{ whiteSpace: 'pre-line' }}>{c.report.text}</p>
          ) : (
            <p className={styles.muted}>{t('private.report.noRecord')}</p>
          )}
          {c.approvedAt && <p className={styles.success}>{t('private.report.approvedAt', { date: formatLongDateTime(c.approvedAt, lang) })}</p>}
          <RecordVersions c={c} />
        </section>
      )}
      {/* Approve and Comment act on the record: they stand below it, read after it (issue 17 §2). */}
      <RecordReview />
      {(c.comments?.length ?? 0) > 0 && (
        <section className={card} aria-labelledby="comments-heading">
          <h2 id="comments-heading" className={styles.cardTitle}>
            {t('private.report.comments')}
          </h2>
          <ul className={styles.feedbackList} tabIndex={0} aria-label={t('private.report.comments')}>
            <CommentItems comments={c.comments!} />
          </ul>
        </section>
      )}
    </>
  );
}

/** The oral report's record as the review's subject. */
function useRecordSubject(): ReviewSubject {
  const c = useCase();
  const { services } = usePrivateArea();
  // A sealed case's latest version as this page checked it (src/private/sealed.ts); a server-keyed case's is the server's word.
  const latestVerified = c.report?.versions?.at(-1)?.verified;
  return {
    input: { submissionType: c.submission.type, approvedAt: c.approvedAt, sha256: c.report?.sha256 ?? null, verified: latestVerified },
    version: c.report?.sha256 ? (c.report.version ?? 1) : null,
    actors: reviewActors(services),
    words: {},
  };
}

function RecordReview() {
  return <Review subject={useRecordSubject()} />;
}
