/**
 * /private/messages (spec §2, §4 Chat message, §5 Chat): the conversation with the
 * case handlers, the composer (a chart: machines/chat.ts) and a drawer of every
 * shared file, filtered by kind with count and total size. Files download as
 * attachments through the portal; nothing renders inline.
 *
 * The conversation is part of the page, not a scroll box inside it (issue 17 §2):
 * the page opens scrolled to the newest message, just above the composer, and
 * scrolls there again when a message arrives, so a reporter who sent one sees it
 * while the focus stays in the text field. What is scrolled into view is the
 * composer's Send row, not the whole form: the voice recorder (issue 40) sits below
 * that row, so on a phone it never pushes the newest message off the screen.
 */
import { Unopened } from './Unopened.tsx';
import { lazy, Suspense, useEffect, useId, useRef, useState, type RefObject } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { chatMachine } from '../../machines/chat.ts';
import { ALLOWED_EXTENSIONS, LIMITS, isAudioType } from '../../machines/schema.ts';
import { toBcp47, useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime, formatRelativeTime } from '../i18n/dates.ts';
import { formatBytes } from '../i18n/bytes.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { visuallyHidden } from '../styles/global.css.ts';
import { useCase, usePrivateArea, useSessionActive } from './context.tsx';
import { chatEffects, downloadFile, fileBlob } from './services.ts';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import { UploadProgress } from '../components/UploadProgress.tsx';
import { useFileChecksOwner } from '../metadata/context.tsx';
import { FileCheckStatus } from '../metadata/FileCheckStatus.tsx';
import {
  FILE_CATEGORIES,
  categoryOf,
  categoryTotals,
  isOwnMessage,
  sharedFiles,
  type FileCategory,
} from './caseView.ts';
import { PrivateIcon } from './PrivateIcon.tsx';
import { SaveStatus, UnopenedFile, useSealedSave, type SaveActor } from './SealedFiles.tsx';
import { canSaveStreaming } from './sealedFiles.ts';
import type { CaseFile } from '../../machines/session.ts';
import * as layout from './Layout.css.ts';
import * as buttons from '../styles/button.css.ts';
import * as pages from './Pages.css.ts';
import * as styles from './MessagesPage.css.ts';

// Voice messages (issue 40) are played here; the player and its texts load only when a case has one.
const VoicePlayer = lazy(() => import('../voice/VoicePlayer.tsx').then((m) => ({ default: m.VoicePlayer })));
// The transcript beside the recording (issue 40), loaded with it.
const TranscriptReview = lazy(() => import('./TranscriptReview.tsx').then((m) => ({ default: m.TranscriptReview })));
const VoiceRecorder = lazy(() => import('../voice/VoiceRecorder.tsx').then((m) => ({ default: m.VoiceRecorder })));

/**
 * How a file is fetched: a server-keyed case's as a plain download; a sealed case's
 * through the save chart (opened here as it arrives, written where the reporter picks).
 */
function useFileDownload(saver: SaveActor, sealed: boolean) {
  const { services } = usePrivateArea();
  const canSave = useSelector(saver, (s) => s.can({ type: 'file.save', file: { id: '', name: '', plainSize: null } }));
  const open = (f: CaseFile) => {
    if (!sealed) return void downloadFile(services, f);
    saver.send({ type: 'file.save', file: { id: f.id, name: f.name, plainSize: f.plainSize ?? null } });
  };
  return { open, busy: sealed && !canSave };
}

export function MessagesPage() {
  const t = useT('private');
  const sendRow = useRef<HTMLDivElement>(null);
  const count = useCase().messages.length;
  const sealed = !!useCase().sealed;
  const { services } = usePrivateArea();
  const saver = useSealedSave(services);
  const download = useFileDownload(saver, sealed);
  useEffect(() => {
    // The router resets the scroll after a navigation: the newest message is shown once that is done.
    const frame = requestAnimationFrame(() => sendRow.current?.scrollIntoView({ block: 'end' }));
    return () => cancelAnimationFrame(frame);
  }, [count]);
  return (
    <>
      <PageTitle title={t('private.messages.title')} />
      <div className={styles.layout}>
        <div className={styles.chat}>
          <Thread download={download} />
          <Composer sendRowRef={sendRow} />
        </div>
        <SharedFiles download={download} saver={sealed ? saver : null} />
      </div>
    </>
  );
}

type Download = ReturnType<typeof useFileDownload>;

