/**
 * "Export the case" and "Print" on the case page (issue 38; docs/decisions/case-export.md).
 * The dialog renders machines/handler/caseExport.ts: the parts, the terms to black out,
 * the server's record of the act, then the PDF and zip made here in the browser.
 */
import { useEffect, useId, useRef } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useLanguage, useT } from '../i18n/index.ts';
import '../i18n/notes/index.ts';
import { readNotes } from './notes.ts';
import type { OpenedNote, OpenedNoteFile } from '../../machines/handler/notes.ts';
import { formatLongDateTime } from '../i18n/dates.ts';
import * as buttons from '../styles/button.css.ts';
import * as dialogs from '../styles/dialog.css.ts';
import { input } from '../styles/field.css.ts';
import { useReturnFocus } from '../components/returnFocus.ts';
import { caseExportMachine, EXPORT_PARTS, type ExportChoice, type MadeExport } from '../../machines/handler/caseExport.ts';
import { EXPORT_TERM_MAX } from '../../machines/schema.ts';
import { useHandler } from './context.ts';
import { useAuditTranslators } from './auditWords.ts';
import { serverCaseDocument, type DocumentOptions, type ExportableCase } from './export/serverCase.ts';
import type { ExportDocument } from './export/document.ts';
import type { ExportFileSource } from './export/files.ts';
import * as styles from './Pages.css.ts';
import * as css from './CaseExport.css.ts';
import { noPrint } from './print.css.ts';

/**
 * What an export is made from, whatever the kind of case: the files (each opened as the
 * page opens it) and the one document builder's input (export/caseDocument.ts).
 */
export interface ExportSource {
  caseNumber: string;
  files: () => ExportFileSource[];
  document: (o: DocumentOptions) => ExportDocument;
  /** The internal notes as this browser opens them, read only when the part `notes` is chosen. */
  notes: () => Promise<readonly OpenedNote[]>;
  /** A note's file (its name opened), opened as the case's files are: in the export only with the part `notes`. */
  noteFile: (f: OpenedNoteFile & { name: string }) => ExportFileSource;
}

/** The notes for an export: the panel's own list; a failure to read them fails the export rather than leaving them out silently. */
export async function exportNotes(...args: Parameters<typeof readNotes>): Promise<readonly OpenedNote[]> {
  const r = await readNotes(...args);
  if (!r.notes) throw new Error(`notes: ${r.status}`);
  return r.notes;
}

/** Every file of the case, once (a message's files are in `files` too). */
interface WithFiles extends ExportableCase {
  files: { id: string; name: string; size: number }[];
}

/** A server-keyed case's export: its files downloaded with the session, its document from the page's data. */
export function serverExportSource(view: WithFiles, api: ReturnType<typeof useHandler>['api']): ExportSource {
  return {
    caseNumber: view.caseNumber,
    files: () => view.files.map((f) => ({ name: f.name, size: f.size, open: () => api.fileBytes(view.caseNumber, f.id) })),
    document: (o) => serverCaseDocument(view, o),
    notes: () => exportNotes(api.client, view.caseNumber),
    noteFile: (f) => ({ name: f.name, size: f.size ?? f.storedSize, open: () => api.fileBytes(view.caseNumber, f.id) }),
  };
}

