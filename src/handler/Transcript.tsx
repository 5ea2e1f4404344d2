/**
 * The transcript of a voice message in the workspace (issue 40; docs/decisions/voice-messages.md
 * "Transcript"): beside the recording, the handler writes down what it says as versions the
 * reporter approves. The chart is the record's (machines/handler/recordEditor.ts with
 * `transcript: true`), the parts are the record's (RecordEditorControls, RecordVersions,
 * RecordDiff); the page supplies how a save goes and how the latest version is read after a
 * conflict: on a server-keyed case through the server, on a sealed case sealed and opened in
 * this browser. No draft is kept on the device for a transcript (the chart's draft actions stay
 * the defaults). Also here: the player of a sealed voice file, opened in this page's memory.
 */
import { useEffect, useId, useState } from 'react';
import { useActorRef } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/transcript/index.ts';
import '../i18n/record/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { RecordDiff } from '../components/RecordDiff.tsx';
import { RecordEditorControls, RecordVersions } from './RecordEditorControls.tsx';
import * as buttons from '../styles/button.css.ts';
import { recordEditorMachine, type LatestAnswer, type SaveAnswer } from '../../machines/handler/recordEditor.ts';
import type { SubmissionType } from '../../machines/schema.ts';
import * as styles from './Pages.css.ts';

export interface TranscriptShown {
  versions: readonly { version: number; sha256: string; createdAt: string; approvedAt: string | null; text: string | null; verified?: boolean; author?: string | null }[];
  comments: readonly { created: string; text: string | null }[];
}

export function TranscriptPanel({ fileId, name, submissionType, transcript, sealed, save, loadLatest, onSaved, onUnauthorized }: {
  fileId: string;
  name: string;
  submissionType: SubmissionType;
  transcript: TranscriptShown | undefined;
  /** A sealed case: each version was opened and its hash checked in this browser. */
  sealed: boolean;
  save: (input: { text: string; baseVersion: number }) => Promise<SaveAnswer>;
  loadLatest: () => Promise<LatestAnswer>;
  onSaved: () => void;
  onUnauthorized: () => void;
}) {
  const t = useT('transcript');
  const th = useT('handler');
  const tr = useT('record');
  const lang = useLanguage();
  const headingId = useId();
  const versions = transcript?.versions ?? [];
  const latest = versions.at(-1) ?? null;
  const previous = versions.length > 1 ? versions.at(-2)! : null;
  const approvedAt = latest?.approvedAt ?? null;
  const text = latest?.text ?? '';
  const version = latest?.version ?? 0;
  const actor = useActorRef(
    recordEditorMachine.provide({
      actors: {
        saveRecord: fromPromise(({ input }: { input: { text: string; baseVersion: number } }) => save(input)),
        loadLatest: fromPromise(() => loadLatest()),
      },
      actions: { reloadCase: onSaved, reportUnauthorized: onUnauthorized },
    }),
    { input: { submissionType, approvedAt, text, version, transcript: true } },
  );
  useEffect(() => {
    actor.send({ type: 'case.change', submissionType, approvedAt, text, version });
  }, [actor, submissionType, approvedAt, text, version]);
  const check = (v: (typeof versions)[number]) =>
    v.text === null ? tr('record.unopened', { version: v.version }) : v.verified ? tr('record.verified') : tr('record.mismatch', { version: v.version });
  const comments = transcript?.comments ?? [];
  return (
    <section className={styles.section} aria-labelledby={headingId} data-testid="transcript" data-file-id={fileId}>
      <h3 id={headingId}>{t('transcript.handler.title', { name })}</h3>
      {latest ? (
        <div data-testid="transcript-text">
          <p className={styles.hint}>{th('handler.record.updated', { when: formatLongDateTime(latest.createdAt, lang) })}</p>
          {latest.text === null ? <p className={styles.error}>{tr('record.unopened', { version: latest.version })}</p> : <p className={styles.pre}>{latest.text}</p>}
        </div>
      ) : (
        <p>{t('transcript.handler.none')}</p>
      )}
      <p role="status" className={approvedAt ? styles.success : styles.hint} data-testid="transcript-approval">
        {approvedAt ? t('transcript.handler.approved', { when: formatLongDateTime(approvedAt, lang) }) : latest ? t('transcript.handler.awaiting') : ''}
      </p>
      <RecordEditorControls
        actor={actor}
        hasRecord={latest !== null}
        labels={{ write: t('transcript.handler.write'), edit: t('transcript.handler.edit'), text: t('transcript.handler.text'), saved: t('transcript.handler.saved') }}
      />
      {previous && latest && previous.text !== null && latest.text !== null && (
        <>
          <h4>{th('handler.record.changes', { version: latest.version, previous: previous.version })}</h4>
          <RecordDiff before={previous.text} after={latest.text} addedLabel={th('handler.record.added')} removedLabel={th('handler.record.removed')} />
        </>
      )}
      {versions.length > 0 && (
        <RecordVersions
          versions={versions}
          title={t('transcript.handler.versions')}
          check={sealed ? (v) => <p className={v.verified ? styles.hint : styles.error} data-testid={`record-check-${v.version}`}>{check(v)}</p> : undefined}
        />
      )}
      {versions.length > 0 && (
        <>
          <h4>{t('transcript.handler.comments')}</h4>
          {comments.length === 0 ? (
            <p>{t('transcript.handler.noComments')}</p>
          ) : (
            <ul className={styles.list} data-testid="transcript-comments">
              {comments.map((c, i) => (
                <li key={i}>
                  <p className={styles.hint}>{formatLongDateTime(c.created, lang)}</p>
                  {c.text === null ? <p className={styles.error}>{tr('record.commentUnopened')}</p> : <p className={styles.pre}>{c.text}</p>}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/**
 * A sealed voice file played here: opened whole in this page's memory on "Open to play"
 * (the server sends only sealed bytes), held as a blob: URL for the browser's own player
 * (never autoplay), released with the view. Nothing is written to storage.
 */
export function SealedVoicePlayer({ name, open }: { name: string; open: () => Promise<Blob> }) {
  const t = useT('transcript');
  // The opened clip is a resource of this view (as in the private area's player), not flow state.
  const [clip, setClip] = useState<{ url: string | null; state: 'idle' | 'opening' | 'failed' }>({ url: null, state: 'idle' });
  useEffect(() => () => void (clip.url && URL.revokeObjectURL(clip.url)), [clip.url]);
  if (clip.url) return <audio className={styles.voice} controls preload="metadata" src={clip.url} aria-label={t('transcript.handler.player', { name })} data-voice="handler" />;
  return (
    <>
      <button
        type="button"
        className={buttons.secondaryButton}
        disabled={clip.state === 'opening'}
        onClick={() => {
          setClip({ url: null, state: 'opening' });
          open().then(
            (blob) => setClip({ url: URL.createObjectURL(blob), state: 'idle' }),
            () => setClip({ url: null, state: 'failed' }),
          );
        }}
      >
        {t('transcript.handler.play', { name })}
      </button>
      <p role="status" className={clip.state === 'failed' ? styles.error : styles.hint}>
        {clip.state === 'opening' ? t('transcript.handler.opening', { name }) : clip.state === 'failed' ? t('transcript.handler.playFailed', { name }) : ''}
      </p>
    </>
  );
}