function Thread({ download }: { download: Download }) {
  const t = useT('private');
  const lang = useLanguage();
  const c = useCase();
  const messages = [...c.messages].sort((a, b) => a.time.localeCompare(b.time));
  if (messages.length === 0) return <p className={layout.loading}>{t('private.messages.empty')}</p>;
  return (
    <ol className={styles.thread} aria-label={t('private.messages.thread')}>
      {messages.map((m) => {
        const own = isOwnMessage(c, m);
        return (
          <li key={m.id} className={`${styles.bubble} ${own ? styles.own : ''}`} data-own={own} data-type={m.type}>
            <div className={styles.meta}>
              <strong>{own ? t('private.messages.you') : t('private.messages.handler')}</strong>
              {m.type !== 'STANDARD' && <span className={styles.badge}>{t(`private.messages.type.${m.type}`)}</span>}
              <time dateTime={m.time} title={formatLongDateTime(m.time, lang)}>
                {formatRelativeTime(m.time, lang)}
              </time>
            </div>
            {m.unopened ? <Unopened what="message" /> : m.message && <p className={styles.text}>{m.message}</p>}
            {m.files.map((f) =>
              f.unopened ? (
                <UnopenedFile key={f.id} className={styles.text} />
              ) : (
              <button key={f.id} type="button" className={styles.fileButton} disabled={download.busy} onClick={() => download.open(f)}>
                <PrivateIcon name="download" size={16} />
                <span className={visuallyHidden}>{t('private.files.download')} </span>
                {f.name}
              </button>
              ),
            )}
          </li>
        );
      })}
    </ol>
  );
}

