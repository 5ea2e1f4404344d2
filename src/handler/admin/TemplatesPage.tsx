/**
 * /handler/templates: the company's reply templates for its administrator (or the
 * operator, for the company of this host), machines/admin/templates.ts. A template is
 * a name and one text per language of the company, checked by the shared rules as it
 * is typed; removing one goes through a confirmation. The chart decides; this view
 * reads it.
 */
import { useEffect, useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { LANGUAGE_NAMES, toBcp47, useT } from '../../i18n/index.ts';
import '../../i18n/templates/index.ts';
import { input } from '../../styles/field.css.ts';
import * as buttons from '../../styles/button.css.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { draftIssues, templatesMachine } from '../../../machines/admin/templates.ts';
import { REPLY_TEMPLATE_LIMITS } from '../../../machines/schema.ts';
import { useHandler } from '../context.ts';
import { templatesAdminApi } from '../templatesApi.ts';
import * as styles from '../Pages.css.ts';
import * as admin from './Admin.css.ts';

const ISSUE: Record<string, string> = { 'validation.required': 'templates.issue.required', 'validation.tooLong': 'templates.issue.tooLong' };

export function TemplatesPage() {
  const t = useT('templates');
  const { session, rawApi } = useHandler();
  const companyId = useSelector(session, (s) => s.context.handler?.companyId ?? '');
  // The operator has no company of their own: they keep the templates of the host they are on.
  const company = companyId || window.location.hostname;
  const actor = useActorRef(
    templatesMachine.provide({
      actors: (() => {
        const a = templatesAdminApi(rawApi, company);
        return {
          loadTemplates: fromPromise(() => a.load()),
          saveTemplate: fromPromise(({ input: d }) => a.save(d)),
          deleteTemplate: fromPromise(({ input: d }) => a.remove(d)),
        };
      })(),
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const ctx = state.context;
  const baseId = useId();
  const title = t('templates.title');
  useEffect(() => {
    document.title = title;
  }, [title]);

  if (state.matches('loading')) return <p aria-busy="true">{t('templates.loading')}</p>;
  if (state.matches('failed'))
    return (
      <div role="alert">
        <p className={styles.error}>{t('templates.failed')}</p>
        <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'retry' })}>
          {t('templates.retry')}
        </button>
      </div>
    );

  const problem = ctx.problem && (
    <p role="alert" className={styles.error}>
      {t(`templates.problem.${ctx.problem}`)}
    </p>
  );

  if (state.matches('editing') || state.matches('saving')) {
    const saving = state.matches('saving');
    const issues = draftIssues(ctx);
    const issueOf = (field: string) => issues.find((i) => i.field === field);
    const issueText = (field: string, max: number) => {
      const i = issueOf(field);
      return i ? t(ISSUE[i.rule] ?? 'templates.issue.invalid', { max }) : null;
    };
    const field = (name: string, label: string, value: string, max: number, multiline: boolean, onChange: (v: string) => void, lang?: string) => {
      const id = `${baseId}-${name}`;
      const said = issueText(name, max);
      const props = {
        id,
        className: multiline ? `${input} ${styles.textarea}` : input,
        value,
        disabled: saving,
        'aria-invalid': said !== null,
        'aria-describedby': said !== null ? `${id}-issue` : undefined,
        lang,
        onChange: (e: { target: { value: string } }) => onChange(e.target.value),
      };
      return (
        <div className={styles.field} key={name}>
          <label htmlFor={id} className={styles.label}>
            {label}
          </label>
          {multiline ? <textarea {...props} /> : <input {...props} type="text" />}
          {said !== null && (
            <p id={`${id}-issue`} className={styles.hint}>
              {said}
            </p>
          )}
        </div>
      );
    };
    return (
      <section className={styles.section} aria-labelledby={`${baseId}-form`}>
        <h1 id={`${baseId}-form`} className={styles.title}>
          {ctx.draft.id ? t('templates.form.editTitle') : t('templates.form.newTitle')}
        </h1>
        <form
          className={styles.form}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'draft.save' });
          }}
        >
          {field('name', t('templates.form.name'), ctx.draft.name, REPLY_TEMPLATE_LIMITS.nameMax, false, (value) => actor.send({ type: 'draft.name', value }))}
          {ctx.languages.map((l) =>
            field(`texts.${l}`, t('templates.form.text', { language: LANGUAGE_NAMES[l] }), ctx.draft.texts[l] ?? '', REPLY_TEMPLATE_LIMITS.textMax, true, (value) => actor.send({ type: 'draft.text', language: l, value }), toBcp47(l)),
          )}
          {problem}
          <div role="status">{saving && <p>{t('templates.form.saving')}</p>}</div>
          <div className={admin.actions}>
            <button type="submit" className={buttons.button} disabled={!state.can({ type: 'draft.save' })}>
              {t('templates.form.save')}
            </button>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'draft.cancel' })} onClick={() => actor.send({ type: 'draft.cancel' })}>
              {t('templates.form.cancel')}
            </button>
          </div>
        </form>
      </section>
    );
  }

  const deleting = ctx.templates.find((x) => x.id === ctx.deletingId);
  return (
    <div>
      <h1 className={styles.title}>{title}</h1>
      <p>{t('templates.intro')}</p>
      {problem}
      {ctx.templates.length === 0 ? (
        <p>{t('templates.empty')}</p>
      ) : (
        <ul className={styles.list} data-testid="templates">
          {ctx.templates.map((tpl) => (
            <li key={tpl.id} className={styles.message}>
              <h2 className={styles.sectionTitle}>{tpl.name}</h2>
              <p className={styles.hint}>{t('templates.languages', { languages: ctx.languages.filter((l) => tpl.texts[l]).map((l) => LANGUAGE_NAMES[l]).join(', ') })}</p>
              <p className={styles.pre}>{tpl.texts[ctx.defaultLanguage] ?? ''}</p>
              <div className={admin.actions}>
                <button type="button" className={`${buttons.secondaryButton} ${admin.small}`} disabled={!state.can({ type: 'template.edit', id: tpl.id })} onClick={() => actor.send({ type: 'template.edit', id: tpl.id })}>
                  {t('templates.edit', { name: tpl.name })}
                </button>
                <button type="button" className={`${buttons.secondaryButton} ${admin.small}`} disabled={!state.can({ type: 'template.delete', id: tpl.id })} onClick={() => actor.send({ type: 'template.delete', id: tpl.id })}>
                  {t('templates.delete', { name: tpl.name })}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <p>
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'template.new' })} onClick={() => actor.send({ type: 'template.new' })}>
          {t('templates.new')}
        </button>
      </p>
      <ConfirmDialog
        open={state.matches('confirmingDelete') || state.matches('deleting')}
        title={t('templates.remove.title')}
        description={t('templates.remove.text', { name: deleting?.name ?? '' })}
        cancelLabel={t('templates.remove.cancel')}
        confirmLabel={t('templates.remove.confirm')}
        confirmDisabled={!state.can({ type: 'delete.confirm' })}
        cancelDisabled={!state.can({ type: 'delete.cancel' })}
        onCancel={() => actor.send({ type: 'delete.cancel' })}
        onConfirm={() => actor.send({ type: 'delete.confirm' })}
      />
    </div>
  );
}
