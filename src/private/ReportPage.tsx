/**
 * /private/report (spec §2, §4 Modification by reporter, §5 Comment): the report,
 * read-only; for a phone or meeting report not yet approved, Submit comments (a
 * 1216 px dialog; an empty comment shows the error and sends nothing) and Approve
 * (an 816 px confirmation), below the record they act on. The flow is machines/reportReview.ts.
 */
import { useEffect, useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import * as Dialog from '@radix-ui/react-dialog';
import { reportReviewMachine } from '../../machines/reportReview.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { useCase, usePrivateArea, useSessionActive } from './context.tsx';
import { reviewActors } from './services.ts';
import { RecordVersions } from './RecordVersions.tsx';
import { Unopened } from './Unopened.tsx';
import '../i18n/record/index.ts';
import * as buttons from '../styles/button.css.ts';
import * as dialogs from '../styles/dialog.css.ts';
import { card } from '../styles/card.css.ts';
import * as styles from './Pages.css.ts';

export function ReportPage() {
  const t = useT('private');
  const tr = useT('record');
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
      <Review />
      {(c.comments?.length ?? 0) > 0 && (
        <section className={card} aria-labelledby="comments-heading">
          <h2 id="comments-heading" className={styles.cardTitle}>
            {t('private.report.comments')}
          </h2>
          <ul className={styles.feedbackList} tabIndex={0} aria-label={t('private.report.comments')}>
            {c.comments!.map((cm, i) => (
              <li key={i} className={styles.feedbackItem}>
                <time dateTime={cm.created} className={styles.muted}>
                  {formatLongDateTime(cm.created, lang)}
                </time>
                {cm.unopened ? <p className={styles.error}>{tr('record.commentUnopened')}</p> : <p style={{ whiteSpace: 'pre-line' }}>{cm.comment}</p>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

function Review() {
  const t = useT('private');
  const c = useCase();
  const { session, services } = usePrivateArea();
  const active = useSessionActive();
  const commentId = useId();
  const errorId = useId();
  // A sealed case's latest version as this page checked it (src/private/sealed.ts); a server-keyed case's is the server's word.
  const latestVerified = c.report?.versions?.at(-1)?.verified;
  const review = useActorRef(
    reportReviewMachine.provide({
      actors: reviewActors(services),
      actions: {
        reloadCase: () => session.send({ type: 'case.reload' }),
        reportUnauthorized: () => session.send({ type: 'session.unauthorized' }),
      },
    }),
    { input: { submissionType: c.submission.type, approvedAt: c.approvedAt, sha256: c.report?.sha256 ?? null, verified: latestVerified } },
  );
  // Only a real change re-decides (a reload after a comment must keep "comment sent");
  // the record's hash changes when the handler writes or edits the record.
  const sha256 = c.report?.sha256 ?? null;
  useEffect(() => {
    review.send({ type: 'case.change', submissionType: c.submission.type, approvedAt: c.approvedAt, sha256, verified: latestVerified });
  }, [review, c.submission.type, c.approvedAt, sha256, latestVerified]);
  const canApprove = useSelector(review, (s) => s.can({ type: 'approval.open' }));
  const offered = useSelector(review, (s) => s.matches('reviewing'));
  const commentOpen = useSelector(review, (s) => s.matches({ reviewing: 'commenting' }) || s.matches({ reviewing: 'sendingComment' }));
  const sendingComment = useSelector(review, (s) => s.matches({ reviewing: 'sendingComment' }));
  const invalid = useSelector(review, (s) => s.matches({ reviewing: { commenting: 'invalid' } }));
  const commentFailed = useSelector(review, (s) => s.matches({ reviewing: { commenting: 'failed' } }));
  const commentSent = useSelector(review, (s) => s.matches({ reviewing: { idle: 'commentSent' } }));
  const approvalFailed = useSelector(review, (s) => s.matches({ reviewing: { idle: 'approvalFailed' } }));
  const confirming = useSelector(review, (s) => s.matches({ reviewing: 'confirmingApproval' }) || s.matches({ reviewing: 'approving' }));
  const approving = useSelector(review, (s) => s.matches({ reviewing: 'approving' }));
  const approved = useSelector(review, (s) => s.matches('approved'));
  const comment = useSelector(review, (s) => s.context.comment);

  if (approved) return <p className={`${card} ${styles.success}`} role="status">{t('private.report.approved')}</p>;
  if (!offered) return null;
  return (
    <section className={card} aria-labelledby="review-heading">
      <h2 id="review-heading" className={styles.cardTitle}>
        {t('private.report.review.title')}
      </h2>
      <p>{t('private.report.review.text')}</p>
      {commentSent && <p className={styles.success} role="status">{t('private.report.comment.sent')}</p>}
      {approvalFailed && <p className={styles.error} role="alert">{t('private.report.approve.failed')}</p>}
      <div className={styles.actions}>
        <button type="button" className={buttons.secondaryButton} disabled={!active} onClick={() => review.send({ type: 'comment.open' })}>
          {t('private.report.comment.open')}
        </button>
        <button
          type="button"
          className={buttons.button}
          disabled={!active || !canApprove}
          aria-describedby={canApprove ? undefined : 'approve-waits'}
          onClick={() => review.send({ type: 'approval.open' })}
        >
          {t('private.report.approve.open')}
        </button>
      </div>
      {!canApprove && (
        <p id="approve-waits" className={styles.muted}>
          {t('private.report.approve.waiting')}
        </p>
      )}

      <Dialog.Root open={commentOpen} onOpenChange={(open) => !open && review.send({ type: 'comment.cancel' })}>
        <Dialog.Portal>
          <Dialog.Overlay className={dialogs.overlay} />
          <Dialog.Content className={`${dialogs.dialog} ${styles.dialogWide}`} aria-describedby={undefined}>
            <Dialog.Title className={dialogs.dialogTitle}>{t('private.report.comment.title')}</Dialog.Title>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                review.send({ type: 'comment.submit' });
              }}
            >
              <div className={styles.field}>
                <label htmlFor={commentId} className={styles.label}>
                  {t('private.report.comment.label')} <span aria-hidden="true">*</span>
                </label>
                <textarea
                  id={commentId}
                  className={styles.textarea}
                  value={comment}
                  required
                  aria-required="true"
                  aria-invalid={invalid}
                  aria-describedby={invalid ? errorId : undefined}
                  disabled={sendingComment}
                  onChange={(e) => review.send({ type: 'comment.change', value: e.currentTarget.value })}
                />
                {invalid && (
                  <p id={errorId} className={styles.error} role="alert">
                    {t('private.report.comment.required')}
                  </p>
                )}
                {commentFailed && <p className={styles.error} role="alert">{t('private.report.comment.failed')}</p>}
              </div>
              <div className={dialogs.dialogActions}>
                <Dialog.Close asChild>
                  <button type="button" className={buttons.secondaryButton}>
                    {t('private.common.cancel')}
                  </button>
                </Dialog.Close>
                <button type="submit" className={buttons.button} disabled={sendingComment} formNoValidate>
                  {t('private.report.comment.submit')}
                </button>
              </div>
            </form>
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>

      <ConfirmDialog
        open={confirming}
        className={styles.dialogApprove}
        title={t('private.report.approve.title')}
        description={
          c.report?.sha256
            ? `${t('private.report.approve.text')} ${t('private.record.approveVersion', { version: c.report.version ?? 1, hash: c.report.sha256 })}`
            : t('private.report.approve.text')
        }
        cancelLabel={t('private.common.cancel')}
        confirmLabel={t('private.report.approve.confirm')}
        onCancel={() => review.send({ type: 'approval.cancel' })}
        onConfirm={() => review.send({ type: 'approval.confirm' })}
        cancelDisabled={approving}
        confirmDisabled={approving}
      />
    </section>
  );
}
