/**
 * /handler/cases: every case this handler may see (machines/handler/inbox.ts): filters
 * (status, channel, assignment, open only, case number) and the sort start from the
 * address and are written back to it, so a visit to a case and back keeps them.
 */
import { useEffect, useId } from 'react';
import { PathLink, useReplacePath, useSearchString } from './links.tsx';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useT } from '../i18n/index.ts';
import '../i18n/paging/index.ts';
import '../i18n/work/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { CASE_STATUSES, INBOX_ASSIGNED, SUBMISSION_TYPES } from '../../machines/schema.ts';
import {
  inboxFiltersOf,
  inboxMachine,
  inboxRows,
  inboxSearchOf,
  isFeedbackDueSoon,
  SORT_COLUMNS,
  type AssignedFilter,
  type ChannelFilter,
  type SortColumn,
  type StatusFilter,
} from '../../machines/handler/inbox.ts';
import { formatReceiptDate } from '../i18n/dates.ts';
import { useHandler } from './context.ts';
import { DeadlineText } from './deadline.tsx';
import * as styles from './Pages.css.ts';
import * as inboxStyles from './InboxPage.css.ts';
import { ChannelName } from './ChannelName.tsx';
import { EnterReportLink } from './EnterReportLink.tsx';

const spaced = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

/** Each column's heading, in the catalogues the workspace already has where one fits. */
const HEADINGS: Record<SortColumn, ['handler' | 'work', string]> = {
  case: ['handler', 'handler.inbox.col.case'],
  assignee: ['work', 'work.inbox.col.assignee'],
  officer: ['handler', 'handler.case.officer'],
  subsidiary: ['handler', 'handler.case.subsidiary'],
  channel: ['handler', 'handler.inbox.col.channel'],
  received: ['handler', 'handler.inbox.col.received'],
  status: ['handler', 'handler.inbox.col.status'],
  unread: ['handler', 'handler.inbox.col.unread'],
  answer: ['handler', 'handler.inbox.col.pending'],
  deadline: ['handler', 'handler.inbox.col.deadline'],
  deletion: ['handler', 'handler.inbox.col.deletion'],
};

