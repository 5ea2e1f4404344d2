/**
 * A case's internal notes (machines/handler/notes.ts; docs/decisions/internal-notes.md),
 * marked as never visible to the reporter. The same panel serves a server-keyed case and
 * a sealed one: `sealed` carries the keys the effects seal and open with (src/handler/notes.ts).
 */
import { useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/notes/index.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { notesMachine, type AttachInput, type NoteEdit, type OpenedNote, type OpenedNoteFile } from '../../machines/handler/notes.ts';
import { LIMITS, NOTE_TEXT_MAX } from '../../machines/schema.ts';
import { formatSize, Outcome } from './SealedCaseParts.tsx';
import { useHandler } from './context.ts';
import { notesEffects, type NoteKeys } from './notes.ts';
import * as styles from './Pages.css.ts';
import * as css from './Notes.css.ts';
import { noPrint } from './print.css.ts';

export function Notes({ caseNumber, sealed, onChanged }: { caseNumber: string; sealed?: NoteKeys; onChanged: () => void }) {
  const t = useT('notes');
  const th = useT('handler');
  const lang = useLanguage();
  const { api, session } = useHandler();
  const actor = useActorRef(
    (() => {
      const fx = notesEffects(api.client, sealed);
      return notesMachine.provide({
        actors: {
          loadNotes: fromPromise(({ input: i }: { input: { caseNumber: string } }) => fx.loadNotes(i)),
          addNote: fromPromise(({ input: i }: { input: { caseNumber: string; text: string } }) => fx.addNote(i)),
          saveNote: fromPromise(({ input: i }: { input: { caseNumber: string } & NoteEdit }) => fx.saveNote(i)),
          attachFiles: fromPromise(({ input: i }: { input: AttachInput }) => fx.attachFiles(i)),
          saveFile: fromPromise(({ input: i }: { input: { caseNumber: string; file: OpenedNoteFile & { name: string } } }) => fx.saveFile(i)),
        },
        actions: { reloadCase: onChanged, reportUnauthorized: () => session.send({ type: 'session.expired' }) },
      });
    })(),
    { input: { caseNumber } },
  );
  const state = useSelector(actor, (s) => s);
  const newId = useId();
  const editId = useId();
  const attachId = useId();
  const { notes, editing, theirs, refused, attaching, refusedFiles, fileOutcomes } = state.context;
  const time = (iso: string) => formatLongDateTime(iso, lang);
  const refusal = refused === 'NOTE_NOT_FOUND' ? t('notes.notFound') : t('notes.refused');
  const filesRefusal = (code: string) =>
    ['FORBIDDEN_FILE_TYPE', 'FILE_CONTENT_MISMATCH', '415'].includes(code) ? t('notes.files.refusedType') : ['FILE_TOO_LARGE', 'QUOTA_EXCEEDED', '413'].includes(code) ? t('notes.files.tooLarge') : t('notes.files.failed');

  // A note's files: named, sized and saved here (a sealed case's opened and checked in this browser), marked as the note is.
  const noteFiles = (n: OpenedNote) => (
    <div className={css.files} data-testid="note-files">
      {n.files.length > 0 && (
        <>
          <p className={css.fileMarker}>{t('notes.files.title')}</p>
          <ul className={css.fileList}>
            {n.files.map((f) => (
              <li key={f.id} data-note-file={f.id}>
                {f.name === null ? (
                  <p className={styles.error}>{t('notes.files.unopened', { date: time(f.created) })}</p>
                ) : sealed ? (
                  <>
                    <span>{t('notes.files.file', { name: f.name, size: formatSize(f.size ?? f.storedSize, lang) })}</span>
                    <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'file.save', fileId: f.id })} onClick={() => actor.send({ type: 'file.save', fileId: f.id })}>
                      {t('notes.files.download', { name: f.name })}
                    </button>
                    <div role="status">
                      <Outcome outcome={fileOutcomes[f.id]} name={f.name} />
                    </div>
                  </>
                ) : (
                  <>
                    <span>{t('notes.files.file', { name: f.name, size: formatSize(f.size ?? f.storedSize, lang) })}</span>
                    <a className={css.download} href={api.fileUrl(caseNumber, f.id)} download={f.name}>
                      {t('notes.files.download', { name: f.name })}
                    </a>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {n.text !== null && (
        <div className={styles.field}>
          <label htmlFor={`${attachId}-${n.id}`} className={styles.label}>
            {t('notes.files.attach')}
          </label>
          <input
            id={`${attachId}-${n.id}`}
            type="file"
            multiple
            className={input}
            disabled={!state.matches('ready')}
            aria-describedby={`${attachId}-${n.id}-hint`}
            onChange={(e) => {
              const picked = [...(e.currentTarget.files ?? [])];
              e.currentTarget.value = '';
              if (picked.length) actor.send({ type: 'files.attach', id: n.id, files: picked });
            }}
          />
          <p id={`${attachId}-${n.id}-hint`} className={styles.hint}>
            {t('notes.files.attachHint', { max: LIMITS.maxFiles })}
          </p>
        </div>
      )}
      <div role="status">
        {attaching?.id === n.id && <p aria-busy="true">{t('notes.files.attaching')}</p>}
        {refusedFiles?.id === n.id && <p className={styles.error} data-refused={refusedFiles.code}>{filesRefusal(refusedFiles.code)}</p>}
      </div>
    </div>
  );

  const noteBody = (n: OpenedNote) => {
    if (editing?.id === n.id && state.matches('conflicted') && theirs) {
      return (
        <div role="alert" data-testid="note-conflict">
          <p className={styles.error}>{t('notes.conflictTitle')}</p>
          <p className={styles.hint}>{t('notes.conflictText')}</p>
          <div className={css.both}>
            <figure className={css.side} data-side="mine">
              <figcaption className={styles.label}>{t('notes.mine')}</figcaption>
              <p className={styles.pre}>{editing.text}</p>
            </figure>
            <figure className={css.side} data-side="theirs">
              <figcaption className={styles.label}>{t('notes.theirs', { name: theirs.editedBy?.name ?? theirs.author.name })}</figcaption>
              <p className={styles.pre}>{theirs.text ?? t('notes.unopened')}</p>
            </figure>
          </div>
          <div className={css.actions}>
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'conflict.keepMine' })} onClick={() => actor.send({ type: 'conflict.keepMine' })}>
              {t('notes.keepMine')}
            </button>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'conflict.takeTheirs' })} onClick={() => actor.send({ type: 'conflict.takeTheirs' })}>
              {t('notes.takeTheirs')}
            </button>
          </div>
        </div>
      );
    }
    if (editing?.id === n.id) {
      const saving = state.matches('saving');
      return (
        <div className={styles.field}>
          <label htmlFor={editId} className={styles.label}>
            {t('notes.editLabel')}
          </label>
          <textarea id={editId} name="note-edit" className={`${input} ${styles.textarea}`} maxLength={NOTE_TEXT_MAX} value={editing.text} readOnly={saving} onChange={(e) => actor.send({ type: 'edit.change', text: e.target.value })} />
          <div className={css.actions}>
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'edit.save' })} onClick={() => actor.send({ type: 'edit.save' })}>
              {saving ? t('notes.saving') : t('notes.save')}
            </button>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'edit.cancel' })} onClick={() => actor.send({ type: 'edit.cancel' })}>
              {t('notes.cancel')}
            </button>
          </div>
        </div>
      );
    }
    return (
      <>
        {n.text === null ? <p className={styles.error}>{t('notes.unopened')}</p> : <p className={styles.pre} data-testid="note-text">{n.text}</p>}
        <div className={css.actions}>
          <button type="button" className={buttons.secondaryButton} data-act="edit-note" disabled={!state.can({ type: 'note.edit', id: n.id })} onClick={() => actor.send({ type: 'note.edit', id: n.id })}>
            {t('notes.edit')}
          </button>
        </div>
      </>
    );
  };

  return (
    // Never printed with the case: internal notes leave the workspace only as an explicit export part.
    <section className={`${styles.section} ${css.panel} ${noPrint}`} aria-labelledby="case-notes" data-testid="notes" aria-busy={state.matches('loading') || state.matches('adding') || state.matches('saving') || state.matches('attaching')}>
      <h2 id="case-notes" className={styles.sectionTitle}>
        {t('notes.title')}
      </h2>
      <p className={css.marker} data-testid="notes-not-visible">
        {t('notes.notVisible')}
      </p>
      {state.matches('loading') && <p>{th('handler.loading')}</p>}
      {state.matches('failed') && (
        <div role="alert">
          <p className={styles.error}>{t('notes.failed')}</p>
          <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'retry' })}>
            {t('notes.retry')}
          </button>
        </div>
      )}
      {!state.matches('loading') && !state.matches('failed') && (
        <>
          {notes.length === 0 ? (
            <p>{t('notes.none')}</p>
          ) : (
            <ul className={styles.list}>
              {notes.map((n) => (
                <li key={n.id} className={css.note} data-note={n.id} data-version={n.version}>
                  <p className={css.meta}>{t('notes.writtenBy', { name: n.author.name, time: time(n.created) })}</p>
                  {n.editedBy && <p className={css.meta}>{t('notes.editedBy', { name: n.editedBy.name, time: time(n.updated) })}</p>}
                  {noteBody(n)}
                  {noteFiles(n)}
                </li>
              ))}
            </ul>
          )}
          <div className={styles.field}>
            <label htmlFor={newId} className={styles.label}>
              {t('notes.new')}
            </label>
            <textarea id={newId} name="note-new" className={`${input} ${styles.textarea}`} maxLength={NOTE_TEXT_MAX} value={state.context.draft} readOnly={state.matches('adding')} onChange={(e) => actor.send({ type: 'draft.change', text: e.target.value })} />
          </div>
          <div className={css.actions}>
            <button type="button" className={buttons.button} data-act="add-note" disabled={!state.can({ type: 'note.add' })} onClick={() => actor.send({ type: 'note.add' })}>
              {state.matches('adding') ? t('notes.adding') : t('notes.add')}
            </button>
          </div>
          <div role="status">{refused && <p className={styles.error} data-refused={refused}>{refusal}</p>}</div>
        </>
      )}
    </section>
  );
}
