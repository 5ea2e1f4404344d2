/**
 * The sealed case's files, status and audit trail (machines/handler/sealedCase.ts,
 * regions `files`, `status`; docs/decisions/sealed-workspace.md "Files in the workspace",
 * "Status and audit of sealed cases"). Each file is named as its sealed name opened, a
 * save per file through the browser's streaming decryption (to disk where the browser
 * can, else in memory up to a limit it says), the browser's check beside it; the status
 * change through a confirmation; the audit trail the server wrote, its ids resolved to
 * what this browser opened (file names, colleagues).
 */
import type { ReactNode } from 'react';
import { useId } from 'react';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import '../i18n/sealedwork/index.ts';
import '../i18n/metadata/index.ts';
import '../i18n/export/index.ts';
import '../i18n/notes/index.ts';
import { toBcp47, useLanguage, useT, type Language } from '../i18n/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import type { CaseStatus } from '../../machines/schema.ts';
import { SETTABLE_STATUSES } from '../../machines/handler/case.ts';
import { isSaveable, MEMORY_SAVE_MAX, type FileOutcome, type OpenedAuditEntry, type OpenedFile, type SealedAuditEntry, type sealedCaseMachine } from '../../machines/handler/sealedCase.ts';
import * as styles from './Pages.css.ts';
import { auditWords, useAuditTranslators } from './auditWords.ts';

type State = SnapshotFrom<typeof sealedCaseMachine>;
type Actor = ActorRefFrom<typeof sealedCaseMachine>;

/** Sizes in kB, MB, GB (files are rarely below a kilobyte; a fraction reads fine there). */
export function formatSize(bytes: number, lang: Language): string {
  const units = ['kilobyte', 'megabyte', 'gigabyte'] as const;
  let v = bytes / 1000;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return new Intl.NumberFormat(toBcp47(lang), { style: 'unit', unit: units[i], unitDisplay: 'short', maximumFractionDigits: 1 }).format(v);
}

/** A saved file's outcome and the browser's check, as the case's files and the notes' files show it. */
export function Outcome({ outcome, name }: { outcome: FileOutcome | undefined; name: string }) {
  const t = useT('sealedwork');
  const tm = useT('metadata');
  const locale = toBcp47(useLanguage());
  if (!outcome) return null;
  if (outcome.outcome === 'saving') return <p aria-busy="true">{t('sealedwork.files.saving', { name })}</p>;
  if (outcome.outcome !== 'saved') return <p className={outcome.outcome === 'cancelled' ? styles.hint : styles.error}>{t(`sealedwork.files.${outcome.outcome}`)}</p>;
  const m = outcome.check.metadata;
  const metadata =
    m === 'notChecked' || m === 'couldNotCheck'
      ? t(`sealedwork.files.metadata.${m}`)
      : m.length === 0
        ? t('sealedwork.files.metadata.none')
        : t('sealedwork.files.metadata.found', { list: new Intl.ListFormat(locale, { type: 'conjunction' }).format(m.map((k) => tm(`metadata.kind.${k}`))) });
  return (
    <>
      <p className={styles.success}>{t('sealedwork.files.saved')}</p>
      <p className={m === 'couldNotCheck' ? styles.error : styles.hint} data-testid="sealed-file-metadata">
        {metadata}
      </p>
    </>
  );
}

