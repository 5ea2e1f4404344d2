/**
 * The composer's reply templates (machines/handler/templatePicker.ts): pick one of the
 * company's templates and insert its text in the reporter's language. The text goes to
 * the composer through `onInsert` (its `text.change`), so sending — and on a sealed
 * case sealing — is the composer's as for any typed text. With text already typed, the
 * chart's `confirming` state is shown as a controlled AlertDialog: replace, add below,
 * or keep what was typed.
 */
import { Suspense, useId, useRef } from 'react';
import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { LANGUAGE_NAMES, useT } from '../i18n/index.ts';
import '../i18n/templates/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import * as dialogs from '../styles/dialog.css.ts';
import { useReturnFocus } from '../components/returnFocus.ts';
import { pickerLanguage, templatePickerMachine } from '../../machines/handler/templatePicker.ts';
import { useHandler } from './context.ts';
import { loadHandlerTemplates } from './templatesApi.ts';
import * as styles from './Pages.css.ts';
import * as own from './TemplatePicker.css.ts';

type PickerProps = { reporterLanguage: string | null; text: string; max: number; disabled: boolean; onInsert: (text: string) => void };

/** Its own Suspense: while the templates catalogue loads, only the picker waits, never the case page around it. */
export function TemplatePicker(props: PickerProps) {
  return (
    <Suspense fallback={null}>
      <Picker {...props} />
    </Suspense>
  );
}

function Picker(props: PickerProps) {
  const t = useT('templates');
  const { rawApi, session } = useHandler();
  // The chart is made once; the composer's latest callback is read when it inserts.
  const onInsert = useRef(props.onInsert);
  onInsert.current = props.onInsert;
  const actor = useActorRef(
    templatePickerMachine.provide({
      actors: { loadTemplates: fromPromise(() => loadHandlerTemplates(rawApi)) },
      actions: {
        insertText: ({ context }) => onInsert.current(context.inserted),
        reportUnauthorized: () => session.send({ type: 'session.expired' }),
      },
    }),
    { input: { reporterLanguage: props.reporterLanguage, max: props.max } },
  );
  const state = useSelector(actor, (s) => s);
  const focus = useReturnFocus();
  const selectId = useId();
  const hintId = useId();
  const ctx = state.context;

  if (state.matches('loading')) return <p aria-busy="true" className={styles.hint}>{t('templates.loading')}</p>;
  if (state.matches('failed'))
    return (
      <div role="alert" className={own.picker}>
        <p className={styles.error}>{t('templates.failed')}</p>
        <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'retry' })} onClick={() => actor.send({ type: 'retry' })}>
          {t('templates.retry')}
        </button>
      </div>
    );
  if (ctx.templates.length === 0) return <p className={styles.hint}>{t('templates.picker.none')}</p>;

  const language = pickerLanguage(ctx);
  const known = ctx.reporterLanguage !== null && language === ctx.reporterLanguage;
  const confirming = state.matches({ ready: 'confirming' });
  const canAppend = state.can({ type: 'insert.append' });
  return (
    <div className={own.picker} data-testid="template-picker">
      <div className={styles.field}>
        <label htmlFor={selectId} className={styles.label}>
          {t('templates.picker.label')}
        </label>
        <div className={own.row}>
          <select
            id={selectId}
            className={input}
            aria-describedby={hintId}
            value={ctx.chosenId ?? ''}
            disabled={props.disabled}
            onChange={(e) => actor.send({ type: 'template.choose', id: e.target.value })}
          >
            <option value="" disabled>
              {t('templates.picker.choose')}
            </option>
            {ctx.templates.map((tpl) => (
              <option key={tpl.id} value={tpl.id}>
                {tpl.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            className={buttons.secondaryButton}
            disabled={props.disabled || !state.can({ type: 'template.insert', text: props.text })}
            onClick={() => actor.send({ type: 'template.insert', text: props.text })}
          >
            {t('templates.picker.insert')}
          </button>
        </div>
        <p id={hintId} className={styles.hint} data-testid="template-language" data-language={language}>
          {t(known ? 'templates.picker.inReporterLanguage' : 'templates.picker.inDefaultLanguage', { language: LANGUAGE_NAMES[language] })}
        </p>
      </div>
      <AlertDialog.Root open={confirming}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className={dialogs.overlay} />
          <AlertDialog.Content className={dialogs.dialog} onEscapeKeyDown={() => actor.send({ type: 'insert.cancel' })} onOpenAutoFocus={focus.onOpenAutoFocus} onCloseAutoFocus={focus.onCloseAutoFocus}>
            <AlertDialog.Title className={dialogs.dialogTitle}>{t('templates.confirm.title')}</AlertDialog.Title>
            <AlertDialog.Description>{t('templates.confirm.text')}</AlertDialog.Description>
            {confirming && !canAppend && <p className={styles.hint}>{t('templates.confirm.tooLong', { max: props.max })}</p>}
            <div className={dialogs.dialogActions}>
              <AlertDialog.Cancel asChild>
                <button type="button" className={buttons.secondaryButton} onClick={() => actor.send({ type: 'insert.cancel' })}>
                  {t('templates.confirm.cancel')}
                </button>
              </AlertDialog.Cancel>
              <button type="button" className={buttons.secondaryButton} disabled={!canAppend} onClick={() => actor.send({ type: 'insert.append' })}>
                {t('templates.confirm.append')}
              </button>
              <AlertDialog.Action asChild>
                <button
                  type="button"
                  className={buttons.button}
                  onClick={(e) => {
                    // The chart closes the dialog, not Radix.
                    e.preventDefault();
                    actor.send({ type: 'insert.replace' });
                  }}
                >
                  {t('templates.confirm.replace')}
                </button>
              </AlertDialog.Action>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </div>
  );
}
