/**
 * /handler/cases/new: a report that came by letter, e-mail or in person, entered by a
 * handler (issue 38 Build 8; docs/decisions/handler-entered-reports.md). The page renders
 * machines/handler/caseEntry.ts: the form, the sealing and sending (./caseEntry.ts), and
 * the slip with the case number and the password, shown once and printable.
 */
import { useEffect, useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useNavigate } from '@tanstack/react-router';
import '../i18n/entry/index.ts';
import '../i18n/work/index.ts';
import { useT } from '../i18n/index.ts';
import * as buttons from '../styles/button.css.ts';
import { input } from '../styles/field.css.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { caseEntryMachine, type EntryField } from '../../machines/handler/caseEntry.ts';
import { ENTRY_CHANNELS, VIOLATIONS, formatCaseNumber, type EnteredReport } from '../../machines/schema.ts';
import { useHandler } from './context.ts';
import { caseEntryEffects } from './caseEntry.ts';
import * as styles from './Pages.css.ts';
import * as css from './CaseEntryPage.css.ts';
import './print.css.ts';

const today = () => new Date().toISOString().slice(0, 10);
/** A received day as the receipt dates show (DD/MM/YYYY), from its own digits: no time zone can move it. */
const dayText = (day: string) => `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;

export function CaseEntryPage() {
  const te = useT('entry');
  const t = useT('handler');
  const tw = useT('work');
  const tc = useT('common');
  const { api, rawApi, session } = useHandler();
  const navigate = useNavigate();
  const actor = useActorRef(
    caseEntryMachine.provide({
      actors: {
        loadChoices: fromPromise(() => caseEntryEffects(rawApi, api.keys).loadChoices()),
        enterCase: fromPromise(({ input: report }: { input: EnteredReport }) => caseEntryEffects(rawApi, api.keys).enterCase(report)),
      },
      actions: {
        reportUnauthorized: () => session.send({ type: 'session.expired' }),
        printSlip: () => window.print(),
      },
    }),
    { input: { receivedOn: today() } },
  );
  const state = useSelector(actor, (s) => s);
  const ids = Object.fromEntries(
    ['channel', 'receivedOn', 'officerId', 'subsidiaryId', 'relation', 'violation', 'description', 'personName', 'personJobTitle', 'personContact', 'unit', 'name', 'email', 'phone', 'errors'].map((k) => [k, `entry-${k}`]),
  ) as Record<string, string>;
  const uid = useId();
  useEffect(() => {
    document.title = `${te('entry.title')} – ${t('handler.title')}`;
  }, [te, t]);
  const done = state.matches('done');
  const made = state.context.caseNumber;
  useEffect(() => {
    if (done && made) void navigate({ to: '/handler/cases/$caseNumber' as never, params: { caseNumber: made } as never, replace: true });
  }, [done, made, navigate]);

  const { draft, issues, choices, slip, failure } = state.context;
  const set = (field: EntryField, value: string | boolean) => actor.send({ type: 'field.change', field, value });
  const issueText = (key: string | undefined) =>
    !key ? '' : key.startsWith('entry.') ? te(key) : key === 'validation.reportRelated' ? te('entry.reportRelated') : tc(key, { example: '+45 12 34 56 78' });
  /** The field's hint and its complaint, as its description. */
  const described = (field: string, hint = false) => {
    const by = [hint ? `${ids[field]}-hint` : '', issues[field] ? `${ids[field] ?? field}-issue` : ''].filter(Boolean).join(' ');
    return { ...(by ? { 'aria-describedby': by } : {}), ...(issues[field] ? { 'aria-invalid': true as const } : {}) };
  };
  const issueOf = (field: string) =>
    issues[field] ? (
      <p id={`${ids[field] ?? field}-issue`} className={styles.error}>
        {issueText(issues[field])}
      </p>
    ) : null;
  const text = (field: EntryField, label: string, opts: { type?: string; area?: boolean; required?: boolean; hint?: string } = {}) => (
    <div className={styles.field}>
      <label htmlFor={ids[field]} className={styles.label}>
        {label}
        {opts.required ? ' *' : ''}
      </label>
      {opts.hint && (
        <p id={`${ids[field]}-hint`} className={styles.hint}>
          {opts.hint}
        </p>
      )}
      {opts.area ? (
        <textarea id={ids[field]} className={`${input} ${styles.textarea}`} value={String(draft[field])} onChange={(e) => set(field, e.target.value)} {...described(field)} />
      ) : (
        <input
          id={ids[field]}
          type={opts.type ?? 'text'}
          className={input}
          value={String(draft[field])}
          onChange={(e) => set(field, e.target.value)}
          {...described(field, !!opts.hint)}
        />
      )}
      {issueOf(field)}
    </div>
  );

  if (state.matches('loading')) return <p aria-busy="true">{te('entry.loading')}</p>;
  if (state.matches('unreachable')) {
    return (
      <div className={styles.narrow}>
        <h1 className={styles.title}>{te('entry.title')}</h1>
        <p role="alert">{te('entry.unreachable')}</p>
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'choices.retry' })} onClick={() => actor.send({ type: 'choices.retry' })}>
          {te('entry.retry')}
        </button>
      </div>
    );
  }

  if (state.matches('entered') && slip) {
    return (
      <div className={styles.narrow}>
        <h1 className={styles.title}>{te('entry.slip.title')}</h1>
        <section className={css.slip} data-testid="entry-slip" aria-labelledby={`${uid}-slip`}>
          <h2 id={`${uid}-slip`} className={styles.sectionTitle}>
            {te(`entry.channel.${slip.channel}`)} · {dayText(slip.receivedOn)}
          </h2>
          <p>{slip.password ? te('entry.slip.intro') : te('entry.slip.noFollow')}</p>
          <dl className={styles.dl}>
            <dt>{te('entry.slip.caseNumber')}</dt>
            <dd className={css.secret} data-testid="slip-case-number">
              {formatCaseNumber(slip.caseNumber)}
            </dd>
            {slip.password && (
              <>
                <dt>{te('entry.slip.password')}</dt>
                <dd className={css.secret} data-testid="slip-password">
                  {slip.password}
                </dd>
              </>
            )}
            <dt>{te('entry.slip.channel')}</dt>
            <dd>{te(`entry.channel.${slip.channel}`)}</dd>
            <dt>{te('entry.slip.receivedOn')}</dt>
            <dd>{dayText(slip.receivedOn)}</dd>
          </dl>
          {slip.password && <p>{te('entry.slip.signIn', { url: `${window.location.origin}/private` })}</p>}
          <div className={css.actions}>
            <button type="button" className={buttons.button} disabled={!state.can({ type: 'slip.print' })} onClick={() => actor.send({ type: 'slip.print' })}>
              {te('entry.slip.print')}
            </button>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'slip.close' })} onClick={() => actor.send({ type: 'slip.close' })}>
              {te('entry.slip.close')}
            </button>
          </div>
        </section>
        <ConfirmDialog
          open={state.matches({ entered: 'confirmingClose' })}
          title={te('entry.slip.confirm.title')}
          description={te('entry.slip.confirm.body')}
          cancelLabel={te('entry.slip.confirm.no')}
          confirmLabel={te('entry.slip.confirm.yes')}
          onCancel={() => actor.send({ type: 'close.cancel' })}
          onConfirm={() => actor.send({ type: 'close.confirm' })}
        />
      </div>
    );
  }

  const busy = state.hasTag('busy');
  const hasIssues = Object.keys(issues).length > 0;
  return (
    <div className={styles.narrow}>
      <h1 className={styles.title}>{te('entry.title')}</h1>
      <p>{te('entry.intro')}</p>
      {state.matches('failed') && (
        <div role="alert" className={styles.section}>
          <p className={styles.error}>{te('entry.failed', { code: failure ?? '' })}</p>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'entry.retry' })} onClick={() => actor.send({ type: 'entry.retry' })}>
            {te('entry.backToForm')}
          </button>
        </div>
      )}
      <form
        className={styles.form}
        aria-describedby={hasIssues ? ids.errors : undefined}
        onSubmit={(e) => {
          e.preventDefault();
          actor.send({ type: 'entry.submit' });
        }}
      >
        <fieldset className={`${css.fieldset} ${styles.section}`} disabled={!state.matches('editing')}>
          <legend className={css.legend}>{te('entry.section.how')}</legend>
          <div className={styles.field}>
            <label htmlFor={ids.channel} className={styles.label}>
              {te('entry.channel.label')}
            </label>
            <select id={ids.channel} className={input} value={draft.channel} onChange={(e) => set('channel', e.target.value)}>
              {ENTRY_CHANNELS.map((c) => (
                <option key={c} value={c}>
                  {te(`entry.channel.${c}`)}
                </option>
              ))}
            </select>
          </div>
          {text('receivedOn', te('entry.receivedOn'), { type: 'date', required: true, hint: te('entry.receivedOn.hint') })}
          <div className={styles.field}>
            <label htmlFor={ids.officerId} className={styles.label}>
              {te('entry.officer')} *
            </label>
            <select id={ids.officerId} className={input} value={draft.officerId} onChange={(e) => set('officerId', e.target.value)} {...described('officerId')}>
              <option value="">{te('entry.officer.choose')}</option>
              {choices.officers.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
            {issueOf('officerId')}
          </div>
          {choices.subsidiaries.length > 0 && (
            <div className={styles.field}>
              <label htmlFor={ids.subsidiaryId} className={styles.label}>
                {te('entry.subsidiary')}
              </label>
              <select id={ids.subsidiaryId} className={input} value={draft.subsidiaryId} onChange={(e) => set('subsidiaryId', e.target.value)}>
                <option value="">{te('entry.subsidiary.none')}</option>
                {choices.subsidiaries.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            </div>
          )}
        </fieldset>

        <fieldset className={`${css.fieldset} ${styles.section}`} disabled={!state.matches('editing')}>
          <legend className={css.legend}>{te('entry.section.report')}</legend>
          {text('relation', te('entry.relation'), { required: true })}
          <div className={styles.field}>
            <label htmlFor={ids.violation} className={styles.label}>
              {te('entry.violation')}
            </label>
            <select id={ids.violation} className={input} value={draft.violation} onChange={(e) => set('violation', e.target.value)}>
              {VIOLATIONS.map((x) => (
                <option key={x} value={x}>
                  {tw(`work.violation.${x}`)}
                </option>
              ))}
            </select>
          </div>
          {text('description', te('entry.description'), { area: true, required: true })}
          <fieldset className={css.fieldset} {...(issues.repeated ? { 'aria-describedby': `${uid}-repeated-issue` } : {})}>
            <legend className={styles.label}>{te('entry.repeated')} *</legend>
            <div className={css.choices}>
              {(['yes', 'no'] as const).map((x) => (
                <label key={x} className={css.choice}>
                  <input type="radio" name={`${uid}-repeated`} value={x} checked={draft.repeated === x} onChange={() => set('repeated', x)} />
                  {te(`entry.${x}`)}
                </label>
              ))}
            </div>
            {issues.repeated && (
              <p id={`${uid}-repeated-issue`} className={styles.error}>
                {issueText(issues.repeated)}
              </p>
            )}
          </fieldset>
        </fieldset>

        <fieldset className={`${css.fieldset} ${styles.section}`} disabled={!state.matches('editing')} {...(issues.reportedPersons ? { 'aria-describedby': `${uid}-about-issue` } : {})}>
          <legend className={css.legend}>{te('entry.section.about')}</legend>
          <p className={styles.hint}>{te('entry.about.hint')}</p>
          {issues.reportedPersons && (
            <p id={`${uid}-about-issue`} className={styles.error}>
              {issueText(issues.reportedPersons)}
            </p>
          )}
          {text('personName', te('entry.person.name'))}
          {text('personJobTitle', te('entry.person.jobTitle'))}
          {text('personContact', te('entry.person.contact'))}
          {text('unit', te('entry.unit'))}
        </fieldset>

        <fieldset className={`${css.fieldset} ${styles.section}`} disabled={!state.matches('editing')}>
          <legend className={css.legend}>{te('entry.section.reporter')}</legend>
          <label className={styles.checkbox}>
            <input type="checkbox" checked={draft.identified} onChange={(e) => set('identified', e.target.checked)} />
            {te('entry.identified')}
          </label>
          {draft.identified && (
            <>
              {text('name', te('entry.name'), { required: true })}
              {text('email', te('entry.email'), { type: 'email' })}
              {text('phone', te('entry.phone'), { type: 'tel' })}
            </>
          )}
          <label className={styles.checkbox}>
            <input type="checkbox" checked={draft.follow} onChange={(e) => set('follow', e.target.checked)} aria-describedby={`${uid}-follow-hint`} />
            {te('entry.follow')}
          </label>
          <p id={`${uid}-follow-hint`} className={styles.hint}>
            {te('entry.follow.hint')}
          </p>
        </fieldset>

        {hasIssues && (
          <p id={ids.errors} role="alert" className={styles.error}>
            {te('entry.errors')}
          </p>
        )}
        {busy && (
          <p role="status" aria-busy="true">
            {te('entry.entering')}
          </p>
        )}
        <div>
          <button type="submit" className={buttons.button} disabled={!state.can({ type: 'entry.submit' })}>
            {te('entry.submit')}
          </button>
        </div>
      </form>
    </div>
  );
}
