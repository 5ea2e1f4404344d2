/**
 * /handler/cases/$caseNumber: the case as submitted, identity, files (download only),
 * status history and change, the conversation with the composer, the record of an
 * oral report with the reporter's comments and approval, and the audit trail.
 * Each part renders one chart (machines/handler/): case, composer, recordEditor.
 */
import { Fragment, useEffect, useId } from 'react';
import { useParams } from '@tanstack/react-router';
import { PathLink, useSearchString } from './links.tsx';
import '../i18n/work/index.ts';
import { inboxFiltersOf, inboxSearchOf } from '../../machines/handler/inbox.ts';
import { Assignment } from './Assignment.tsx';
import { Notes } from './Notes.tsx';
import { AuditTrail } from './AuditTrail.tsx';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise, type ActorRefFrom } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime, formatReceiptDate } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { RecordDiff } from '../components/RecordDiff.tsx';
import { MESSAGE_TYPES, isAudioType, type CaseStatus, type MessageType } from '../../machines/schema.ts';
// The one exception to "share only schema, client, design, i18n": the reporter's progress
// rule (spec §4), a pure function, read here so the handler sees exactly what the reporter
// sees. Moving it would change the reporter's chunks (docs/decisions/handler-spa.md).
import { progressFill } from '../private/caseView.ts';
import { caseMachine, closingReason, SETTABLE_STATUSES, type HandlerCaseView } from '../../machines/handler/case.ts';
import { composerMachine, HANDLER_MESSAGE_MAX } from '../../machines/handler/composer.ts';
import { TemplatePicker } from './TemplatePicker.tsx';
import { recordEditorMachine } from '../../machines/handler/recordEditor.ts';
import { useHandler } from './context.ts';
import { DeadlineText } from './deadline.tsx';
import * as styles from './Pages.css.ts';
import { FileMetadata, type FileMetadataView } from './FileMetadata.tsx';
import { SealedCase } from './SealedCase.tsx';
import { TranscriptPanel } from './Transcript.tsx';
import { RecordEditorControls, RecordVersions, recordStyles, useDownloadLabel } from './RecordEditorControls.tsx';
import { CaseExport, serverExportSource } from './CaseExport.tsx';
import { noPrint } from './print.css.ts';
import { draftActions, restoredMessage, useDraft } from './useDraft.ts';
import { DraftHint, DraftTrouble, MessageRestored, RecordDraftHint, RecordDraftRestored } from './DraftNotes.tsx';
import '../i18n/drafts/index.ts';
import { ChannelName } from './ChannelName.tsx';

interface FileView extends FileMetadataView {
  id: string;
  name: string;
  size: number;
  mimeType: string;
}
interface FullCase extends HandlerCaseView {
  created: string;
  receivedDate: string | null;
  description: string | null;
  violation: string | null;
  repeatedViolations: boolean | null;
  whistleblowerRelation: string;
  reportedPersons: { name: string; jobTitle: string; phoneOrEmail: string }[];
  reportedUnit: string | null;
  subsidiary: { name: string } | null;
  protectionOfficer: { name: string; jobTitle: string };
  whistleblower: { name: string; email: string; phone?: string | null } | null;
  pendingWhistleblowerAction: boolean;
  files: FileView[];
  messages: { id: string; message: string; time: string; type: MessageType; createdByUserId: string; answerWanted: boolean; files: FileView[] }[];
  caseStatusHistory: { status: CaseStatus; dateTime: string }[];
  events: { status: CaseStatus; dateTime: string }[];
  comments: { comment: string; created: string }[];
  /** The transcripts of voice files (issue 40), one per file that has one. */
  transcripts?: { fileId: string; approvedAt: string | null; versions: { version: number; sha256: string; createdAt: string; approvedAt: string | null; text: string; author?: string | null }[]; comments: { comment: string; created: string }[] }[];
  deadline: { kind: 'ACKNOWLEDGEMENT' | 'FEEDBACK'; due: string } | null;
  scheduledDeletion: string | null;
  audit: { at: string; handlerName: string; action: string; detail: Record<string, string | number | boolean> }[];
  reporterLanguage: string | null;
  caseAccount?: { follow: boolean };
}

const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