export function CaseExport({ source }: { source: ExportSource }) {
  const te = useT('export');
  const tn = useT('notes');
  const t = useT('handler');
  const ta = useAuditTranslators();
  const lang = useLanguage();
  const { api, session } = useHandler();
  const handlerName = useSelector(session, (s) => s.context.handler?.name ?? '');
  // The actors are made once; the page's opened parts change (a message sent, a status changed): read them at export time.
  const current = useRef(source);
  current.current = source;
  const actor = useActorRef(
    caseExportMachine.provide({
      actors: {
        recordExport: fromPromise(({ input: c }: { input: ExportChoice }) => api.recordExport(current.current.caseNumber, { parts: c.parts, redactedTerms: c.terms.length })),
        makeExport: fromPromise(async ({ input: c }: { input: ExportChoice }): Promise<MadeExport> => {
          const { makeExport } = await import('./export/make.ts');
          const notes = c.parts.includes('notes') ? await current.current.notes() : [];
          // The notes' files go with the notes only (internal-notes.md "Files"): hashed and zipped after the case's own.
          const caseFiles = c.parts.includes('files') ? current.current.files() : [];
          const ofNotes = notes.flatMap((n) => n.files.flatMap((f) => (f.name === null ? [] : [{ noteId: n.id, source: current.current.noteFile({ ...f, name: f.name }) }])));
          const made = await makeExport({
            terms: c.terms,
            zip: c.parts.includes('files') || ofNotes.length > 0,
            files: [...caseFiles, ...ofNotes.map((f) => f.source)],
            document: (hashed) =>
              current.current.document({
                parts: c.parts, terms: c.terms.length, files: hashed.slice(0, caseFiles.length), by: handlerName, now: new Date().toISOString(), t, te, ta, tn, notes,
                noteFiles: hashed.slice(caseFiles.length).map((h, i) => ({ ...h, noteId: ofNotes[i]!.noteId })),
                date: (iso) => formatLongDateTime(iso, lang),
              }),
          });
          return { pdf: URL.createObjectURL(made.pdf), zip: made.zip ? URL.createObjectURL(made.zip) : null };
        }),
      },
      actions: {
        reportUnauthorized: () => session.send({ type: 'session.expired' }),
        releaseExport: ({ context }) => {
          if (context.made) for (const url of [context.made.pdf, context.made.zip]) if (url) URL.revokeObjectURL(url);
        },
      },
    }),
  );
  const state = useSelector(actor, (s) => s);
  // The page's export links die with the page.
  useEffect(() => () => {
    const made = actor.getSnapshot().context.made;
    if (made) for (const url of [made.pdf, made.zip]) if (url) URL.revokeObjectURL(url);
  }, [actor]);
  const focus = useReturnFocus();
  const termId = useId();
  const termField = useRef<HTMLInputElement>(null);
  const addTyped = () => {
    const field = termField.current;
    if (!field) return;
    actor.send({ type: 'term.add', value: field.value });
    field.value = '';
  };
  const open = !state.matches('closed');
  const busy = state.matches('recording') || state.matches('making');
  const { parts, terms, made, failure, selection } = state.context;
  const base = `case-${source.caseNumber}`;
  const close = () => actor.send({ type: 'dialog.close' });

  return (
    <div className={`${css.actions} ${noPrint}`}>
      <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'dialog.open', selection: window.getSelection()?.toString() ?? '' })}>
        {te('export.button')}
      </button>
      <button type="button" className={buttons.secondaryButton} onClick={() => window.print()}>
        {te('export.print')}
      </button>
      <Dialog.Root open={open} onOpenChange={(o) => !o && close()}>
        <Dialog.Portal>
          <Dialog.Overlay className={dialogs.overlay} />
          <Dialog.Content className={`${dialogs.dialog} ${css.wide}`} onOpenAutoFocus={focus.onOpenAutoFocus} onCloseAutoFocus={focus.onCloseAutoFocus}
            onEscapeKeyDown={(e) => busy && e.preventDefault()} onInteractOutside={(e) => busy && e.preventDefault()} data-testid="export-dialog">
            <Dialog.Title className={dialogs.dialogTitle}>{te('export.title')}</Dialog.Title>
            <Dialog.Description>{te('export.text')}</Dialog.Description>
            {state.matches('choosing') && (
              <form onSubmit={(e) => { e.preventDefault(); actor.send({ type: 'export.start' }); }}>
                <fieldset className={css.fieldset}>
                  <legend className={css.legend}>{te('export.parts')}</legend>
                  {EXPORT_PARTS.map((p) => (
                    <label key={p} className={styles.checkbox}>
                      <input type="checkbox" name="part" value={p} checked={parts.includes(p)} onChange={() => actor.send({ type: 'part.toggle', part: p })} />
                      {p === 'notes' ? tn('notes.export') : te(`export.part.${p}`)}
                    </label>
                  ))}
                  <p className={styles.hint}>{te('export.identityHint')}</p>
                  <p className={styles.hint}>{tn('notes.exportHint')}</p>
                </fieldset>
                <fieldset className={css.fieldset}>
                  <legend className={css.legend}>{te('export.redaction')}</legend>
                  <p className={styles.hint}>{te('export.redactionHint')}</p>
                  <div className={styles.row}>
                    <div className={styles.field}>
                      <label htmlFor={termId} className={styles.label}>{te('export.term')}</label>
                      <input id={termId} ref={termField} className={input} maxLength={EXPORT_TERM_MAX} autoComplete="off" data-testid="export-term"
                        onKeyDown={(e) => {
                          if (e.key !== 'Enter') return;
                          e.preventDefault();
                          addTyped();
                        }} />
                    </div>
                    <button type="button" className={buttons.secondaryButton} onClick={addTyped}>
                      {te('export.addTerm')}
                    </button>
                    {selection !== '' && (
                      <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'selection.add' })} onClick={() => actor.send({ type: 'selection.add' })}>
                        {te('export.addSelection')}
                      </button>
                    )}
                  </div>
                  {terms.length === 0 ? (
                    <p>{te('export.noTerms')}</p>
                  ) : (
                    <ul className={css.terms} data-testid="export-terms">
                      {terms.map((term, i) => (
                        <li key={term} className={css.term}>
                          <span>{term}</span>
                          <button type="button" className={buttons.secondaryButton} aria-label={te('export.removeTerm', { term })} onClick={() => actor.send({ type: 'term.remove', index: i })}>
                            ×
                          </button>
                        </li>
                      ))}
                    </ul>
                  )}
                  {parts.includes('files') && <p className={styles.hint}>{te('export.filesNote')}</p>}
                </fieldset>
                <div role="status">{parts.length === 0 && <p className={styles.error}>{te('export.noParts')}</p>}</div>
                <div className={dialogs.dialogActions}>
                  <button type="button" className={buttons.secondaryButton} onClick={() => actor.send({ type: 'dialog.close' })}>
                    {t('handler.cancel')}
                  </button>
                  <button type="submit" className={buttons.button} disabled={!state.can({ type: 'export.start' })}>
                    {te('export.start')}
                  </button>
                </div>
              </form>
            )}
            <div role="status" aria-live="polite">
              {state.matches('recording') && <p aria-busy="true">{te('export.recording')}</p>}
              {state.matches('making') && <p aria-busy="true">{te('export.making')}</p>}
              {state.matches('done') && <p className={styles.success}>{te('export.done')}</p>}
            </div>
            {state.matches('done') && made && (
              <div className={css.downloads}>
                <a className={css.download} href={made.pdf} download={`${base}.pdf`} data-testid="export-pdf">
                  {te('export.downloadPdf')}
                </a>
                {made.zip && (
                  <a className={css.download} href={made.zip} download={`${base}-files.zip`} data-testid="export-zip">
                    {te('export.downloadZip')}
                  </a>
                )}
              </div>
            )}
            {state.matches('failed') && (
              <div role="alert">
                <p className={styles.error}>{te('export.failed')}</p>
                <p>{te(failure === 'MAKING' ? 'export.failed.making' : 'export.failed.refused')}</p>
              </div>
            )}
            {(state.matches('done') || state.matches('failed')) && (
              <div className={dialogs.dialogActions}>
                <button type="button" className={buttons.secondaryButton} onClick={() => actor.send({ type: 'export.retry' })}>
                  {te('export.again')}
                </button>
                <button type="button" className={buttons.button} onClick={close}>
                  {te('export.close')}
                </button>
              </div>
            )}
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </div>
  );
}
