/** Who works on the case (machines/handler/assignment.ts): assignee, shares, and the acts on them. */
import { useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useT } from '../i18n/index.ts';
import '../i18n/work/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { assignmentMachine, type AssignmentAct } from '../../machines/handler/assignment.ts';
import { useHandler } from './context.ts';
import * as styles from './Pages.css.ts';

export function Assignment({ caseNumber, sealed, onChanged }: { caseNumber: string; sealed: boolean; onChanged: () => void }) {
  const tw = useT('work');
  const t = useT('handler');
  const { api, session } = useHandler();
  const actor = useActorRef(
    assignmentMachine.provide({
      actors: {
        loadAssignment: fromPromise(({ input: i }: { input: { caseNumber: string } }) => api.loadAssignment(i.caseNumber)),
        changeAssignment: fromPromise(({ input: i }: { input: { caseNumber: string; act: AssignmentAct } }) => api.changeAssignment(i.caseNumber, i.act)),
      },
      actions: { reloadCase: onChanged, reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
    { input: { caseNumber } },
  );
  const state = useSelector(actor, (s) => s);
  const colleagueId = useId();
  const a = state.context.assignment;
  const busy = state.matches('changing');

  return (
    <section className={styles.section} aria-labelledby="case-assignment" data-testid="assignment" aria-busy={state.matches('loading') || busy}>
      <h2 id="case-assignment" className={styles.sectionTitle}>
        {tw('work.assign.title')}
      </h2>
      {state.matches('loading') && <p>{t('handler.loading')}</p>}
      {state.matches('failed') && (
        <div role="alert">
          <p className={styles.error}>{tw('work.assign.failed')}</p>
          <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'retry' })}>
            {tw('work.assign.retry')}
          </button>
        </div>
      )}
      {a && (
        <>
          <dl className={styles.dl}>
            <dt>{tw('work.assign.assignee')}</dt>
            <dd data-testid="assignee">{a.assignee?.name ?? tw('work.inbox.nobody')}</dd>
            <dt>{tw('work.assign.shares')}</dt>
            <dd data-testid="shares">{a.shares.length ? a.shares.map((x) => x.name).join(', ') : tw('work.inbox.nobody')}</dd>
          </dl>
          {sealed && <p className={styles.hint}>{tw('work.assign.sealedNote')}</p>}
          <div className={styles.row}>
            <div className={styles.field}>
              <label htmlFor={colleagueId} className={styles.label}>
                {tw('work.assign.colleague')}
              </label>
              <select id={colleagueId} name="colleague" className={input} value={state.context.chosen ?? ''} onChange={(e) => actor.send({ type: 'colleague.choose', handlerId: e.target.value })}>
                <option value="" disabled>
                  {tw('work.assign.choose')}
                </option>
                {a.colleagues.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </div>
            <button type="button" className={buttons.button} data-act="assign" disabled={!state.can({ type: 'assign' })} onClick={() => actor.send({ type: 'assign' })}>
              {a.assignee ? tw('work.assign.handOver') : tw('work.assign.assign')}
            </button>
            <button type="button" className={buttons.secondaryButton} data-act="share" disabled={!state.can({ type: 'share' })} onClick={() => actor.send({ type: 'share' })}>
              {tw('work.assign.share')}
            </button>
            {a.assignee && (
              <button type="button" className={buttons.secondaryButton} data-act="unassign" disabled={!state.can({ type: 'unassign' })} onClick={() => actor.send({ type: 'unassign' })}>
                {tw('work.assign.unassign')}
              </button>
            )}
          </div>
          {a.shares.length > 0 && (
            <ul className={styles.list}>
              {a.shares.map((x) => (
                <li key={x.id}>
                  <button type="button" className={buttons.secondaryButton} data-act="unshare" disabled={!state.can({ type: 'unshare', handlerId: x.id })} onClick={() => actor.send({ type: 'unshare', handlerId: x.id })}>
                    {tw('work.assign.unshare', { name: x.name })}
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div role="status">
            {state.context.refused && (
              <p className={styles.error} data-refused={state.context.refused}>
                {state.context.refused === 'COLLEAGUE_NOT_ENTITLED' ? tw('work.assign.refused.COLLEAGUE_NOT_ENTITLED') : tw('work.assign.refused.other')}
              </p>
            )}
          </div>
        </>
      )}
    </section>
  );
}
