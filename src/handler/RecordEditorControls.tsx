/**
 * The parts of a case's record the workspace shows alike for a case the server opens
 * (CasePage) and a sealed one (SealedRecord): the record editor's controls
 * (machines/handler/recordEditor.ts), the write or edit button while viewing and the form
 * while editing or saving, and the list of versions with hash and approval. Where the
 * text comes from and how a save goes is the page's, supplied to the chart it passes in.
 */
import { useId, type ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import type { recordEditorMachine } from '../../machines/handler/recordEditor.ts';
import * as styles from './Pages.css.ts';

/** `hasRecord`: a version is written (the button edits it rather than writing the first). */
export function RecordEditorControls({ actor, hasRecord }: { actor: ActorRefFrom<typeof recordEditorMachine>; hasRecord: boolean }) {
  const t = useT('handler');
  const state = useSelector(actor, (s) => s);
  const id = useId();
  return (
    <>
      {state.matches('viewing') && (
        <>
          {state.matches({ viewing: 'saved' }) && <p className={styles.success}>{t('handler.record.saved')}</p>}
          <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'edit.open' })}>
            {hasRecord ? t('handler.record.edit') : t('handler.record.write')}
          </button>
        </>
      )}
      {(state.matches('editing') || state.matches('saving')) && (
        <form
          className={styles.form}
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'edit.save' });
          }}
        >
          <div className={styles.field}>
            <label htmlFor={id} className={styles.label}>
              {t('handler.record.text')}
            </label>
            <textarea id={id} className={`${input} ${styles.textarea}`} value={state.context.draft} disabled={state.matches('saving')}
              onChange={(e) => actor.send({ type: 'draft.change', value: e.target.value })} aria-invalid={state.matches({ editing: 'empty' })} />
          </div>
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
}

/** Every version with its date, hash and approval; `check` adds what this page found of a version, below its hash. */
export function RecordVersions<V extends VersionShown>({ versions, check }: { versions: readonly V[]; check?: (v: V) => ReactNode }) {
  const t = useT('handler');
  const lang = useLanguage();
  return (
    <>
      <h3>{t('handler.record.versions')}</h3>
      <ol aria-label={t('handler.record.versions')} data-testid="record-versions">
        {versions.map((v) => (
          <li key={v.version}>
            <p>{t('handler.record.version', { version: v.version, date: formatLongDateTime(v.createdAt, lang) })}</p>
            <p className={styles.hash}>{t('handler.record.hash', { hash: v.sha256 })}</p>
            {check?.(v)}
            <p className={v.approvedAt ? styles.success : styles.hint}>
              {v.approvedAt ? t('handler.record.versionApproved', { when: formatLongDateTime(v.approvedAt, lang) }) : t('handler.record.versionNotApproved')}
            </p>
          </li>
        ))}
      </ol>
    </>
  );
}
