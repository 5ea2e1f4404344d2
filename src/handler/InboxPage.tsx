/** /handler/cases: every case this handler may see, nearest legal deadline first (machines/handler/inbox.ts). */
import { useEffect, useId } from 'react';
import { HLink } from './links.tsx';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useT } from '../i18n/index.ts';
import '../i18n/paging/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { CASE_STATUSES, SUBMISSION_TYPES } from '../../machines/schema.ts';
import { inboxMachine, inboxRows, type ChannelFilter, type StatusFilter } from '../../machines/handler/inbox.ts';
import { formatReceiptDate } from '../i18n/dates.ts';
import { useHandler } from './context.ts';
import { DeadlineText } from './deadline.tsx';
import * as styles from './Pages.css.ts';

const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

export function InboxPage() {
  const t = useT('handler');
  const tp = useT('paging');
  const { api, session } = useHandler();
  const actor = useActorRef(
    inboxMachine.provide({
      actors: { loadInbox: fromPromise(({ input }) => api.loadInbox(input)) },
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const ids = { status: useId(), channel: useId(), search: useId() };
  useEffect(() => {
    document.title = `${t('handler.inbox.title')} – ${t('handler.title')}`;
  }, [t]);
  const rows = inboxRows(state.context);
  const now = Date.now();

  return (
    <div>
      <h1 className={styles.title}>{t('handler.inbox.title')}</h1>
      <section className={styles.section} aria-label={t('handler.inbox.filters')}>
        <div className={styles.row}>
          <div className={styles.field}>
            <label htmlFor={ids.status} className={styles.label}>
              {t('handler.inbox.status')}
            </label>
            <select id={ids.status} className={input} value={state.context.status} onChange={(e) => actor.send({ type: 'filter.status', value: e.target.value as StatusFilter })}>
              <option value="ALL">{t('handler.inbox.all')}</option>
              {CASE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(`handler.status.${s}`)}
                </option>
              ))}
            </select>
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.channel} className={styles.label}>
              {t('handler.inbox.channel')}
            </label>
            <select id={ids.channel} className={input} value={state.context.channel} onChange={(e) => actor.send({ type: 'filter.channel', value: e.target.value as ChannelFilter })}>
              <option value="ALL">{t('handler.inbox.all')}</option>
              {SUBMISSION_TYPES.map((s) => (
                <option key={s} value={s}>
                  {t(`handler.channel.${s}`)}
                </option>
              ))}
            </select>
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.search} className={styles.label}>
              {t('handler.inbox.search')}
            </label>
            <input id={ids.search} type="search" inputMode="numeric" className={input} value={state.context.search} onChange={(e) => actor.send({ type: 'search.change', value: e.target.value })} />
          </div>
          <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'reload' })} onClick={() => actor.send({ type: 'reload' })}>
            {t('handler.inbox.reload')}
          </button>
        </div>
      </section>
      {state.matches('loading') && <p aria-busy="true">{t('handler.loading')}</p>}
      {state.matches('failed') && (
        <p role="alert" className={styles.error}>
          {t('handler.error.load')}
        </p>
      )}
      {state.hasTag('rows') && (
        <div role="region" aria-label={t('handler.inbox.title')} aria-busy={!state.matches({ shown: 'ready' })} tabIndex={0} className={styles.scroll}>
          <table className={styles.table}>
            <caption className={styles.caption}>
              {t('handler.inbox.count', { count: rows.length })}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('handler.inbox.col.case')}</th>
                <th scope="col">{t('handler.inbox.col.channel')}</th>
                <th scope="col">{t('handler.inbox.col.received')}</th>
                <th scope="col">{t('handler.inbox.col.status')}</th>
                <th scope="col">{t('handler.inbox.col.unread')}</th>
                <th scope="col">{t('handler.inbox.col.pending')}</th>
                <th scope="col">{t('handler.inbox.col.deadline')}</th>
                <th scope="col">{t('handler.inbox.col.deletion')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.caseNumber} data-case={c.caseNumber}>
                  <td>
                    <HLink to={{ caseNumber: c.caseNumber }}>
                      {spaced(c.caseNumber)}
                    </HLink>
                  </td>
                  <td>{t(`handler.channel.${c.submission.type}`)}</td>
                  <td>{c.receivedDate ? formatReceiptDate(c.receivedDate) : t('handler.inbox.notReceived')}</td>
                  <td>{t(`handler.status.${c.status}`)}</td>
                  <td>{c.unreadMessages > 0 ? <span className={styles.badge}>{t('handler.inbox.unread', { count: c.unreadMessages })}</span> : t('handler.inbox.none')}</td>
                  <td>{c.pendingWhistleblowerAction ? t('handler.inbox.pendingYes') : t('handler.inbox.none')}</td>
                  <td>
                    <DeadlineText deadline={c.deadline} now={now} />
                  </td>
                  <td data-deletion={c.scheduledDeletion ?? undefined}>{c.scheduledDeletion ? formatReceiptDate(c.scheduledDeletion) : t('handler.inbox.deletionNone')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <p>{t('handler.inbox.empty')}</p>}
        </div>
      )}
      {state.hasTag('rows') && state.context.nextCursor !== null && (
        <div className={styles.section}>
          <p aria-live="polite">{state.matches({ shown: 'loadingMore' }) ? tp('paging.loadingMore') : tp('paging.partial', { shown: state.context.cases.length })}</p>
          {state.context.moreFailed && (
            <p role="alert" className={styles.error}>
              {tp('paging.moreFailed')}
            </p>
          )}
          <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'more.load' })} aria-busy={state.matches({ shown: 'loadingMore' })} onClick={() => actor.send({ type: 'more.load' })}>
            {tp('paging.more')}
          </button>
        </div>
      )}
    </div>
  );
}
