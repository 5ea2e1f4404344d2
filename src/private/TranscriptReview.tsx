/**
 * The transcript of a voice message beside the recording in the private area (issue 40;
 * docs/decisions/voice-messages.md "Transcript"): what the protection officer wrote down,
 * its version and hash, every version, the reporter's comments, and the record's review
 * (src/private/RecordReview.tsx, machines/reportReview.ts with `transcript: true`): comment,
 * or approve the version shown by its hash. On a sealed case every part was opened and its
 * hash checked in this page (src/private/sealed.ts); a version that did not check is not
 * offered for approval.
 */
import { useId } from 'react';
import { useT } from '../i18n/index.ts';
import '../i18n/transcript/index.ts';
import '../i18n/record/index.ts';
import { useCase, usePrivateArea } from './context.tsx';
import { transcriptReviewActors } from './services.ts';
import { RecordVersions } from './RecordVersions.tsx';
import { CommentItems, Review, type ReviewSubject } from './RecordReview.tsx';
import * as styles from './Pages.css.ts';

export function TranscriptReview({ fileId }: { fileId: string }) {
  const c = useCase();
  const t = useT('transcript');
  const tr = useT('record');
  const { services } = usePrivateArea();
  const headingId = useId();
  const transcript = c.transcripts?.find((x) => x.fileId === fileId);
  const latest = transcript?.versions.at(-1);
  if (!transcript || !latest) return null;
  const subject: ReviewSubject = {
    input: { submissionType: c.submission.type, approvedAt: transcript.approvedAt, sha256: latest.sha256, verified: latest.verified, transcript: true },
    version: latest.version,
    actors: transcriptReviewActors(services, fileId),
    words: {
      title: t('transcript.review.title'),
      text: t('transcript.review.text'),
      commentTitle: t('transcript.comment.title'),
      approveTitle: t('transcript.approve.title'),
      approveText: t('transcript.approve.text'),
      approved: t('transcript.approved'),
      waiting: t('transcript.approve.waiting'),
    },
  };
  return (
    <section aria-labelledby={headingId} data-testid="transcript" data-file-id={fileId}>
      <h3 id={headingId} className={styles.cardTitle}>
        {t('transcript.reporter.title')}
      </h3>
      {latest.unopened ? <p className={styles.error}>{tr('record.unopened', { version: latest.version })}</p> : <p style={{ whiteSpace: 'pre-line' }} data-testid="transcript-text">{latest.text}</p>}
      <RecordVersions c={c} versions={transcript.versions} title={t('transcript.reporter.versions')} download={false} />
      {transcript.comments.length > 0 && (
        <>
          <h4>{t('transcript.reporter.comments')}</h4>
          <ul className={styles.feedbackList}>
            <CommentItems comments={transcript.comments} />
          </ul>
        </>
      )}
      <Review subject={subject} />
    </section>
  );
}
