/**
 * /handler/statistics: counts per category of the company's cases, opened and counted in
 * this browser with the statistics keys (./statistics.ts); while the company has none, a
 * certified handler makes it here, a holder gives it to a colleague certified later, and
 * a certified holder makes a new one (each through a confirmation). A handler without
 * it is told so and who can give it. The chart decides
 * (machines/handler/statistics.ts); the page reads its snapshot and sends events.
 */
import { useEffect, type ReactNode } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useT } from '../i18n/index.ts';
import * as buttons from '../styles/button.css.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { statisticsMachine, type StatisticsColleague, type StatisticsCounts } from '../../machines/handler/statistics.ts';
import { VIOLATIONS } from '../../machines/schema.ts';
import type { OpenedKeys } from '../../machines/handler/session.ts';
import { useHandler } from './context.ts';
import { statisticsEffects } from './statistics.ts';
import * as styles from './Pages.css.ts';
import * as own from './StatisticsPage.css.ts';

const CHANNELS = ['ONLINE_FORM', 'PHONE', 'MEETING'] as const;

export function StatisticsPage() {
  const t = useT('statistics');
  const th = useT('handler');
  const { session } = useHandler();
  const unlocked = useSelector(session, (s) => s.matches({ signedIn: { keys: 'keysUnlocked' } }));
  const keys = useSelector(session, (s) => s.context.keys);
  useEffect(() => {
    document.title = `${t('statistics.title')} – ${th('handler.title')}`;
  }, [t, th]);
  return (
    <div className={styles.narrow}>
      <h1 className={styles.title}>{t('statistics.title')}</h1>
      <p>{t('statistics.intro')}</p>
      {unlocked && keys ? <Statistics keys={keys} /> : <p>{t('statistics.locked')}</p>}
    </div>
  );
}

function Statistics({ keys }: { keys: OpenedKeys }) {
  const t = useT('statistics');
  const { api, rawApi } = useHandler();
  const actor = useActorRef(
    statisticsMachine.provide({
      actors: {
        loadStatistics: fromPromise(() => statisticsEffects(rawApi, api.keys).load(keys)),
        publishKey: fromPromise(() => statisticsEffects(rawApi, api.keys).publish(keys)),
        giveKey: fromPromise<{ status: number }, StatisticsColleague>(({ input }) => statisticsEffects(rawApi, api.keys).give(keys, input)),
        rotateKey: fromPromise(() => statisticsEffects(rawApi, api.keys).rotate(keys)),
      },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const retry = (
    <button type="button" className={buttons.button} disabled={!state.can({ type: 'retry' })} onClick={() => actor.send({ type: 'retry' })}>
      {t('statistics.retry')}
    </button>
  );

  if (state.matches('loading')) return <p aria-busy="true">{t('statistics.loading')}</p>;
  if (state.matches('notHolder')) {
    const { holders } = state.context;
    return (
      <section className={styles.section} aria-labelledby="stats-key-title">
        <h2 id="stats-key-title" className={styles.sectionTitle}>
          {t('statistics.key.title')}
        </h2>
        <p role="status" data-testid="statistics-state">
          {t('statistics.notHolder')}
        </p>
        <p data-testid="statistics-holders">{holders.length ? t('statistics.notHolder.holders', { names: holders.join(', '), count: holders.length }) : t('statistics.notHolder.nobody')}</p>
        {!state.context.certified && <p data-testid="statistics-uncertified">{t('statistics.notHolder.uncertified')}</p>}
        {retry}
      </section>
    );
  }
  if (state.matches('unreachable') || state.matches('refused')) {
    const text = state.matches('refused') ? t('statistics.refused', { reason: state.context.reason }) : t('statistics.unreachable');
    return (
      <section className={styles.section}>
        <p role="alert" className={styles.error} data-testid="statistics-state">
          {text}
        </p>
        {retry}
      </section>
    );
  }
  const counting = ['counted', 'confirmingGive', 'giving', 'confirmingRotate', 'rotating'].some((s) => state.matches(s as 'counted'));
  if (counting && state.context.counts) {
    const { recipient, colleagues, given, rotated } = state.context;
    // The dialog keeps its name while `giving` (the machine keeps the recipient until the answer).
    const name = recipient?.name ?? '';
    return (
      <>
        <Counts counts={state.context.counts} retry={retry} />
        <div role="status" data-testid="statistics-news">
          {given && <p className={styles.success}>{t('statistics.give.done', { name: given })}</p>}
          {rotated && <p className={styles.success}>{t('statistics.rotate.done')}</p>}
        </div>
        {colleagues.length > 0 && (
          <section className={styles.section} aria-labelledby="stats-give-title">
            <h2 id="stats-give-title" className={styles.sectionTitle}>
              {t('statistics.give.title')}
            </h2>
            <p>{t('statistics.give.text')}</p>
            <ul className={styles.list}>
              {colleagues.map((c) => (
                <li key={c.recipientKeyId}>
                  <button type="button" className={buttons.button} disabled={!state.can({ type: 'key.give', recipientKeyId: c.recipientKeyId })} onClick={() => actor.send({ type: 'key.give', recipientKeyId: c.recipientKeyId })}>
                    {state.matches('giving') && recipient?.recipientKeyId === c.recipientKeyId ? t('statistics.give.busy') : t('statistics.give.button', { name: c.name })}
                  </button>
                </li>
              ))}
            </ul>
            <div role="alert">{state.matches({ counted: 'giveFailed' }) && <p className={styles.error}>{t('statistics.give.failed')}</p>}</div>
          </section>
        )}
        {state.context.canRotate && (
          <section className={styles.section} aria-labelledby="stats-rotate-title">
            <h2 id="stats-rotate-title" className={styles.sectionTitle}>
              {t('statistics.rotate.title')}
            </h2>
            <p>{t('statistics.rotate.text')}</p>
            <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'key.rotate' })} onClick={() => actor.send({ type: 'key.rotate' })}>
              {state.matches('rotating') ? t('statistics.rotate.busy') : t('statistics.rotate.make')}
            </button>
            <div role="alert">{state.matches({ counted: 'rotateFailed' }) && <p className={styles.error}>{t('statistics.rotate.failed')}</p>}</div>
          </section>
        )}
        <ConfirmDialog
          open={state.matches('confirmingGive') || state.matches('giving')}
          title={t('statistics.give.confirmTitle', { name })}
          description={t('statistics.give.confirmText', { name })}
          cancelLabel={t('statistics.give.cancel')}
          confirmLabel={t('statistics.give.confirm')}
          confirmDisabled={!state.can({ type: 'give.confirm' })}
          cancelDisabled={!state.can({ type: 'give.cancel' })}
          onCancel={() => actor.send({ type: 'give.cancel' })}
          onConfirm={() => actor.send({ type: 'give.confirm' })}
        />
        <ConfirmDialog
          open={state.matches('confirmingRotate') || state.matches('rotating')}
          title={t('statistics.rotate.confirmTitle')}
          description={t('statistics.rotate.confirmText')}
          cancelLabel={t('statistics.rotate.cancel')}
          confirmLabel={t('statistics.rotate.confirm')}
          confirmDisabled={!state.can({ type: 'rotate.confirm' })}
          cancelDisabled={!state.can({ type: 'rotate.cancel' })}
          onCancel={() => actor.send({ type: 'rotate.cancel' })}
          onConfirm={() => actor.send({ type: 'rotate.confirm' })}
        />
      </>
    );
  }
  return (
    <section className={styles.section} aria-labelledby="stats-key-title">
      <h2 id="stats-key-title" className={styles.sectionTitle}>
        {t('statistics.key.title')}
      </h2>
      <p>{t('statistics.key.text')}</p>
      {!state.context.canPublish && <p data-testid="statistics-state">{t('statistics.key.needCertified')}</p>}
      <div role="alert">{state.matches({ noKey: 'failed' }) && <p className={styles.error}>{t('statistics.key.failed')}</p>}</div>
      {state.context.canPublish && (
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'key.publish' })} onClick={() => actor.send({ type: 'key.publish' })}>
          {state.matches('publishing') ? t('statistics.key.busy') : t('statistics.key.make')}
        </button>
      )}
      <ConfirmDialog
        open={state.matches('confirmingPublish') || state.matches('publishing')}
        title={t('statistics.key.confirmTitle')}
        description={t('statistics.key.confirmText')}
        cancelLabel={t('statistics.key.cancel')}
        confirmLabel={t('statistics.key.confirm')}
        confirmDisabled={!state.can({ type: 'publish.confirm' })}
        cancelDisabled={!state.can({ type: 'publish.cancel' })}
        onCancel={() => actor.send({ type: 'publish.cancel' })}
        onConfirm={() => actor.send({ type: 'publish.confirm' })}
      />
    </section>
  );
}

