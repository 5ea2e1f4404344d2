/**
 * A sealed case on /handler/cases/$caseNumber (machines/handler/sealedCase.ts): opened in
 * this browser with the unlocked keys, each part that does not open named as such, the
 * thread with who wrote each message, a composer that seals, and "Give a colleague
 * access" with its confirmation, and "Who has access" with the revocation's. The unlock form itself is the one above every page
 * (KeysGate); this part only says why the case waits for it.
 */
import { Fragment, useEffect, useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { Notes } from './Notes.tsx';
import { fromPromise } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { LIMITS, MESSAGE_TYPES, type MessageType } from '../../machines/schema.ts';
import { sealedCaseMachine, SEALED_MESSAGE_MAX, type FileSaveInput, type GrantCandidate, type RevokeInput, type SealedSendInput, type SealedView } from '../../machines/handler/sealedCase.ts';
import type { CaseStatus } from '../../machines/schema.ts';
import type { EpochKeys } from '../../core/crypto/index.ts';
import { canSaveToDisk, exportFailureOf, openSealedFileForExport } from './fileOpening.ts';
import { CaseExport, exportNotes, type ExportSource } from './CaseExport.tsx';
import { sealedCaseDocument } from './export/sealedCase.ts';
import { keyForEpoch } from '../../core/crypto/epochs.ts';
import { TemplatePicker } from './TemplatePicker.tsx';
import { SealedAudit, SealedFiles, SealedStatus } from './SealedCaseParts.tsx';
import type { OpenedKeys } from '../../machines/handler/session.ts';
import { useHandler } from './context.ts';
import * as styles from './Pages.css.ts';
import { SealedRecord } from './SealedRecord.tsx';
import { SealedVoicePlayer, TranscriptPanel } from './Transcript.tsx';
import { isVoiceName } from './voice.ts';
import { ChannelName } from './ChannelName.tsx';
import { noPrint } from './print.css.ts';
import { draftActions, restoredMessage, useDraft } from './useDraft.ts';
import { DraftHint, DraftTrouble, MessageRestored } from './DraftNotes.tsx';

export function SealedCase({ caseNumber }: { caseNumber: string }) {
  const t = useT('sealed');
  const th = useT('handler');
  const tw = useT('sealedwork');
  const tr = useT('revoke');
  const lang = useLanguage();
  const { api, session } = useHandler();
  const keys = useSelector(session, (s) => s.context.keys);
  const handlerId = useSelector(session, (s) => s.context.handler?.id ?? '');
  const fx = api.sealed;
  // The composer's draft kept on this device (machines/handler/draft.ts): it opens with the
  // handler's keys, maybe before the case does; the chart keeps it until the composer shows.
  const draft = useDraft('message', caseNumber, (f) => actor.send(restoredMessage(f)));
  const actor = useActorRef(
    sealedCaseMachine.provide({
      actors: {
        loadSealed: fromPromise(({ input: i }: { input: { caseNumber: string } }) => fx.loadSealed(i.caseNumber)),
        openCase: fromPromise(({ input: i }: { input: { view: SealedView; keys: OpenedKeys } }) => fx.openCase(i.view, i.keys)),
        sendSealed: fromPromise(({ input: i }: { input: SealedSendInput }) => fx.sendSealed(i)),
        loadCandidates: fromPromise(({ input: i }: { input: { caseNumber: string; officerId: string; handlerId: string } }) => fx.loadCandidates(i)),
        grantKey: fromPromise(({ input: i }: { input: { caseNumber: string; caseId: string; epoch: number; dataKey: Uint8Array; candidate: GrantCandidate } }) => fx.grantKey(i)),
        changeStatus: fromPromise(({ input: i }: { input: { caseNumber: string; caseId: string; keys: EpochKeys; status: CaseStatus } }) => fx.changeStatus(i)),
        saveFile: fromPromise(({ input: i }: { input: FileSaveInput }) => fx.saveFile(i)),
        revokeKey: fromPromise(({ input: i }: { input: RevokeInput }) => fx.revokeKey(i)),
      },
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }), ...draftActions(draft, session) },
    }),
    { input: { caseNumber, handlerId, keys, canStream: canSaveToDisk() } },
  );
  useEffect(() => {
    actor.send({ type: 'keys.change', keys });
  }, [actor, keys]);
  const state = useSelector(actor, (s) => s);
  const kept = useSelector(draft, (s) => s);
  const ids = { type: useId(), text: useId(), files: useId() };
  const { view, opened } = state.context;
  const unopened = <em className={styles.error}>{t('sealed.unopened')}</em>;

  if (state.matches('keysLocked'))
    return (
      <p role="status" data-testid="sealed-locked">
        {t('sealed.locked')}
      </p>
    );
  if (state.matches('loading') || state.matches('opening'))
    return (
      <p role="status" aria-busy="true">
        {t('sealed.opening')}
      </p>
    );
  if (state.matches('notFound'))
    return (
      <p role="alert" className={styles.error}>
        {th('handler.case.notFound')}
      </p>
    );
  if (state.matches('revoked'))
    return (
      <div role="alert" data-testid="sealed-revoked">
        <p>{tr('revoke.revoked')}</p>
        <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'reload' })}>
          {th('handler.retry')}
        </button>
      </div>
    );
  if (state.matches('noKey') || state.matches('keyRefused') || state.matches('failed'))
    return (
      <div role="alert" data-testid="sealed-unavailable">
        <p className={state.matches('failed') ? styles.error : undefined}>
          {state.matches('noKey') ? t('sealed.noKey') : state.matches('keyRefused') ? t('sealed.keyRefused') : th('handler.error.load')}
        </p>
        <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'reload' })}>
          {th('handler.retry')}
        </button>
      </div>
    );
  if (!view || !opened) return null;

  const details = opened.details;
  const who = opened.whistleblower;
  const sending = state.matches({ opened: { composer: 'sending' } });
  const sender = (m: { createdByUserId: string }) =>
    m.createdByUserId === view.caseNumber
      ? th('handler.case.fromReporter')
      : m.createdByUserId === handlerId
        ? t('sealed.from.you')
        : (opened.senders[m.createdByUserId] ?? t('sealed.from.colleague'));
  const grants = (s: 'loadingCandidates' | 'unavailable' | 'listing' | 'confirmingGrant' | 'granting' | 'confirmingRevoke' | 'revoking') => state.matches({ opened: { grants: s } });
  const chosen = state.context.chosen;
  const revoking = state.context.revoking;
  const listed = !grants('loadingCandidates') && !grants('unavailable');
  const epochKeys = state.context.epochKeys;
  // The export opens each file again under its epoch's key, streamed into the hash and the zip (a name that did not open is listed by its date).
  const sealedExportFile = (f: { id: string; name: string; size: number | null; storedSize: number; epoch?: number }) => {
    const dataKey = epochKeys ? keyForEpoch(epochKeys, f.epoch) : null;
    const file = { id: f.id, name: f.name, size: f.size };
    return {
      name: f.name,
      size: f.size ?? f.storedSize,
      open: async () => {
        if (!dataKey) throw new Error('no key for this epoch');
        return openSealedFileForExport(api.client, { caseNumber: view.caseNumber, dataKey, file });
      },
      failureOf: (err: unknown) => (dataKey ? exportFailureOf(err) : 'unopened'),
    };
  };
  const exportSource: ExportSource = {
    caseNumber: view.caseNumber,
    // Opened here with the case's keys, as the notes panel opens them.
    notes: () => (epochKeys ? exportNotes(api.client, view.caseNumber, { caseId: view.caseId, keys: epochKeys }) : Promise.resolve([])),
    files: () => opened.files.flatMap((f) => (f.name === null ? [] : [sealedExportFile({ ...f, name: f.name, storedSize: f.sealedSize })])),
    // A note's file (its name opened by the notes' reading) goes the same way as the case's own.
    noteFile: (f) => sealedExportFile(f),
    document: (o) => sealedCaseDocument(view, opened, o),
  };

  return (
    <>
      <p className={`${styles.hint} ${noPrint}`} data-testid="sealed-notice">
        {t('sealed.notice')}
      </p>
      <CaseExport source={exportSource} />
      <section className={styles.section} aria-labelledby="sealed-summary">
        <h2 id="sealed-summary" className={styles.sectionTitle}>
          {th('handler.case.summary')}
        </h2>
        <dl className={styles.dl}>
          <dt>{th('handler.inbox.col.status')}</dt>
          <dd data-testid="case-status">{th(`handler.status.${view.status}`)}</dd>
          <dt>{t('sealed.created')}</dt>
          <dd>{formatLongDateTime(view.created, lang)}</dd>
          <dt>{th('handler.inbox.col.channel')}</dt>
          <dd data-testid="case-channel">
            <ChannelName type={view.submissionType} entered={view.entryChannel} />
          </dd>
        </dl>
      </section>

      <section className={styles.section} aria-labelledby="sealed-report">
        <h2 id="sealed-report" className={styles.sectionTitle}>
          {th('handler.case.report')}
        </h2>
        {details === null ? (
          <p data-testid="sealed-details-unopened">{unopened}</p>
        ) : (
          <dl className={styles.dl} data-testid="sealed-details">
            {details.whistleblowerRelation && (
              <>
                <dt>{th('handler.case.relation')}</dt>
                <dd>{details.whistleblowerRelation}</dd>
              </>
            )}
            {details.description && (
              <>
                <dt>{th('handler.case.description')}</dt>
                <dd className={styles.pre}>{details.description}</dd>
              </>
            )}
            {details.violation && (
              <>
                <dt>{th('handler.case.violation')}</dt>
                <dd>{details.violation}</dd>
              </>
            )}
            {(details.reportedPersons ?? []).map((p, i) => (
              <Fragment key={i}>
                <dt>{th('handler.case.reportedPerson')}</dt>
                <dd>{[p.name, p.jobTitle, p.phoneOrEmail].filter(Boolean).join(', ')}</dd>
              </Fragment>
            ))}
            {details.reportedUnit && (
              <>
                <dt>{th('handler.case.reportedUnit')}</dt>
                <dd>{details.reportedUnit}</dd>
              </>
            )}
          </dl>
        )}
        <dl className={styles.dl}>
          <dt>{th('handler.case.identity')}</dt>
          <dd data-testid="sealed-identity">
            {who === 'unopened' ? unopened : who ? [who.name, who.email, who.phone].filter(Boolean).join(', ') : th('handler.case.anonymous')}
          </dd>
        </dl>
      </section>

      <SealedFiles
        state={state}
        actor={actor}
        voice={(f) => {
          if (!isVoiceName(f.name)) return null;
          const dataKey = epochKeys ? keyForEpoch(epochKeys, f.epoch) : null;
          const t = opened.transcripts?.find((x) => x.fileId === f.id);
          return (
            <>
              {dataKey && <SealedVoicePlayer name={f.name} open={() => fx.openVoice({ caseNumber: view.caseNumber, dataKey, file: { id: f.id, name: f.name, size: f.size } })} />}
              <TranscriptPanel
                fileId={f.id}
                name={f.name}
                submissionType={view.submissionType ?? 'ONLINE_FORM'}
                sealed
                transcript={t}
                save={(i) => fx.saveRecord({ caseNumber: view.caseNumber, caseId: view.caseId, dataKey: state.context.dataKey!, version: i.baseVersion + 1, text: i.text, fileId: f.id })}
                loadLatest={() => fx.loadLatestTranscript({ caseNumber: view.caseNumber, caseId: view.caseId, keys: epochKeys!, fileId: f.id })}
                onSaved={() => actor.send({ type: 'reload' })}
                onUnauthorized={() => session.send({ type: 'session.expired' })}
              />
            </>
          );
        }}
      />

      <SealedStatus state={state} actor={actor} />

      <SealedRecord
        view={view}
        opened={opened}
        dataKey={state.context.dataKey!}
        keys={state.context.epochKeys!}
        save={fx.saveRecord}
        loadLatest={fx.loadLatestRecord}
        onSaved={() => actor.send({ type: 'reload' })}
        onUnauthorized={() => session.send({ type: 'session.expired' })}
      />

      {/* The trail of a sealed case shows a note's save at the next opening: reloading here would close and reopen the whole case. */}
      <Notes key={state.context.epoch} caseNumber={caseNumber} sealed={{ caseId: view.caseId, keys: state.context.epochKeys! }} onChanged={() => {}} />

      <section className={styles.section} aria-labelledby="sealed-messages">
        <h2 id="sealed-messages" className={styles.sectionTitle}>
          {th('handler.case.messages')}
        </h2>
        {opened.messages.length === 0 && <p>{th('handler.case.noMessages')}</p>}
        <ol className={styles.list} data-testid="sealed-thread">
          {opened.messages.map((m) => (
            <li key={m.id} className={m.createdByUserId === view.caseNumber ? `${styles.message} ${styles.fromReporter}` : styles.message}>
              <strong>{sender(m)}</strong>
              {` · ${th(`handler.messageType.${m.type}`)} · ${formatLongDateTime(m.time, lang)}`}
              {m.answerWanted && ` · ${th('handler.composer.answerWanted')}`}
              {m.text === null ? <p>{unopened}</p> : <p className={styles.pre}>{m.text}</p>}
            </li>
          ))}
        </ol>
        <form
          className={styles.form}
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'send' });
          }}
        >
          <h3>{th('handler.composer.title')}</h3>
          <p className={styles.hint}>{t('sealed.composer.hint')}</p>
          <div className={styles.field}>
            <label htmlFor={ids.type} className={styles.label}>
              {th('handler.composer.type')}
            </label>
            <select id={ids.type} className={input} value={state.context.type} disabled={sending} onChange={(e) => actor.send({ type: 'type.change', value: e.target.value as MessageType })}>
              {MESSAGE_TYPES.map((m) => (
                <option key={m} value={m}>
                  {th(`handler.messageType.${m}`)}
                </option>
              ))}
            </select>
          </div>
          {/* The reporter's language is sealed away from the server and not in what this browser opens: the company's default is used. */}
          <TemplatePicker reporterLanguage={null} text={state.context.text} max={SEALED_MESSAGE_MAX} disabled={sending} onInsert={(value) => actor.send({ type: 'text.change', value })} />
          <div className={styles.field}>
            <label htmlFor={ids.text} className={styles.label}>
              {th('handler.composer.text')}
            </label>
            <textarea
              id={ids.text}
              className={`${input} ${styles.textarea}`}
              maxLength={SEALED_MESSAGE_MAX}
              value={state.context.text}
              disabled={sending}
              onChange={(e) => actor.send({ type: 'text.change', value: e.target.value })}
              aria-invalid={state.matches({ opened: { composer: { editing: 'empty' } } })}
            />
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.files} className={styles.label}>
              {tw('sealedwork.composer.attach')}
            </label>
            <input
              id={ids.files}
              type="file"
              multiple
              className={input}
              disabled={sending}
              aria-describedby={`${ids.files}-hint`}
              onChange={(e) => {
                const picked = [...(e.currentTarget.files ?? [])];
                e.currentTarget.value = '';
                if (picked.length) actor.send({ type: 'attachments.add', files: picked });
              }}
            />
            <p id={`${ids.files}-hint`} className={styles.hint}>
              {tw('sealedwork.composer.attachHint', { max: LIMITS.maxFiles })}
            </p>
            {state.context.attachments.length > 0 && (
              <ul className={styles.list} data-testid="sealed-attachments">
                {state.context.attachments.map((f, i) => (
                  <li key={`${i}-${f.name}`} className={styles.row}>
                    <span>{f.name}</span>
                    <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'attachment.remove', index: i })} onClick={() => actor.send({ type: 'attachment.remove', index: i })}>
                      {tw('sealedwork.composer.remove', { name: f.name })}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <label className={styles.checkbox}>
            <input type="checkbox" checked={state.context.answerWanted} disabled={sending} onChange={() => actor.send({ type: 'answer.toggle' })} />
            {th('handler.composer.answerWanted')}
          </label>
          <div role="status">
            {sending && <p>{th('handler.composer.sending')}</p>}
            {state.matches({ opened: { composer: { editing: 'sent' } } }) && <p className={styles.success}>{th('handler.composer.sent')}</p>}
            {state.matches({ opened: { composer: { editing: 'empty' } } }) && <p className={styles.error}>{t('sealed.composer.empty')}</p>}
            {state.matches({ opened: { composer: { editing: 'tooMany' } } }) && <p className={styles.error}>{tw('sealedwork.composer.tooMany', { max: LIMITS.maxFiles })}</p>}
            {state.matches({ opened: { composer: { editing: 'failed' } } }) && <p className={styles.error}>{th('handler.composer.failed')}</p>}
            <MessageRestored restored={state.matches({ opened: { composer: { editing: 'restored' } } })} />
            <DraftTrouble draft={kept} />
          </div>
          <DraftHint draft={kept} typed={state.context.text.trim() !== ''} />
          <div>
            <button type="submit" className={buttons.button} disabled={!state.can({ type: 'send' })}>
              {th('handler.composer.send')}
            </button>
          </div>
        </form>
      </section>

      <section className={`${styles.section} ${noPrint}`} aria-labelledby="sealed-grants" data-testid="sealed-grants">
        <h2 id="sealed-grants" className={styles.sectionTitle}>
          {t('sealed.grants.title')}
        </h2>
        <p>{t('sealed.grants.text')}</p>
        {grants('loadingCandidates') && (
          <p role="status" aria-busy="true">
            {t('sealed.grants.loading')}
          </p>
        )}
        {grants('unavailable') && (
          <div role="alert">
            <p className={styles.error}>{t('sealed.grants.unavailable')}</p>
            <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'grants.retry' })}>
              {th('handler.retry')}
            </button>
          </div>
        )}
        {listed && (
          <>
            {state.context.candidates.length === 0 ? (
              <p>{t('sealed.grants.none')}</p>
            ) : (
              <ul className={styles.list}>
                {state.context.candidates.map((c) => (
                  <li key={c.handlerId} className={styles.row}>
                    <span>{c.email ? `${c.name} (${c.email})` : c.name}</span>
                    <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'grant.choose', handlerId: c.handlerId })} onClick={() => actor.send({ type: 'grant.choose', handlerId: c.handlerId })}>
                      {t('sealed.grants.give', { name: c.name })}
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div role="status">
              {state.matches({ opened: { grants: { listing: 'granted' } } }) && <p className={styles.success}>{t('sealed.grants.granted', { name: state.context.granted })}</p>}
              {state.matches({ opened: { grants: { listing: 'failed' } } }) && <p className={styles.error}>{t('sealed.grants.failed')}</p>}
            </div>
          </>
        )}
        {listed && (
          <section aria-labelledby="sealed-holders" data-testid="sealed-holders">
            <h3 id="sealed-holders">{tr('revoke.title')}</h3>
            <p>{tr('revoke.text')}</p>
            {state.context.holders.length === 0 ? (
              <p>{tr('revoke.none')}</p>
            ) : (
              <ul className={styles.list}>
                {state.context.holders.map((c) => (
                  <li key={c.handlerId} className={styles.row}>
                    <span>{c.email ? `${c.name} (${c.email})` : c.name}</span>
                    <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'revoke.choose', handlerId: c.handlerId })} onClick={() => actor.send({ type: 'revoke.choose', handlerId: c.handlerId })}>
                      {tr('revoke.give', { name: c.name })}
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div role="status">
              {state.context.revoked !== '' && <p className={styles.success}>{tr('revoke.done', { name: state.context.revoked })}</p>}
              {state.matches({ opened: { grants: { listing: 'revokeFailed' } } }) && <p className={styles.error}>{tr('revoke.failed')}</p>}
            </div>
          </section>
        )}
        <ConfirmDialog
          open={grants('confirmingRevoke') || grants('revoking')}
          title={tr('revoke.confirmTitle', { name: revoking?.name ?? '' })}
          description={tr('revoke.confirmText', { name: revoking?.name ?? '' })}
          cancelLabel={th('handler.cancel')}
          confirmLabel={tr('revoke.confirm')}
          confirmDisabled={!state.can({ type: 'revoke.confirm' })}
          cancelDisabled={!state.can({ type: 'revoke.cancel' })}
          onCancel={() => actor.send({ type: 'revoke.cancel' })}
          onConfirm={() => actor.send({ type: 'revoke.confirm' })}
        />
        <ConfirmDialog
          open={grants('confirmingGrant') || grants('granting')}
          title={t('sealed.grants.confirmTitle', { name: chosen?.name ?? '' })}
          description={t('sealed.grants.confirmText', { name: chosen?.name ?? '' })}
          cancelLabel={th('handler.cancel')}
          confirmLabel={t('sealed.grants.confirm')}
          confirmDisabled={!state.can({ type: 'grant.confirm' })}
          cancelDisabled={!state.can({ type: 'grant.cancel' })}
          onCancel={() => actor.send({ type: 'grant.cancel' })}
          onConfirm={() => actor.send({ type: 'grant.confirm' })}
        />
      </section>

      <SealedAudit state={state} />
    </>
  );
}