function Composer({ sendRowRef }: { sendRowRef: RefObject<HTMLDivElement | null> }) {
  const t = useT('private');
  const textArea = useRef<HTMLTextAreaElement>(null);
  const { session, services } = usePrivateArea();
  const active = useSessionActive();
  const ids = { text: useId(), counter: useId(), files: useId(), error: useId() };
  // What an attached file gives away is checked on this device; an identified reporter may keep originals.
  const identified = !!useCase().whistleblower?.name;
  // A sent message (the case reloaded with one more) starts the recorder afresh.
  const sentCount = useCase().messages.length;
  const laf = useLookAndFeel();
  const voice = laf.voice;
  const checks = useFileChecksOwner(identified);
  // Made once: the effects keep the upload session and addresses for the next send.
  const [effects] = useState(() => chatEffects(services, checks));
  const composer = useActorRef(
    chatMachine.provide({
      actors: effects.actors,
      actions: {
        ...effects.actions,
        reloadCase: () => session.send({ type: 'case.reload' }),
        focusComposer: () => textArea.current?.focus(),
        reportUnauthorized: () => session.send({ type: 'session.unauthorized' }),
      },
    }),
  );
  const text = useSelector(composer, (s) => s.context.text);
  const files = useSelector(composer, (s) => s.context.files);
  const rejected = useSelector(composer, (s) => s.context.rejectedFiles);
  useEffect(() => checks.keepOnly(files), [checks, files]);
  useEffect(() => checks.setIdentified(identified), [checks, identified]);
  const sending = useSelector(composer, (s) => s.matches('sending'));
  const failed = useSelector(composer, (s) => s.matches({ composing: 'failed' }));
  // Too many messages (429): the chart keeps the draft and the server's wait.
  const rateLimited = useSelector(composer, (s) => s.matches({ composing: 'rateLimited' }));
  const waitMinutes = useSelector(composer, (s) => Math.max(1, Math.ceil((s.context.retryAfterSeconds ?? 60) / 60)));
  const progress = useSelector(composer, (s) => s.context.progress);
  const posting = useSelector(composer, (s) => s.matches({ sending: 'posting' }));
  const canSend = useSelector(composer, (s) => s.can({ type: 'message.send' })) && active;
  const canCancel = useSelector(composer, (s) => s.can({ type: 'message.cancel' }));
  const send = () => {
    if (canSend) composer.send({ type: 'message.send' });
  };
  return (
    <form
      className={styles.composer}
      aria-label={t('private.messages.composer')}
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label htmlFor={ids.text} className={pages.label}>
        {t('private.messages.label')}
      </label>
      <textarea
        id={ids.text}
        value={text}
        maxLength={LIMITS.chatMax}
        ref={textArea}
        rows={3}
        // Read-only, not disabled, while sending: a disabled field would drop the focus.
        readOnly={sending}
        aria-describedby={`${ids.counter}${failed || rateLimited ? ` ${ids.error}` : ''}`}
        onChange={(e) => composer.send({ type: 'text.change', text: e.currentTarget.value })}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
        }}
        className={pages.textarea}
      />
      <div className={styles.composerRow}>
        <span id={ids.counter} aria-live="polite">
          {t('private.messages.counter', { count: text.length, max: LIMITS.chatMax })}
        </span>
        <span>{t('private.messages.hint')}</span>
      </div>
      {files.length > 0 && (
        <ul className={styles.attachments} aria-label={t('private.messages.attached')}>
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`} className={styles.attachment}>
              {f.name}
              <Suspense fallback={null}>
                <FileCheckStatus actor={checks.get(f)} name={f.name} />
              </Suspense>
              {sending && progress[i] && <UploadProgress name={f.name} progress={progress[i]} area="private" />}
              <button
                type="button"
                className={styles.removeButton}
                aria-label={t('private.messages.removeFile', { name: f.name })}
                disabled={sending}
                onClick={() => composer.send({ type: 'file.remove', index: i })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {rejected.length > 0 && (
        // Each chosen file not added, and why, as the report form says it (spec §5 drops them silently).
        <div role="status">
          <ul className={styles.attachments} aria-label={t('private.messages.rejected.list')} data-testid="chat-rejected-files">
            {rejected.map((r, i) => (
              <li key={`${r.name}-${i}`} data-reason={r.reason}>
                {t(`private.messages.rejected.${r.reason}`, { name: r.name, max: LIMITS.maxFiles })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {posting && <progress className={styles.progress} aria-label={t('private.messages.uploading')} />}
      {failed && (
        <p id={ids.error} role="alert" className={pages.error}>
          {t('private.messages.failed')}
        </p>
      )}
      {rateLimited && (
        <p id={ids.error} role="alert" className={pages.error} data-testid="chat-rate-limited">
          {t('private.messages.rateLimited', { minutes: waitMinutes })}
        </p>
      )}
      <div ref={sendRowRef} className={styles.composerRow}>
        {/* A sealed case's files are checked, sealed and sent as ciphertext by the effects (src/private/sealedFiles.ts). */}
        <span>
          <label htmlFor={ids.files} className={styles.fileLabel}>
            <PrivateIcon name="attach" size={18} />
            {t('private.messages.attach', { count: files.length, max: LIMITS.maxFiles })}
          </label>
          <input
            id={ids.files}
            type="file"
            multiple
            className={visuallyHidden}
            disabled={sending || files.length >= LIMITS.maxFiles}
            accept={ALLOWED_EXTENSIONS.map((e) => `.${e}`).join(',')}
            onChange={(e) => {
              const picked = Array.from(e.currentTarget.files ?? []);
              e.currentTarget.value = '';
              if (picked.length) composer.send({ type: 'files.add', files: picked });
            }}
          />
        </span>
        {sending ? (
          <button type="button" className={buttons.secondaryButton} disabled={!canCancel} onClick={() => composer.send({ type: 'message.cancel' })}>
            {t('private.messages.cancel')}
          </button>
        ) : (
          <button type="submit" className={buttons.button} disabled={!canSend}>
            <PrivateIcon name="send" size={18} />
            {t('private.messages.send')}
          </button>
        )}
      </div>
      {voice?.enabled && (
        // A recorded voice message goes with the message as one of its files (issue 40); on a sealed case sealed as any file.
        <Suspense fallback={null}>
          <VoiceRecorder
            key={sentCount}
            settings={voice}
            target="message"
            contactPhone={laf.contactPhone}
            onAttach={(file) => composer.send({ type: 'files.add', files: [file] })}
            onWithdraw={() => {
              const index = composer.getSnapshot().context.files.findIndex((f) => f.name.startsWith('voice-message.'));
              if (index >= 0) composer.send({ type: 'file.remove', index });
            }}
          />
        </Suspense>
      )}
    </form>
  );
}

function SharedFiles({ download, saver }: { download: Download; saver: SaveActor | null }) {
  const t = useT('private');
  const lang = useLanguage();
  const c = useCase();
  const { services } = usePrivateArea();
  // Which filter is shown is view state, not flow state.
  const [filter, setFilter] = useState<FileCategory>('all');
  const all = sharedFiles(c);
  const totals = categoryTotals(all);
  const shown = filter === 'all' ? all : all.filter((f) => categoryOf(f) === filter);
  const locale = toBcp47(lang);
  return (
    <aside className={styles.files} aria-labelledby="shared-files-heading">
      <h2 id="shared-files-heading" className={pages.cardTitle}>
        {t('private.files.title')}
      </h2>
      <div className={styles.filters} role="group" aria-label={t('private.files.filter')}>
        {FILE_CATEGORIES.map((cat) => (
          <button
            key={cat}
            type="button"
            className={styles.filter}
            aria-pressed={filter === cat}
            data-category={cat}
            onClick={() => setFilter(cat)}
          >
            <span>{t(`private.files.category.${cat}`)}</span>
            <span>
              {t('private.files.summary', { count: totals[cat].count, size: formatBytes(totals[cat].bytes, locale, t) })}
            </span>
          </button>
        ))}
      </div>
      {saver && <SaveStatus actor={saver} streaming={canSaveStreaming()} />}
      {shown.length === 0 ? (
        <p>{t('private.files.none')}</p>
      ) : (
        <ul className={styles.fileList}>
          {shown.map((f) => (
            <li key={f.id}>
              {f.unopened ? (
                <UnopenedFile className={pages.muted} />
              ) : (
              <button type="button" className={styles.fileRow} disabled={download.busy} onClick={() => download.open(f)}>
                <span>
                  <PrivateIcon name="file" size={16} /> {f.name}
                </span>
                <span>
                  <span className={visuallyHidden}>{t('private.files.download')} </span>
                  {formatBytes(f.size, locale, t)}
                </span>
              </button>
              )}
              {!f.unopened && isAudioType(f.mimeType ?? '') && (
                <Suspense fallback={null}>
                  <VoicePlayer name={f.name} load={() => fileBlob(services, f)} />
                  <TranscriptReview fileId={f.id} />
                </Suspense>
              )}
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
