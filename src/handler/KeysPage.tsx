/**
 * /handler/keys: the handler's own key (fingerprint, certified or waiting), the
 * company's recovery key (made here when the company has none; its private half shown
 * once to print), and colleagues waiting for certification. The key-log chart decides;
 * the log is verified in this browser (./keys.ts) before anything is shown as trusted.
 */
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useT } from '../i18n/index.ts';
import * as buttons from '../styles/button.css.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { keyLogMachine } from '../../machines/handler/keyLog.ts';
import type { OpenedKeys, HandlerProfile } from '../../machines/handler/session.ts';
import { useHandler } from './context.ts';
import { HLink } from './links.tsx';
import * as styles from './Pages.css.ts';
import * as keyStyles from './KeysPage.css.ts';

export function KeysPage() {
  const t = useT('keys');
  const th = useT('handler');
  const ts = useT('statistics');
  const { session } = useHandler();
  const unlocked = useSelector(session, (s) => s.matches({ signedIn: { keys: 'keysUnlocked' } }));
  const keys = useSelector(session, (s) => s.context.keys);
  const handler = useSelector(session, (s) => s.context.handler);
  useEffect(() => {
    document.title = `${t('keys.page.title')} – ${th('handler.title')}`;
  }, [t, th]);
  return (
    <div className={styles.narrow}>
      <h1 className={styles.title}>{t('keys.page.title')}</h1>
      {unlocked && keys && handler ? <KeyLogView keys={keys} handler={handler} /> : <p>{t('keys.page.locked')}</p>}
      <p>
        <HLink to="/handler/statistics" className={keyStyles.pageLink}>{ts('statistics.nav')}</HLink>
      </p>
    </div>
  );
}