function Counts({ counts, retry }: { counts: StatisticsCounts; retry: ReactNode }) {
  const t = useT('statistics');
  // Known categories in the form's order, then anything else a box held (shown as it came, never dropped).
  const rows = (known: readonly string[], got: Record<string, number>, label: (k: string) => string) => [
    ...known.filter((k) => got[k]).map((k) => [k, label(k), got[k]!] as const),
    ...Object.keys(got)
      .filter((k) => !known.includes(k))
      .sort()
      .map((k) => [k, t('statistics.other', { value: k }), got[k]!] as const),
  ];
  const violations = rows([...VIOLATIONS, 'none'], counts.violation, (k) => t(`statistics.violation.${k}`));
  const channels = rows(CHANNELS, counts.channel, (k) => t(`statistics.channel.${k}`));
  const table = (id: string, caption: string, head: string, list: typeof violations) => (
    <table className={own.counts} data-testid={id}>
      <caption className={own.caption}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col" className={own.cell}>
            {head}
          </th>
          <th scope="col" className={own.number}>
            {t('statistics.cases')}
          </th>
        </tr>
      </thead>
      <tbody>
        {list.map(([k, label, n]) => (
          <tr key={k} data-category={k}>
            <th scope="row" className={own.cell}>
              {label}
            </th>
            <td className={own.number}>{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
  return (
    <section className={styles.section} aria-labelledby="stats-counts-title">
      <h2 id="stats-counts-title" className={styles.sectionTitle}>
        {t('statistics.counts.title')}
      </h2>
      <p role="status" data-testid="statistics-total">
        {t('statistics.total', { count: counts.total })}
      </p>
      {counts.total > 0 && table('statistics-violation', t('statistics.violation.caption'), t('statistics.violation.head'), violations)}
      {counts.total > 0 && table('statistics-channel', t('statistics.channel.caption'), t('statistics.channel.head'), channels)}
      {counts.unopened > 0 && <p data-testid="statistics-unopened">{t('statistics.unopened', { count: counts.unopened })}</p>}
      {counts.notHeld > 0 && <p data-testid="statistics-not-held">{t('statistics.notHeld', { count: counts.notHeld })}</p>}
      {retry}
    </section>
  );
}