/** `voice`: what the page shows beside an opened voice file (its player and transcript, issue 40). */
export function SealedFiles({ state, actor, voice }: { state: State; actor: Actor; voice?: (f: OpenedFile & { name: string }) => ReactNode }) {
  const t = useT('sealedwork');
  const lang = useLanguage();
  const files = state.context.opened?.files ?? [];
  const { canStream, fileOutcomes } = state.context;
  return (
    <section className={styles.section} aria-labelledby="sealed-files" data-testid="sealed-files">
      <h2 id="sealed-files" className={styles.sectionTitle}>
        {t('sealedwork.files.title')}
      </h2>
      {files.length === 0 ? (
        <p>{t('sealedwork.files.none')}</p>
      ) : (
        <>
          <p className={styles.hint} data-testid="sealed-files-way">
            {canStream ? t('sealedwork.files.toDisk') : t('sealedwork.files.inMemory', { limit: formatSize(MEMORY_SAVE_MAX, lang) })}
          </p>
          <ul className={styles.list}>
            {files.map((f: OpenedFile) => (
              <li key={f.id} className={styles.message} data-file-id={f.id}>
                {f.name === null ? (
                  <p className={styles.error}>{t('sealedwork.files.unopenedName', { date: formatLongDateTime(f.created, lang) })}</p>
                ) : (
                  <>
                    <p>
                      <strong>{f.name}</strong>
                      {` · ${formatSize(f.size ?? f.sealedSize, lang)} · ${t('sealedwork.files.added', { date: formatLongDateTime(f.created, lang) })}`}
                    </p>
                    {isSaveable(f, canStream) ? (
                      <button
                        type="button"
                        className={buttons.secondaryButton}
                        disabled={!state.can({ type: 'file.save', fileId: f.id })}
                        onClick={() => actor.send({ type: 'file.save', fileId: f.id })}
                      >
                        {t('sealedwork.files.save', { name: f.name })}
                      </button>
                    ) : (
                      <p className={styles.hint}>{t('sealedwork.files.tooLarge')}</p>
                    )}
                    <div role="status">
                      <Outcome outcome={fileOutcomes[f.id]} name={f.name} />
                    </div>
                    {voice?.(f as OpenedFile & { name: string })}
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function SealedStatus({ state, actor }: { state: State; actor: Actor }) {
  const th = useT('handler');
  const statusId = useId();
  const view = state.context.view!;
  const status = (s: 'idle' | 'confirmingStatus' | 'changingStatus') => state.matches({ opened: { status: s } });
  const next = state.context.nextStatus;
  return (
    <section className={styles.section} aria-labelledby="sealed-status">
      <h2 id="sealed-status" className={styles.sectionTitle}>
        {th('handler.case.statusTitle')}
      </h2>
      <form
        className={styles.row}
        onSubmit={(e) => {
          e.preventDefault();
          actor.send({ type: 'status.choose', status: new FormData(e.currentTarget).get('status') as CaseStatus });
        }}
      >
        <div className={styles.field}>
          <label htmlFor={statusId} className={styles.label}>
            {th('handler.case.newStatus')}
          </label>
          <select id={statusId} name="status" className={input} key={view.status} defaultValue={SETTABLE_STATUSES.find((s) => s !== view.status)}>
            {SETTABLE_STATUSES.filter((s) => s !== view.status).map((s) => (
              <option key={s} value={s}>
                {th(`handler.status.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className={buttons.button} disabled={!status('idle')}>
          {th('handler.case.changeStatus')}
        </button>
      </form>
      <div role="status">
        {state.matches({ opened: { status: { idle: 'changed' } } }) && <p className={styles.success}>{th('handler.case.statusChanged')}</p>}
        {state.matches({ opened: { status: { idle: 'failed' } } }) && <p className={styles.error}>{th('handler.case.statusFailed')}</p>}
      </div>
      <ConfirmDialog
        open={status('confirmingStatus') || status('changingStatus')}
        title={th('handler.case.confirmStatusTitle')}
        description={th('handler.case.confirmStatusText', { status: next ? th(`handler.status.${next}`) : '' })}
        cancelLabel={th('handler.cancel')}
        confirmLabel={th('handler.case.changeStatus')}
        confirmDisabled={!state.can({ type: 'status.confirm' })}
        cancelDisabled={!state.can({ type: 'status.cancel' })}
        onCancel={() => actor.send({ type: 'status.cancel' })}
        onConfirm={() => actor.send({ type: 'status.confirm' })}
      />
    </section>
  );
}

export function SealedAudit({ state }: { state: State }) {
  const t = useT('sealedwork');
  const th = useT('handler');
  const lang = useLanguage();
  const { opened } = state.context;
  const entries: OpenedAuditEntry[] = opened?.audit ?? [];
  const tr = useAuditTranslators();
  const words = (a: SealedAuditEntry) => auditWords(a, { file: (id) => opened?.files.find((f) => f.id === id)?.name, keyHolder: (k) => opened?.keyHolders[k] }, tr);
  return (
    <section className={styles.section} aria-labelledby="sealed-audit">
      <h2 id="sealed-audit" className={styles.sectionTitle}>
        {th('handler.audit.title')}
      </h2>
      <p className={styles.hint}>{t('sealedwork.audit.hint')}</p>
      <div className={styles.scroll} role="region" aria-labelledby="sealed-audit" tabIndex={0}>
        <table className={styles.table} data-testid="audit-trail">
          <thead>
            <tr>
              <th scope="col">{th('handler.audit.when')}</th>
              <th scope="col">{th('handler.audit.who')}</th>
              <th scope="col">{th('handler.audit.what')}</th>
              <th scope="col">{t('sealedwork.audit.details')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((a, i) =>
              'unopened' in a ? (
                <tr key={i}>
                  <td>{formatLongDateTime(a.at, lang)}</td>
                  <td colSpan={3} className={styles.error}>
                    {t('sealedwork.audit.unopened')}
                  </td>
                </tr>
              ) : (
                <tr key={i}>
                  <td>{formatLongDateTime(a.at, lang)}</td>
                  <td>{a.handlerName ?? ''}</td>
                  <td data-action={a.action}>{words(a).what}</td>
                  <td>{words(a).detail}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