function KeyLogView({ keys, handler }: { keys: OpenedKeys; handler: HandlerProfile }) {
  const t = useT('keys');
  const { api } = useHandler();
  const actor = useActorRef(
    keyLogMachine.provide({
      actors: {
        loadKeyLog: fromPromise(() => api.keys.loadKeyLog({ keys, handlerId: handler.id })),
        makeAnchor: fromPromise(() => api.keys.makeAnchor({ keys, handler })),
        certifyColleague: fromPromise(({ input }: { input: { handlerId: string } }) => api.keys.certify({ keys }, input.handlerId)),
      },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const view = state.context.view;
  const chosen = state.context.chosen;

  if (state.matches('loading')) return <p aria-busy="true">{t('keys.page.loading')}</p>;
  if (state.matches('unreachable') || state.matches('refused')) {
    return (
      <section className={styles.section}>
        <p role="alert" className={styles.error}>
          {state.matches('refused') ? t('keys.page.refused', { reason: state.context.reason }) : t('keys.page.unreachable')}
        </p>
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'retry' })} onClick={() => actor.send({ type: 'retry' })}>
          {t('keys.page.retry')}
        </button>
      </section>
    );
  }
  if (state.matches('showingRecoveryKey')) {
    return (
      <section className={styles.section} aria-labelledby="recovery-key-title">
        <h2 id="recovery-key-title" className={styles.sectionTitle}>
          {t('keys.anchor.shownTitle')}
        </h2>
        <p>{t('keys.anchor.shownText')}</p>
        <pre className={keyStyles.recoveryKey} data-testid="company-recovery-key">
          {state.context.recoveryKey}
        </pre>
        <div className={styles.row}>
          <button type="button" className={buttons.button} onClick={() => window.print()}>
            {t('keys.anchor.print')}
          </button>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'anchor.printed' })} onClick={() => actor.send({ type: 'anchor.printed' })}>
            {t('keys.anchor.printed')}
          </button>
        </div>
      </section>
    );
  }
  return (
    <>
      {view && (
        <section className={styles.section} aria-labelledby="own-key-title">
          <h2 id="own-key-title" className={styles.sectionTitle}>
            {t('keys.page.mine')}
          </h2>
          <p className={keyStyles.fingerprint} data-testid="own-fingerprint">
            {view.mine.fingerprint}
          </p>
          <p role="status" data-testid="own-key-state">
            {view.mine.certified ? t('keys.page.certified') : t('keys.page.pending')}
          </p>
          {view.anchorFingerprint && (
            <>
              <h3 className={styles.label}>{t('keys.page.anchor')}</h3>
              <p className={keyStyles.fingerprint} data-testid="anchor-fingerprint">
                {view.anchorFingerprint}
              </p>
            </>
          )}
        </section>
      )}
      {(state.matches('noAnchor') || state.matches('makingAnchor')) && (
        <section className={styles.section} aria-labelledby="anchor-title">
          <h2 id="anchor-title" className={styles.sectionTitle}>
            {t('keys.anchor.title')}
          </h2>
          <p>{t('keys.anchor.text')}</p>
          <p>{t('keys.anchor.unsealed')}</p>
          <p>{t('keys.enrol.loss')}</p>
          <div role="alert">{state.matches({ noAnchor: 'failed' }) && <p className={styles.error}>{t('keys.anchor.failed')}</p>}</div>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'anchor.make' })} onClick={() => actor.send({ type: 'anchor.make' })}>
            {state.matches('makingAnchor') ? t('keys.anchor.busy') : t('keys.anchor.make')}
          </button>
        </section>
      )}
      {view && view.anchorFingerprint && (
        <section className={styles.section} aria-labelledby="pending-title">
          <h2 id="pending-title" className={styles.sectionTitle}>
            {t('keys.pending.title')}
          </h2>
          {!view.mine.certified && <p>{t('keys.pending.needCertified')}</p>}
          <div role="alert">{state.matches({ ready: 'failed' }) && <p className={styles.error}>{t('keys.pending.failed')}</p>}</div>
          {view.pending.length === 0 ? (
            <p>{t('keys.pending.none')}</p>
          ) : (
            <ul className={styles.list}>
              {view.pending.map((p) => (
                <li key={p.id} data-handler={p.id}>
                  <p>
                    <strong>{p.name}</strong> {p.email && <span>({p.email})</span>}
                  </p>
                  <p className={keyStyles.fingerprint}>{t('keys.pending.fingerprint', { fingerprint: p.fingerprint })}</p>
                  <button type="button" className={buttons.button} disabled={!state.can({ type: 'certify', handlerId: p.id })} onClick={() => actor.send({ type: 'certify', handlerId: p.id })}>
                    {t('keys.pending.certify', { name: p.name })}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      {view && view.closed.length > 0 && (
        <section className={styles.section} aria-labelledby="closed-title" data-testid="closed-keys">
          <h2 id="closed-title" className={styles.sectionTitle}>
            {t('keys.closed.title')}
          </h2>
          <p>{t('keys.closed.text')}</p>
          <ul className={styles.list}>
            {view.closed.map((k) => (
              <li key={`${k.handlerId}:${k.fingerprint}`} data-handler={k.handlerId} data-why={k.why}>
                <p>
                  <strong>{k.name !== null && k.why === 'disabled' ? t('keys.closed.disabled', { name: k.name }) : t('keys.closed.gone')}</strong>
                </p>
                <p className={keyStyles.fingerprint}>{t('keys.pending.fingerprint', { fingerprint: k.fingerprint })}</p>
              </li>
            ))}
          </ul>
        </section>
      )}
      <ConfirmDialog
        open={state.matches('confirmingCertify') || state.matches('certifying')}
        title={t('keys.pending.confirmTitle', { name: chosen?.name ?? '' })}
        description={t('keys.pending.confirmText', { name: chosen?.name ?? '', fingerprint: chosen?.fingerprint ?? '' })}
        cancelLabel={t('keys.pending.cancel')}
        confirmLabel={t('keys.pending.confirm')}
        confirmDisabled={!state.can({ type: 'certify.confirm' })}
        cancelDisabled={!state.can({ type: 'certify.cancel' })}
        onCancel={() => actor.send({ type: 'certify.cancel' })}
        onConfirm={() => actor.send({ type: 'certify.confirm' })}
      />
    </>
  );
}
