/**
 * Comment on and approve a record (spec §4 Modification by reporter, §5 Comment, §9 dialog
 * widths): the oral report's record on /private/report, or a voice message's transcript
 * beside the recording (issue 40). Submit comments is a 1216 px dialog (an empty comment
 * shows the error and sends nothing), Approve an 816 px confirmation naming the version and
 * its hash. The flow is machines/reportReview.ts; the subject supplies its effects and words.
 */
import { useEffect, useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import * as Dialog from '@radix-ui/react-dialog';
import { reportReviewMachine, type ReportReviewInput } from '../../machines/reportReview.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { usePrivateArea, useSessionActive } from './context.tsx';
import type { reviewActors } from './services.ts';
import * as buttons from '../styles/button.css.ts';
import * as dialogs from '../styles/dialog.css.ts';
import { card } from '../styles/card.css.ts';
import * as styles from './Pages.css.ts';

/** What a review acts on: the oral report's record, or a voice file's transcript (issue 40). */
export interface ReviewSubject {
  input: ReportReviewInput;
  /** The latest version's number and hash, named in the approval dialog. */
  version: number | null;
  actors: ReturnType<typeof reviewActors>;
  /** The words that differ from the record's, translated by the subject's page; absent: the record's. */
  words: Partial<Record<'title' | 'text' | 'commentTitle' | 'approveTitle' | 'approveText' | 'approved' | 'waiting', string>>;
}

/** Comment on and approve a subject (machines/reportReview.ts): the record's dialogs, the subject's words. */
export function Review({ subject }: { subject: ReviewSubject }) {
  const t = useT('private');
  const { session } = usePrivateArea();
  const active = useSessionActive();
  const commentId = useId();
  const errorId = useId();
  const headingId = useId();
  const waitsId = useId();
  const w = (key: keyof ReviewSubject['words'], fallback: string) => subject.words[key] ?? t(fallback);
  const { input } = subject;
  const review = useActorRef(
    reportReviewMachine.provide({
      actors: subject.actors,
      actions: {
        reloadCase: () => session.send({ type: 'case.reload' }),
        reportUnauthorized: () => session.send({ type: 'session.unauthorized' }),
      },
    }),
    { input },
  );
  // Only a real change re-decides (a reload after a comment must keep "comment sent");
  // the hash changes when the handler writes or edits the record.
  useEffect(() => {
    review.send({ type: 'case.change', submissionType: input.submissionType, approvedAt: input.approvedAt, sha256: input.sha256, verified: input.verified });
  }, [review, input.submissionType, input.approvedAt, input.sha256, input.verified]);
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

  if (approved) return <p className={`${card} ${styles.success}`} role="status">{w('approved', 'private.report.approved')}</p>;
  if (!offered) return null;
  return (
    <section className={card} aria-labelledby={headingId}>
      <h2 id={headingId} className={styles.cardTitle}>
        {w('title', 'private.report.review.title')}
      </h2>
      <p>{w('text', 'private.report.review.text')}</p>
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
          aria-describedby={canApprove ? undefined : waitsId}
          onClick={() => review.send({ type: 'approval.open' })}
        >
          {t('private.report.approve.open')}
        </button>
      </div>
      {!canApprove && (
        <p id={waitsId} className={styles.muted}>
          {w('waiting', 'private.report.approve.waiting')}
        </p>
      )}

      <Dialog.Root open={commentOpen} onOpenChange={(open) => !open && review.send({ type: 'comment.cancel' })}>
        <Dialog.Portal>
          <Dialog.Overlay className={dialogs.overlay} />
          <Dialog.Content className={`${dialogs.dialog} ${styles.dialogWide}`} aria-describedby={undefined}>
            <Dialog.Title className={dialogs.dialogTitle}>{w('commentTitle', 'private.report.comment.title')}</Dialog.Title>
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
        title={w('approveTitle', 'private.report.approve.title')}
        description={
          input.sha256 && subject.version !== null
            ? `${w('approveText', 'private.report.approve.text')} ${t('private.record.approveVersion', { version: subject.version, hash: input.sha256 })}`
            : w('approveText', 'private.report.approve.text')
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

/** The reporter's comments on a record or a transcript, each with its time; one that did not open says so. */
export function CommentItems({ comments }: { comments: readonly { created: string; comment?: string | null; unopened?: boolean }[] }) {
  const tr = useT('record');
  const lang = useLanguage();
  return (
    <>
      {comments.map((cm, i) => (
        <li key={i} className={styles.feedbackItem}>
          <time dateTime={cm.created} className={styles.muted}>
            {formatLongDateTime(cm.created, lang)}
          </time>
          {cm.unopened ? <p className={styles.error}>{tr('record.commentUnopened')}</p> : <p style={{ whiteSpace: 'pre-line' }}>{cm.comment}</p>}
        </li>
      ))}
    </>
  );
}
