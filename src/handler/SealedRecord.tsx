/**
 * The record of a sealed phone or meeting case in the workspace (docs/decisions/record-versions.md
 * "Sealed cases"): the chart is the usual record editor (machines/handler/recordEditor.ts),
 * its save supplied here to seal the next version and hash it in this browser, and its
 * reading of another's version after a conflict to open it with the case's keys. Every
 * version shows with its author, its hash, whether the hash matched the text opened
 * here, and the reporter's approval; an approved one downloads as a document made here
 * from the opened text; the reporter's comments show opened.
 */
import { useEffect } from 'react';
import { useActorRef } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/record/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { RecordDiff } from '../components/RecordDiff.tsx';
import { RecordEditorControls, RecordVersions, recordStyles, useDownloadLabel } from './RecordEditorControls.tsx';
import { offerDownload } from './fileOpening.ts';
import * as buttons from '../styles/button.css.ts';
import { approvedRecordDocument } from '../../core/record-document.ts';
import type { EpochKeys } from '../../core/crypto/epochs.ts';
import { recordEditorMachine, type LatestAnswer, type SaveAnswer } from '../../machines/handler/recordEditor.ts';
import type { OpenedSealedCase, SealedRecordInput, SealedView } from '../../machines/handler/sealedCase.ts';
import * as styles from './Pages.css.ts';
import { useHandler } from './context.ts';
import { draftActions, useDraft } from './useDraft.ts';
import { RecordDraftHint, RecordDraftRestored } from './DraftNotes.tsx';

export function SealedRecord({ view, opened, dataKey, keys, save, loadLatest, onSaved, onUnauthorized }: {
  view: SealedView;
  opened: OpenedSealedCase;
  dataKey: Uint8Array;
  /** Every epoch's key this account reaches: the other writer's version opens with them after a conflict. */
  keys: EpochKeys;
  save: (input: SealedRecordInput) => Promise<SaveAnswer>;
  loadLatest: (input: { caseNumber: string; caseId: string; keys: EpochKeys }) => Promise<LatestAnswer>;
  onSaved: () => void;
  onUnauthorized: () => void;
}) {
  const t = useT('handler');
  const tr = useT('record');
  const lang = useLanguage();
  const label = useDownloadLabel();
  const versions = opened.record.versions;
  const latest = versions.at(-1) ?? null;
  const previous = versions.length > 1 ? versions.at(-2)! : null;
  const latestText = latest?.text ?? '';
  const latestVersion = latest?.version ?? 0;
  const submissionType = view.submissionType ?? 'ONLINE_FORM';
  const approvedAt = view.approvedAt ?? null;
  const { session } = useHandler();
  // The record's draft kept on this device, as on a server-keyed case (machines/handler/draft.ts).
  const draft = useDraft('record', view.caseNumber, (f) => actor.send({ type: 'draft.restore', value: String(f.text ?? '') }));
  const actor = useActorRef(
    recordEditorMachine.provide({
      actors: {
        // The version sealed is the one after the version the text was written on: the server refuses it if another came in between.
        saveRecord: fromPromise(({ input: i }: { input: { text: string; baseVersion: number } }) =>
          save({ caseNumber: view.caseNumber, caseId: view.caseId, dataKey, version: i.baseVersion + 1, text: i.text }),
        ),
        loadLatest: fromPromise(() => loadLatest({ caseNumber: view.caseNumber, caseId: view.caseId, keys })),
      },
      actions: { reloadCase: onSaved, reportUnauthorized: onUnauthorized, ...draftActions(draft, session) },
    }),
    { input: { submissionType, approvedAt, text: latestText, version: latestVersion } },
  );
  useEffect(() => {
    actor.send({ type: 'case.change', submissionType, approvedAt, text: latestText, version: latestVersion });
  }, [actor, submissionType, approvedAt, latestText, latestVersion]);
  if (submissionType === 'ONLINE_FORM') return null;
  const check = (v: (typeof versions)[number]) =>
    v.text === null ? tr('record.unopened', { version: v.version }) : v.verified ? tr('record.verified') : tr('record.mismatch', { version: v.version });

  return (
    <section className={styles.section} aria-labelledby="sealed-record" data-testid="sealed-record">
      <h2 id="sealed-record" className={styles.sectionTitle}>
        {t('handler.record.title')}
      </h2>
      <p className={styles.hint}>{tr('record.handler.notice')}</p>
      {latest ? (
        <div data-testid="record-text">
          <p className={styles.hint}>{t('handler.record.updated', { when: formatLongDateTime(latest.createdAt, lang) })}</p>
          {latest.text === null ? <p className={styles.error}>{tr('record.unopened', { version: latest.version })}</p> : <p className={styles.pre}>{latest.text}</p>}
        </div>
      ) : (
        <p>{t('handler.record.none')}</p>
      )}
      <p role="status" className={approvedAt ? styles.success : styles.hint} data-testid="record-approval">
        {approvedAt ? t('handler.record.approved', { when: formatLongDateTime(approvedAt, lang) }) : latest ? t('handler.record.awaiting') : ''}
      </p>
      <RecordDraftRestored actor={actor} />
      <RecordEditorControls actor={actor} hasRecord={latest !== null} />
      <RecordDraftHint actor={actor} draft={draft} />
      {previous && latest && previous.text !== null && latest.text !== null && (
        <>
          <h3>{t('handler.record.changes', { version: latest.version, previous: previous.version })}</h3>
          <RecordDiff before={previous.text} after={latest.text} addedLabel={t('handler.record.added')} removedLabel={t('handler.record.removed')} />
        </>
      )}
      {versions.length > 0 && (
        <RecordVersions
          versions={versions}
          check={(v) => <p className={v.verified ? styles.hint : styles.error} data-testid={`record-check-${v.version}`}>{check(v)}</p>}
          // Made here from the text this browser opened, and only when its hash is that text's: the server has no key to write it.
          download={(v) =>
            v.verified && v.text !== null ? (
              <button type="button" className={`${buttons.secondaryButton} ${recordStyles.download}`} data-testid={`record-download-${v.version}`}
                onClick={() => {
                  const doc = approvedRecordDocument({ caseNumber: view.caseNumber, version: v.version, createdAt: v.createdAt, approvedAt: v.approvedAt, sha256: v.sha256, text: v.text! });
                  offerDownload(new Blob([doc.body], { type: 'text/plain;charset=utf-8' }), doc.name);
                }}>
                {label(v.version)}
              </button>
            ) : null
          }
        />
      )}
      <h3>{t('handler.record.comments')}</h3>
      {opened.record.comments.length === 0 ? (
        <p>{t('handler.record.noComments')}</p>
      ) : (
        <ul className={styles.list} data-testid="record-comments">
          {opened.record.comments.map((c) => (
            <li key={c.id}>
              <p className={styles.hint}>{formatLongDateTime(c.created, lang)}</p>
              {c.text === null ? <p className={styles.error}>{tr('record.commentUnopened')}</p> : <p className={styles.pre}>{c.text}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