export function CasePage() {
  const t = useT('handler');
  const { caseNumber } = useParams({ strict: false }) as { caseNumber: string };
  const { api, session } = useHandler();
  const expired = () => session.send({ type: 'session.expired' });
  const actor = useActorRef(
    caseMachine.provide({
      actors: {
        loadCase: fromPromise(({ input: i }: { input: { caseNumber: string } }) => api.loadCase(i.caseNumber)),
        changeStatus: fromPromise(({ input: i }: { input: { caseNumber: string; status: CaseStatus } }) => api.changeStatus(i.caseNumber, i.status)),
      },
      actions: { reportUnauthorized: expired },
    }),
    { input: { caseNumber } },
  );
  const state = useSelector(actor, (s) => s);
  useEffect(() => {
    document.title = `${t('handler.case.title', { number: spaced(caseNumber) })} – ${t('handler.title')}`;
  }, [t, caseNumber]);
  const view = state.context.view as FullCase | null;
  // Back to the inbox with its filters and sort (the case link carried them), re-read so only filters pass.
  const inbox = inboxSearchOf(inboxFiltersOf(new URLSearchParams(useSearchString()).get('inbox') ?? ''));

  return (
    <div data-print-case="">
      <p className={noPrint}>
        <PathLink href={`/handler/cases${inbox ? `?${inbox}` : ''}`}>{t('handler.case.back')}</PathLink>
      </p>
      <h1 className={styles.title}>{t('handler.case.title', { number: spaced(caseNumber) })}</h1>
      {state.matches('loading') && !view && <p aria-busy="true">{t('handler.loading')}</p>}
      {state.matches('notFound') && (
        <p role="alert" className={styles.error}>
          {t('handler.case.notFound')}
        </p>
      )}
      {state.matches('failed') && (
        <div role="alert">
          <p className={styles.error}>{t('handler.error.load')}</p>
          <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'reload' })}>
            {t('handler.retry')}
          </button>
        </div>
      )}
      {(state.matches('sealed') || (view && !state.matches('notFound'))) && <Assignment caseNumber={caseNumber} sealed={state.matches('sealed')} onChanged={() => actor.send({ type: 'reload' })} />}
      {view && !state.matches('notFound') && !state.matches('sealed') && <Notes caseNumber={caseNumber} onChanged={() => actor.send({ type: 'reload' })} />}
      {state.matches('sealed') && <SealedCase caseNumber={caseNumber} />}
      {view && !state.matches('notFound') && !state.matches('sealed') && (
        <>
          <CaseExport source={serverExportSource(view, api)} />
          <CaseBody view={view} actor={actor} />
        </>
      )}
    </div>
  );
}

/** A voice file's transcript as the panel shows it (the server opened every part). */
function transcriptOf(view: FullCase, fileId: string) {
  const found = view.transcripts?.find((x) => x.fileId === fileId);
  return found && { versions: found.versions, comments: found.comments.map((c) => ({ created: c.created, text: c.comment })) };
}

