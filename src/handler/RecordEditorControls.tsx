/**
 * The parts of a case's record the workspace shows alike for a case the server opens
 * (CasePage) and a sealed one (SealedRecord): the record editor's controls
 * (machines/handler/recordEditor.ts), the write or edit button while viewing and the form
 * while editing or saving, and the list of versions with hash and approval. Where the
 * text comes from and how a save goes is the page's, supplied to the chart it passes in.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/recordwork/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import type { recordEditorMachine } from '../../machines/handler/recordEditor.ts';
import * as styles from './Pages.css.ts';
import * as own from './RecordEditorControls.css.ts';

/** The words that differ for another subject (a voice message's transcript); absent: the record's. */
export interface RecordLabels {
  write?: string;
  edit?: string;
  text?: string;
  saved?: string;
}

/** `hasRecord`: a version is written (the button edits it rather than writing the first). */
export function RecordEditorControls({ actor, hasRecord, labels = {} }: { actor: ActorRefFrom<typeof recordEditorMachine>; hasRecord: boolean; labels?: RecordLabels }) {
  const t = useT('handler');
  const tw = useT('recordwork');
  const lang = useLanguage();
  const state = useSelector(actor, (s) => s);
  const id = useId();
  const keptId = useId();
  const { approvedAt, version, mine, theirs, draft } = state.context;
  const choosing = state.matches({ conflict: 'choosing' });
  const conflictTitle = useRef<HTMLHeadingElement>(null);
  // The panel replaces the form the focus was in: it moves to the panel's heading, so a keyboard or screen reader user lands on the choice.
  useEffect(() => {
    if (choosing) conflictTitle.current?.focus();
  }, [choosing]);
  return (
    <>
      {state.matches('viewing') && (
        <>
          {state.matches({ viewing: 'saved' }) && <p className={styles.success}>{labels.saved ?? t('handler.record.saved')}</p>}
          <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'edit.open' })}>
            {hasRecord ? (labels.edit ?? t('handler.record.edit')) : (labels.write ?? t('handler.record.write'))}
          </button>
        </>
      )}
      {state.matches({ conflict: 'loading' }) && (
        <p role="status" className={styles.hint}>
          {tw('recordwork.conflict.loading')}
        </p>
      )}
      {choosing && theirs && (
        <section className={own.conflict} aria-labelledby={`${id}-conflict`} data-testid="record-conflict">
          <h3 id={`${id}-conflict`} ref={conflictTitle} tabIndex={-1} className={own.conflictTitle}>
            {tw('recordwork.conflict.title', { version: theirs.version })}
          </h3>
          <p>
            {theirs.author
              ? tw('recordwork.conflict.who', { name: theirs.author, date: formatLongDateTime(theirs.createdAt, lang) })
              : tw('recordwork.conflict.whoUnknown', { date: formatLongDateTime(theirs.createdAt, lang) })}
          </p>
          <div className={own.texts}>
            <div className={own.text} data-testid="record-conflict-mine">
              <h4 className={own.textTitle}>{tw('recordwork.conflict.mine')}</h4>
              <p className={styles.pre}>{draft}</p>
            </div>
            <div className={own.text} data-testid="record-conflict-theirs">
              <h4 className={own.textTitle}>{tw('recordwork.conflict.theirs', { version: theirs.version })}</h4>
              {theirs.text === null ? <p className={styles.error}>{tw('recordwork.conflict.theirsUnopened', { version: theirs.version })}</p> : <p className={styles.pre}>{theirs.text}</p>}
            </div>
          </div>
          <div className={styles.row}>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'conflict.editTheirs' })} onClick={() => actor.send({ type: 'conflict.editTheirs' })}>
              {tw('recordwork.conflict.editTheirs')}
            </button>
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'conflict.saveMine' })} onClick={() => actor.send({ type: 'conflict.saveMine' })}>
              {tw('recordwork.conflict.saveMine', { next: theirs.version + 1 })}
            </button>
          </div>
        </section>
      )}
      {(state.matches('editing') || state.matches('saving')) && (
        <form
          className={styles.form}
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'edit.save' });
          }}
        >
          {approvedAt && version > 0 && <p className={styles.hint} data-testid="record-after-approval">{tw('recordwork.afterApproval', { version, next: version + 1 })}</p>}
          <div className={styles.field}>
            <label htmlFor={id} className={styles.label}>
              {labels.text ?? t('handler.record.text')}
            </label>
            <textarea id={id} className={`${input} ${styles.textarea}`} value={draft} disabled={state.matches('saving')}
              onChange={(e) => actor.send({ type: 'draft.change', value: e.target.value })} aria-invalid={state.matches({ editing: 'empty' })} />
          </div>
          {mine !== null && (
            <div className={styles.field} data-testid="record-mine">
              <label htmlFor={keptId} className={styles.label}>
                {tw('recordwork.mine.title')}
              </label>
              <p className={styles.hint} id={`${keptId}-hint`}>{tw('recordwork.mine.hint')}</p>
              <textarea id={keptId} className={`${input} ${own.kept}`} value={mine} readOnly aria-describedby={`${keptId}-hint`} />
            </div>
          )}
          <div role="status">
            {state.matches({ editing: 'empty' }) && <p className={styles.error}>{t('handler.record.empty')}</p>}
            {state.matches({ editing: 'failed' }) && <p className={styles.error}>{t('handler.record.failed')}</p>}
          </div>
          <div className={styles.row}>
            <button type="submit" className={buttons.button} disabled={!state.can({ type: 'edit.save' })}>
              {t('handler.record.save')}
            </button>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'edit.cancel' })} onClick={() => actor.send({ type: 'edit.cancel' })}>
              {t('handler.cancel')}
            </button>
          </div>
        </form>
      )}
    </>
  );
}

interface VersionShown {
  version: number;
  createdAt: string;
  sha256: string;
  approvedAt: string | null;
  /** Who saved it (handlers' views); null or absent when no author was kept. */
  author?: string | null;
}

/**
 * Every version with its date, author, hash and approval; `check` adds what this page
 * found of a version, below its hash; `download` the way to download an approved one.
 */
export function RecordVersions<V extends VersionShown>({ versions, check, download, title }: { versions: readonly V[]; check?: (v: V) => ReactNode; download?: (v: V & { approvedAt: string }) => ReactNode; title?: string }) {
  const t = useT('handler');
  const tw = useT('recordwork');
  const lang = useLanguage();
  const heading = title ?? t('handler.record.versions');
  return (
    <>
      <h3>{heading}</h3>
      <ol aria-label={heading} data-testid="record-versions">
        {versions.map((v) => (
          <li key={v.version} data-testid={`record-version-${v.version}`}>
            <p>{t('handler.record.version', { version: v.version, date: formatLongDateTime(v.createdAt, lang) })}</p>
            {v.author && <p className={styles.hint} data-testid={`record-author-${v.version}`}>{tw('recordwork.by', { name: v.author })}</p>}
            <p className={styles.hash}>{t('handler.record.hash', { hash: v.sha256 })}</p>
            {check?.(v)}
            <p className={v.approvedAt ? styles.success : styles.hint}>
              {v.approvedAt ? t('handler.record.versionApproved', { when: formatLongDateTime(v.approvedAt, lang) }) : t('handler.record.versionNotApproved')}
            </p>
            {v.approvedAt && download?.(v as V & { approvedAt: string })}
          </li>
        ))}
      </ol>
    </>
  );
}

/** The label of an approved version's download, for the pages that supply it. */
export function useDownloadLabel(): (version: number) => string {
  const tw = useT('recordwork');
  return (version) => tw('recordwork.download', { version });
}

export { own as recordStyles };