export function InboxPage() {
  const t = useT('handler');
  const tp = useT('paging');
  const tw = useT('work');
  const { api, session } = useHandler();
  const me = useSelector(session, (s) => s.context.handler?.id);
  const search = useSearchString();
  const replace = useReplacePath();
  const actor = useActorRef(
    inboxMachine.provide({
      actors: { loadInbox: fromPromise(({ input }) => api.loadInbox(input)) },
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
    { input: { filters: inboxFiltersOf(search) } },
  );
  const state = useSelector(actor, (s) => s);
  const ids = { status: useId(), channel: useId(), search: useId(), assigned: useId(), open: useId(), sort: useId() };
  useEffect(() => {
    document.title = `${t('handler.inbox.title')} – ${t('handler.title')}`;
  }, [t]);
  const c = state.context;
  const query = inboxSearchOf(c);
  // The address follows the filters (replace: no history entry per key typed).
  useEffect(() => {
    if (query !== search) replace(`/handler/cases${query ? `?${query}` : ''}`);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query]);
  const rows = inboxRows(c, me);
  const now = Date.now();
  const heading = (col: SortColumn) => (HEADINGS[col][0] === 'work' ? tw(HEADINGS[col][1]) : t(HEADINGS[col][1]));
  const caseHref = (n: string) => `/handler/cases/${n}${query ? `?inbox=${encodeURIComponent(query)}` : ''}`;

  return (
    <div>
      <h1 className={styles.title}>{t('handler.inbox.title')}</h1>
      <EnterReportLink />
      <section className={styles.section} aria-label={t('handler.inbox.filters')}>
        <div className={styles.row}>
          <div className={styles.field}>
            <label htmlFor={ids.status} className={styles.label}>
              {t('handler.inbox.status')}
            </label>
            <select id={ids.status} className={input} value={c.status} onChange={(e) => actor.send({ type: 'filter.status', value: e.target.value as StatusFilter })}>
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
            <select id={ids.channel} className={input} value={c.channel} onChange={(e) => actor.send({ type: 'filter.channel', value: e.target.value as ChannelFilter })}>
              <option value="ALL">{t('handler.inbox.all')}</option>
              {SUBMISSION_TYPES.map((s) => (
                <option key={s} value={s}>
                  {t(`handler.channel.${s}`)}
                </option>
              ))}
            </select>
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.assigned} className={styles.label}>
              {tw('work.inbox.assigned')}
            </label>
            <select id={ids.assigned} name="assigned" className={input} value={c.assigned} onChange={(e) => actor.send({ type: 'filter.assigned', value: e.target.value as AssignedFilter })}>
              {(['ALL', ...INBOX_ASSIGNED] as const).map((a) => (
                <option key={a} value={a}>
                  {tw(`work.inbox.assigned.${a}`)}
                </option>
              ))}
            </select>
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.search} className={styles.label}>
              {t('handler.inbox.search')}
            </label>
            <input id={ids.search} type="search" inputMode="numeric" className={input} value={c.search} onChange={(e) => actor.send({ type: 'search.change', value: e.target.value })} />
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.sort} className={styles.label}>
              {tw('work.inbox.sort')}
            </label>
            <select
              id={ids.sort}
              name="sort"
              className={input}
              value={`${c.sort.column}:${c.sort.descending ? 'desc' : 'asc'}`}
              onChange={(e) => {
                const [column, dir] = e.target.value.split(':') as [SortColumn, string];
                actor.send({ type: 'sort.by', column, descending: dir === 'desc' });
              }}
            >
              {SORT_COLUMNS.flatMap((col) =>
                (['asc', 'desc'] as const).map((dir) => (
                  <option key={`${col}:${dir}`} value={`${col}:${dir}`}>
                    {tw(dir === 'asc' ? 'work.inbox.ascending' : 'work.inbox.descending', { column: heading(col) })}
                  </option>
                )),
              )}
            </select>
          </div>
          <label className={styles.checkbox} htmlFor={ids.open}>
            <input id={ids.open} name="open" type="checkbox" checked={c.openOnly} onChange={(e) => actor.send({ type: 'filter.open', value: e.target.checked })} />
            {tw('work.inbox.openOnly')}
          </label>
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
        <div role="region" aria-label={t('handler.inbox.title')} aria-busy={!state.matches({ shown: 'ready' })}>
          <table className={inboxStyles.table}>
            <caption className={styles.caption}>{t('handler.inbox.count', { count: rows.length })}</caption>
            <thead className={inboxStyles.head}>
              <tr>
                {SORT_COLUMNS.map((col) => (
                  <th key={col} scope="col" aria-sort={c.sort.column === col ? (c.sort.descending ? 'descending' : 'ascending') : undefined}>
                    {/* Named by its heading alone (the filters' labels stay unique); aria-sort on the cell says the order. */}
                    <button type="button" className={inboxStyles.sortButton} data-sort={col} title={tw('work.inbox.sortBy', { column: heading(col) })} onClick={() => actor.send({ type: 'sort.by', column: col })}>
                      {heading(col)}
                      <span aria-hidden="true">{c.sort.column === col ? (c.sort.descending ? ' ↓' : ' ↑') : ''}</span>
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.caseNumber} data-case={r.caseNumber}>
                  <td data-label={heading('case')}>
                    <PathLink href={caseHref(r.caseNumber)}>{spaced(r.caseNumber)}</PathLink>
                  </td>
                  <td data-label={heading('assignee')} data-assignee={r.assignee?.name ?? ''}>
                    {r.assignee ? r.assignee.name : tw('work.inbox.nobody')}
                    {r.sharedWithMe && <span className={inboxStyles.muted}>{` (${tw('work.inbox.sharedWithMe')})`}</span>}
                  </td>
                  <td data-label={heading('officer')}>{r.officerName ?? t('handler.inbox.none')}</td>
                  <td data-label={heading('subsidiary')}>{r.subsidiary?.name ?? t('handler.inbox.none')}</td>
                  <td data-label={heading('channel')}>
                    <ChannelName type={r.submission.type} entered={r.entryChannel} />
                  </td>
                  <td data-label={heading('received')}>{r.receivedDate ? formatReceiptDate(r.receivedDate) : t('handler.inbox.notReceived')}</td>
                  <td data-label={heading('status')}>{t(`handler.status.${r.status}`)}</td>
                  <td data-label={heading('unread')} data-unread={r.unreadMessages}>
                    {r.unreadMessages > 0 ? <span className={styles.badge}>{t('handler.inbox.unread', { count: r.unreadMessages })}</span> : t('handler.inbox.none')}
                  </td>
                  <td data-label={heading('answer')}>{r.pendingWhistleblowerAction ? t('handler.inbox.pendingYes') : t('handler.inbox.none')}</td>
                  <td data-label={heading('deadline')}>
                    <DeadlineText deadline={r.deadline} now={now} />
                    {isFeedbackDueSoon(r, now) && (
                      <span className={inboxStyles.marker} data-marker="feedback-soon">
                        {tw('work.inbox.feedbackSoon')}
                      </span>
                    )}
                  </td>
                  <td data-label={heading('deletion')} data-deletion={r.scheduledDeletion ?? undefined}>
                    {r.scheduledDeletion ? formatReceiptDate(r.scheduledDeletion) : t('handler.inbox.deletionNone')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {rows.length === 0 && <p>{t('handler.inbox.empty')}</p>}
        </div>
      )}
      {state.hasTag('rows') && c.nextCursor !== null && (
        <div className={styles.section}>
          <p aria-live="polite">{state.matches({ shown: 'loadingMore' }) ? tp('paging.loadingMore') : tp('paging.partial', { shown: c.cases.length })}</p>
          {c.moreFailed && (
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