function CaseBody({ view, actor }: { view: FullCase; actor: ActorRefFrom<typeof caseMachine> }) {
  const t = useT('handler');
  const tw = useT('work');
  const lang = useLanguage();
  const { api, session } = useHandler();
  const state = useSelector(actor, (s) => s);
  const statusId = useId();
  const isOral = view.submission.type !== 'ONLINE_FORM';
  const fromReporter = (m: { createdByUserId: string }) => m.createdByUserId === view.caseNumber;
  const fileLink = (f: FileView) => (
    <>
      <a href={api.fileUrl(view.caseNumber, f.id)} download={f.name}>
        {t('handler.case.download', { name: f.name, size: Math.max(1, Math.round(f.size / 1024)) })}
      </a>
      {isAudioType(f.mimeType) && (
        // A voice message (issue 40) plays here from the download route: the browser's own player, never autoplay.
        <audio className={styles.voice} controls preload="none" src={api.fileUrl(view.caseNumber, f.id)} aria-label={t('handler.case.voiceMessage', { name: f.name })} data-voice="handler" />
      )}
      {isAudioType(f.mimeType) && (
        // Its transcript beside it, which the reporter approves (issue 40).
        <TranscriptPanel
          fileId={f.id}
          name={f.name}
          submissionType={view.submission.type}
          sealed={false}
          transcript={transcriptOf(view, f.id)}
          save={(i) => api.saveTranscript(view.caseNumber, f.id, i.text, i.baseVersion)}
          loadLatest={() => api.loadLatestTranscript(view.caseNumber, f.id)}
          onSaved={() => actor.send({ type: 'reload' })}
          onUnauthorized={() => session.send({ type: 'session.expired' })}
        />
      )}
    </>
  );

  return (
    <>
      <section className={styles.section} aria-labelledby="case-summary">
        <h2 id="case-summary" className={styles.sectionTitle}>
          {t('handler.case.summary')}
        </h2>
        <dl className={styles.dl}>
          <dt>{t('handler.inbox.col.status')}</dt>
          <dd data-testid="case-status">{t(`handler.status.${view.status}`)}</dd>
          <dt>{t('handler.inbox.col.channel')}</dt>
          <dd data-testid="case-channel">
            <ChannelName type={view.submission.type} entered={view.entryChannel} />
          </dd>
          <dt>{t('handler.inbox.col.received')}</dt>
          <dd>{view.receivedDate ? formatReceiptDate(view.receivedDate) : t('handler.inbox.notReceived')}</dd>
          <dt>{t('handler.inbox.col.deadline')}</dt>
          <dd data-testid="case-deadline">
            <DeadlineText deadline={view.deadline} now={Date.now()} />
          </dd>
          <dt>{t('handler.inbox.col.deletion')}</dt>
          <dd data-testid="case-deletion">{view.scheduledDeletion ? formatReceiptDate(view.scheduledDeletion) : t('handler.inbox.deletionNone')}</dd>
          <dt>{t('handler.case.officer')}</dt>
          <dd>{`${view.protectionOfficer.name}, ${view.protectionOfficer.jobTitle}`}</dd>
          <dt>{t('handler.inbox.col.pending')}</dt>
          <dd>{view.pendingWhistleblowerAction ? t('handler.inbox.pendingYes') : t('handler.inbox.none')}</dd>
          <dt>{tw('work.language')}</dt>
          <dd data-testid="reporter-language">{view.reporterLanguage ? tw(`work.languageName.${view.reporterLanguage}`) : tw('work.languageUnknown')}</dd>
        </dl>
      </section>

      <section className={styles.section} aria-labelledby="case-report">
        <h2 id="case-report" className={styles.sectionTitle}>
          {t('handler.case.report')}
        </h2>
        <dl className={styles.dl}>
          <dt>{t('handler.case.relation')}</dt>
          <dd>{view.whistleblowerRelation}</dd>
          {view.subsidiary && (
            <>
              <dt>{t('handler.case.subsidiary')}</dt>
              <dd>{view.subsidiary.name}</dd>
            </>
          )}
          {view.description && (
            <>
              <dt>{t('handler.case.description')}</dt>
              <dd>{view.description}</dd>
            </>
          )}
          {view.violation && (
            <>
              <dt>{t('handler.case.violation')}</dt>
              <dd data-testid="case-violation">{tw(`work.violation.${view.violation}`)}</dd>
            </>
          )}
          {view.repeatedViolations !== null && view.repeatedViolations !== undefined && (
            <>
              <dt>{tw('work.repeated')}</dt>
              <dd>{view.repeatedViolations ? tw('work.yes') : tw('work.no')}</dd>
            </>
          )}
          {view.reportedPersons.map((p, i) => (
            <Fragment key={i}>
              <dt>{t('handler.case.reportedPerson')}</dt>
              <dd>{`${p.name}, ${p.jobTitle}, ${p.phoneOrEmail}`}</dd>
            </Fragment>
          ))}
          {view.reportedUnit && (
            <>
              <dt>{t('handler.case.reportedUnit')}</dt>
              <dd>{view.reportedUnit}</dd>
            </>
          )}
          <dt>{t('handler.case.identity')}</dt>
          <dd>{view.whistleblower ? [view.whistleblower.name, view.whistleblower.email, view.whistleblower.phone].filter(Boolean).join(', ') : t('handler.case.anonymous')}</dd>
        </dl>
        <h3>{t('handler.case.files')}</h3>
        {view.files.filter((f) => !view.messages.some((m) => m.files.some((mf) => mf.id === f.id))).length === 0 ? (
          <p>{t('handler.case.noFiles')}</p>
        ) : (
          <ul className={styles.list}>
            {view.files
              .filter((f) => !view.messages.some((m) => m.files.some((mf) => mf.id === f.id)))
              .map((f) => (
                <li key={f.id}>
                  {fileLink(f)}
                  <FileMetadata file={f} />
                </li>
              ))}
          </ul>
        )}
      </section>

      <section className={styles.section} aria-labelledby="case-status">
        <h2 id="case-status" className={styles.sectionTitle}>
          {t('handler.case.statusTitle')}
        </h2>
        <label className={styles.field}>
          <span className={styles.label}>{t('handler.case.progress', { percent: progressFill(view.caseStatusHistory) })}</span>
          <progress className={styles.meter} max={100} value={progressFill(view.caseStatusHistory)} />
        </label>
        <ol className={styles.list}>
          {view.caseStatusHistory.map((e, i) => (
            <li key={i}>{`${formatLongDateTime(e.dateTime, lang)}: ${t(`handler.status.${e.status}`)}`}</li>
          ))}
        </ol>
        <form
          className={styles.row}
          onSubmit={(e) => {
            e.preventDefault();
            const status = new FormData(e.currentTarget).get('status') as CaseStatus;
            actor.send({ type: 'status.choose', status });
          }}
        >
          <div className={styles.field}>
            <label htmlFor={statusId} className={styles.label}>
              {t('handler.case.newStatus')}
            </label>
            <select id={statusId} name="status" className={input} defaultValue={SETTABLE_STATUSES.find((s) => s !== view.status)}>
              {SETTABLE_STATUSES.filter((s) => s !== view.status).map((s) => (
                <option key={s} value={s}>
                  {t(`handler.status.${s}`)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className={buttons.button} disabled={!state.matches('ready')}>
            {t('handler.case.changeStatus')}
          </button>
        </form>
        <div role="status">
          {state.matches({ ready: 'statusChanged' }) && <p className={styles.success}>{t('handler.case.statusChanged')}</p>}
          {state.matches({ ready: 'statusFailed' }) && <p className={styles.error}>{t('handler.case.statusFailed')}</p>}
        </div>
        <ConfirmDialog
          open={state.matches('confirmingStatus') || state.matches('changingStatus')}
          title={t('handler.case.confirmStatusTitle')}
          description={<ClosingDescription view={view} nextStatus={state.context.nextStatus} />}
          cancelLabel={t('handler.cancel')}
          confirmLabel={t('handler.case.changeStatus')}
          confirmDisabled={!state.can({ type: 'status.confirm' })}
          onCancel={() => actor.send({ type: 'status.cancel' })}
          onConfirm={() => actor.send({ type: 'status.confirm' })}
        />
      </section>

      <section className={styles.section} aria-labelledby="case-messages">
        <h2 id="case-messages" className={styles.sectionTitle}>
          {t('handler.case.messages')}
        </h2>
        {view.messages.length === 0 && <p>{t('handler.case.noMessages')}</p>}
        <ol className={styles.list}>
          {view.messages.map((m) => (
            <li key={m.id} className={fromReporter(m) ? `${styles.message} ${styles.fromReporter}` : styles.message}>
              <strong>{fromReporter(m) ? t('handler.case.fromReporter') : t(`handler.messageType.${m.type}`)}</strong>
              {` · ${formatLongDateTime(m.time, lang)}`}
              {m.answerWanted && ` · ${t('handler.composer.answerWanted')}`}
              {m.message && <p className={styles.pre}>{m.message}</p>}
              {m.files.length > 0 && (
                <ul className={styles.list}>
                  {m.files.map((f) => (
                    <li key={f.id}>
                      {fileLink(f)}
                      <FileMetadata file={f} />
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
        {view.caseAccount?.follow === false ? (
          <p className={styles.hint} data-testid="not-following">
            {tw('work.notFollowing')}
          </p>
        ) : (
          <Composer caseNumber={view.caseNumber} reporterLanguage={view.reporterLanguage} onSent={() => actor.send({ type: 'reload' })} />
        )}
      </section>

      {isOral && (
        <section className={styles.section} aria-labelledby="case-record" data-testid="case-record">
          <h2 id="case-record" className={styles.sectionTitle}>
            {t('handler.record.title')}
          </h2>
          <RecordEditor view={view} onSaved={() => actor.send({ type: 'reload' })} />
          <RecordVersionList caseNumber={view.caseNumber} versions={view.report?.versions ?? []} />
          <h3>{t('handler.record.comments')}</h3>
          {view.comments.length === 0 ? (
            <p>{t('handler.record.noComments')}</p>
          ) : (
            <ol className={styles.list}>
              {view.comments.map((c, i) => (
                <li key={i} className={`${styles.message} ${styles.fromReporter}`}>
                  {formatLongDateTime(c.created, lang)}
                  <p className={styles.pre}>{c.comment}</p>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}

      <AuditTrail audit={view.audit} files={view.files} action={state.context.auditAction} onFilter={(action) => actor.send({ type: 'audit.filter', action })} />
    </>
  );
}

/** The status confirmation's text; closing while the confirmation of receipt or feedback is owed says so first. */
function ClosingDescription({ view, nextStatus }: { view: FullCase; nextStatus: CaseStatus | null }) {
  const t = useT('handler');
  const tw = useT('work');
  const text = t('handler.case.confirmStatusText', { status: nextStatus ? t(`handler.status.${nextStatus}`) : '' });
  const reason = nextStatus === 'CLOSED' ? closingReason(view.deadline, Date.now()) : null;
  if (!reason) return <>{text}</>;
  return (
    <>
      <strong data-closing-reason={reason}>{tw(`work.close.${reason}`)}</strong> {tw('work.close.ask')} {text}
    </>
  );
}

function Composer({ caseNumber, reporterLanguage, onSent }: { caseNumber: string; reporterLanguage: string | null; onSent: () => void }) {
  const t = useT('handler');
  const { api, session } = useHandler();
  // The draft kept on this device (machines/handler/draft.ts): restored into the composer, fed by its changes.
  const draft = useDraft('message', caseNumber, (f) => actor.send(restoredMessage(f)));
  const actor = useActorRef(
    composerMachine.provide({
      actors: { sendMessage: api.sendMessageActor(caseNumber, () => session.send({ type: 'session.touch' })) },
      actions: {
        reloadCase: onSent,
        reportUnauthorized: () => session.send({ type: 'session.expired' }),
        ...draftActions(draft, session),
      },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const kept = useSelector(draft, (s) => s);
  const ids = { type: useId(), text: useId(), files: useId(), answer: useId() };
  const sending = state.matches('sending');
  return (
    <form
      className={`${styles.form} ${noPrint}`}
      onSubmit={(e) => {
        e.preventDefault();
        actor.send({ type: 'send' });
      }}
    >
      <h3>{t('handler.composer.title')}</h3>
      <div className={styles.field}>
        <label htmlFor={ids.type} className={styles.label}>
          {t('handler.composer.type')}
        </label>
        <select id={ids.type} className={input} value={state.context.type} disabled={sending} onChange={(e) => actor.send({ type: 'type.change', value: e.target.value as MessageType })}>
          {MESSAGE_TYPES.map((m) => (
            <option key={m} value={m}>
              {t(`handler.messageType.${m}`)}
            </option>
          ))}
        </select>
      </div>
      <TemplatePicker reporterLanguage={reporterLanguage} text={state.context.text} max={HANDLER_MESSAGE_MAX} disabled={sending} onInsert={(value) => actor.send({ type: 'text.change', value })} />
      <div className={styles.field}>
        <label htmlFor={ids.text} className={styles.label}>
          {t('handler.composer.text')}
        </label>
        <textarea id={ids.text} className={`${input} ${styles.textarea}`} maxLength={HANDLER_MESSAGE_MAX} value={state.context.text} disabled={sending}
          onChange={(e) => actor.send({ type: 'text.change', value: e.target.value })} aria-invalid={state.matches({ editing: 'empty' })} />
      </div>
      <label className={styles.checkbox} htmlFor={ids.answer}>
        <input id={ids.answer} type="checkbox" checked={state.context.answerWanted} disabled={sending} onChange={() => actor.send({ type: 'answer.toggle' })} />
        {t('handler.composer.answerWanted')}
      </label>
      <div className={styles.field}>
        <label htmlFor={ids.files} className={styles.label}>
          {t('handler.composer.files')}
        </label>
        <input id={ids.files} type="file" multiple disabled={sending}
          onChange={(e) => {
            actor.send({ type: 'files.add', files: [...(e.target.files ?? [])] });
            e.target.value = '';
          }} />
        {state.context.files.length > 0 && (
          <ul className={styles.list}>
            {state.context.files.map((f, i) => (
              <li key={`${f.name}-${i}`}>
                {f.name}{' '}
                <button type="button" className={buttons.secondaryButton} disabled={sending} onClick={() => actor.send({ type: 'file.remove', index: i })}>
                  {t('handler.composer.removeFile', { name: f.name })}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div role="status">
        {sending && (
          <label className={styles.field}>
            <span>{t('handler.composer.sending')}</span>
            <progress className={styles.meter} max={state.context.total || 1} value={state.context.total ? state.context.loaded : undefined} />
          </label>
        )}
        {state.matches({ editing: 'sent' }) && <p className={styles.success}>{t('handler.composer.sent')}</p>}
        {state.matches({ editing: 'empty' }) && <p className={styles.error}>{t('handler.composer.empty')}</p>}
        {state.matches({ editing: 'failed' }) && <p className={styles.error}>{t('handler.composer.failed')}</p>}
        <MessageRestored restored={state.matches({ editing: 'restored' })} />
        <DraftTrouble draft={kept} />
      </div>
      <DraftHint draft={kept} typed={state.context.text.trim() !== ''} />
      <div>
        <button type="submit" className={buttons.button} disabled={!state.can({ type: 'send' })}>
          {t('handler.composer.send')}
        </button>
      </div>
    </form>
  );
}

interface RecordVersion {
  version: number;
  sha256: string;
  createdAt: string;
  approvedAt: string | null;
  text: string;
  author?: string | null;
}

/**
 * Every version sent for review, with its author, hash and approval, and what changed
 * in the latest: the handler sees what the reporter sees (docs/decisions/record-versions.md).
 * An approved version downloads as the server writes it.
 */
function RecordVersionList({ caseNumber, versions }: { caseNumber: string; versions: RecordVersion[] }) {
  const t = useT('handler');
  const { api } = useHandler();
  const label = useDownloadLabel();
  if (versions.length === 0) return null;
  const latest = versions.at(-1)!;
  const previous = versions.length > 1 ? versions.at(-2)! : null;
  return (
    <>
      {previous && (
        <>
          <h3>{t('handler.record.changes', { version: latest.version, previous: previous.version })}</h3>
          <RecordDiff before={previous.text} after={latest.text} addedLabel={t('handler.record.added')} removedLabel={t('handler.record.removed')} />
        </>
      )}
      <RecordVersions
        versions={versions}
        download={(v) => (
          <a className={`${buttons.secondaryButton} ${recordStyles.download}`} href={api.recordUrl(caseNumber, v.version)} download data-testid={`record-download-${v.version}`}>
            {label(v.version)}
          </a>
        )}
      />
    </>
  );
}

function RecordEditor({ view, onSaved }: { view: FullCase; onSaved: () => void }) {
  const t = useT('handler');
  const lang = useLanguage();
  const { api, session } = useHandler();
  const latestVersion = view.report?.versions?.at(-1)?.version ?? (view.report ? 1 : 0);
  // The version the draft was written on comes back with it: a save from it over a newer version is a conflict.
  const draft = useDraft('record', view.caseNumber, (f) =>
    actor.send({ type: 'draft.restore', value: String(f.text ?? ''), ...(typeof f.base === 'string' && /^\d{1,6}$/.test(f.base) ? { base: Number(f.base) } : {}) }),
  );
  const actor = useActorRef(
    recordEditorMachine.provide({
      actors: {
        saveRecord: fromPromise(({ input: i }: { input: { text: string; baseVersion: number } }) => api.saveRecord(view.caseNumber, i.text, i.baseVersion)),
        loadLatest: fromPromise(() => api.loadLatestRecord(view.caseNumber)),
      },
      actions: {
        reloadCase: onSaved,
        reportUnauthorized: () => session.send({ type: 'session.expired' }),
        ...draftActions(draft, session),
      },
    }),
    { input: { submissionType: view.submission.type, approvedAt: view.approvedAt, text: view.report?.text ?? '', version: latestVersion } },
  );
  useEffect(() => {
    actor.send({ type: 'case.change', submissionType: view.submission.type, approvedAt: view.approvedAt, text: view.report?.text ?? '', version: latestVersion });
  }, [actor, view.submission.type, view.approvedAt, view.report?.text, latestVersion]);
  return (
    <div>
      {view.report ? (
        <div data-testid="record-text">
          <p className={styles.hint}>{t('handler.record.updated', { when: formatLongDateTime(view.report.updatedAt, lang) })}</p>
          <p className={styles.pre}>{view.report.text}</p>
        </div>
      ) : (
        <p>{t('handler.record.none')}</p>
      )}
      <p role="status" className={view.approvedAt ? styles.success : styles.hint} data-testid="record-approval">
        {view.approvedAt ? t('handler.record.approved', { when: formatLongDateTime(view.approvedAt, lang) }) : view.report ? t('handler.record.awaiting') : ''}
      </p>
      <RecordDraftRestored actor={actor} />
      <RecordEditorControls actor={actor} hasRecord={Boolean(view.report)} />
      <RecordDraftHint actor={actor} draft={draft} />
    </div>
  );
}
