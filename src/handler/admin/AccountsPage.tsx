/**
 * /handler/admin/$companyId: the company's accounts for its administrator (or the
 * operator), machines/admin/accounts.ts. The chart decides; this view reads it.
 */
import { useEffect, useId } from 'react';
import { useParams } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useLanguage, useT } from '../../i18n/index.ts';
import { formatLongDateTime } from '../../i18n/dates.ts';
import { input } from '../../styles/field.css.ts';
import * as buttons from '../../styles/button.css.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { accountsMachine, actsFor, isInviteComplete, type AccountAct } from '../../../machines/admin/accounts.ts';
import { useHandler } from '../context.ts';
import { adminApi } from '../adminApi.ts';
import * as styles from '../Pages.css.ts';
import * as admin from './Admin.css.ts';
import { AdminLoadFailed, AdminLoading } from './LoadState.tsx';

const ACT_LABEL: Record<AccountAct, string> = { disable: 'admin.act.disable', enable: 'admin.act.enable', reset: 'admin.act.reset', endSessions: 'admin.act.endSessions', remove: 'admin.act.remove' };

export function AccountsPage() {
  const t = useT('admin');
  const lang = useLanguage();
  const { companyId } = useParams({ strict: false }) as { companyId: string };
  const { session, rawApi } = useHandler();
  const companyName = useSelector(session, (s) => s.context.handler?.companyName ?? '');
  const actor = useActorRef(
    accountsMachine.provide({
      actors: (() => {
        const a = adminApi(rawApi, () => companyId);
        return {
          loadAccounts: fromPromise(() => a.loadAccounts()),
          inviteAccount: fromPromise(({ input: i }) => a.inviteAccount(i)),
          runAct: fromPromise(({ input: i }) => a.runAct(i)),
          loadTokens: fromPromise(({ input: i }) => a.loadTokens(i)),
          revokeToken: fromPromise(({ input: i }) => a.revokeToken(i)),
          loadTrail: fromPromise(() => a.loadTrail()),
        };
      })(),
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const ctx = state.context;
  const ids = { name: useId(), email: useId(), admin: useId(), problem: useId() };
  const title = t('admin.accounts.title', { company: companyName || companyId });
  useEffect(() => {
    document.title = title;
  }, [title]);
  const when = (iso: string | null) => (iso ? formatLongDateTime(iso, lang) : t('admin.never'));
  const account = ctx.accounts.find((a) => a.id === ctx.accountId);
  const officerName = (id: string) => ctx.officers.find((o) => o.id === id)?.name ?? id;

  if (state.matches('loading')) return <AdminLoading />;
  if (state.matches('failed')) return <AdminLoadFailed onRetry={() => actor.send({ type: 'reload' })} />;

  if (state.matches('showingLink') && ctx.link)
    return (
      <section className={styles.section} aria-labelledby={ids.problem}>
        <h1 id={ids.problem} className={styles.title}>
          {t('admin.link.title')}
        </h1>
        {ctx.link.url ? (
          <>
            <p>{t('admin.link.shown', { email: ctx.link.email })}</p>
            <p className={admin.link} data-testid="enrolment-link">
              {ctx.link.url}
            </p>
          </>
        ) : (
          <p>{t('admin.link.mailed', { email: ctx.link.email })}</p>
        )}
        <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'link.dismiss' })}>
          {t('admin.done')}
        </button>
      </section>
    );

  if (state.matches('showingTokens') || state.matches('loadingTokens') || state.matches('revokingToken'))
    return (
      <section className={styles.section}>
        <h1 className={styles.title}>{t('admin.tokens.title', { name: account?.name ?? '' })}</h1>
        {state.matches('loadingTokens') ? (
          <p aria-busy="true">{t('admin.loading')}</p>
        ) : ctx.tokens.length === 0 ? (
          <p>{t('admin.tokens.none')}</p>
        ) : (
          <div className={styles.scroll}>
            <table className={styles.table}>
              <thead>
                <tr>
                  <th scope="col">{t('admin.col.label')}</th>
                  <th scope="col">{t('admin.col.madeBy')}</th>
                  <th scope="col">{t('admin.col.expires')}</th>
                  <th scope="col">{t('admin.col.lastUsed')}</th>
                  <th scope="col">{t('admin.col.state')}</th>
                  <th scope="col">{t('admin.col.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {ctx.tokens.map((tk) => (
                  <tr key={tk.id}>
                    <td>{tk.label}</td>
                    <td>{t(`admin.madeBy.${tk.madeBy}`)}</td>
                    <td>{when(tk.expiresAt)}</td>
                    <td>{when(tk.lastUsedAt)}</td>
                    <td>{t(`admin.tokenState.${tk.state}`)}</td>
                    <td>
                      {tk.state === 'active' && (
                        <button
                          type="button"
                          className={`${buttons.secondaryButton} ${admin.small}`}
                          aria-label={t('admin.tokens.revokeLabel', { label: tk.label })}
                          disabled={!state.can({ type: 'token.revoke', tokenId: tk.id })}
                          onClick={() => actor.send({ type: 'token.revoke', tokenId: tk.id })}
                        >
                          {t('admin.tokens.revoke')}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {ctx.problem === 'failed' && (
          <p role="alert" className={styles.error}>
            {t('admin.problem.failed')}
          </p>
        )}
        <p>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'tokens.close' })} onClick={() => actor.send({ type: 'tokens.close' })}>
            {t('admin.back')}
          </button>
        </p>
      </section>
    );

  if (state.matches('showingTrail') || state.matches('loadingTrail'))
    return (
      <section className={styles.section}>
        <h1 className={styles.title}>{t('admin.trail.open')}</h1>
        {state.matches('loadingTrail') ? (
          <p aria-busy="true">{t('admin.loading')}</p>
        ) : (
          <div className={styles.scroll}>
            <table className={styles.table} data-testid="admin-trail">
              <thead>
                <tr>
                  <th scope="col">{t('admin.col.at')}</th>
                  <th scope="col">{t('admin.col.who')}</th>
                  <th scope="col">{t('admin.col.what')}</th>
                  <th scope="col">{t('admin.col.target')}</th>
                </tr>
              </thead>
              <tbody>
                {ctx.trail.map((e) => (
                  <tr key={e.id}>
                    <td>{when(e.at)}</td>
                    <td>{e.actor.name}</td>
                    <td data-action={e.action}>{t(`admin.action.${e.action}`)}</td>
                    <td>{e.target?.name ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'trail.close' })} onClick={() => actor.send({ type: 'trail.close' })}>
            {t('admin.back')}
          </button>
        </p>
      </section>
    );

  const inviting = state.matches('inviting') || state.matches('sendingInvite');
  return (
    <div>
      <h1 className={styles.title}>{title}</h1>
      {ctx.problem === 'failed' && !inviting && (
        <p role="alert" className={styles.error}>
          {t('admin.problem.failed')}
        </p>
      )}
      {inviting ? (
        <section className={styles.section} aria-labelledby={`${ids.name}-h`}>
          <h2 id={`${ids.name}-h`} className={styles.sectionTitle}>
            {t('admin.invite.open')}
          </h2>
          <form
            className={styles.form}
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              actor.send({ type: 'invite.submit' });
            }}
          >
            <div className={styles.field}>
              <label htmlFor={ids.name} className={styles.label}>
                {t('admin.invite.name')}
              </label>
              <input id={ids.name} className={input} value={ctx.invite.name} autoComplete="off" autoFocus onChange={(e) => actor.send({ type: 'invite.change', field: 'name', value: e.target.value })} />
            </div>
            <div className={styles.field}>
              <label htmlFor={ids.email} className={styles.label}>
                {t('admin.invite.email')}
              </label>
              <input id={ids.email} type="email" className={input} value={ctx.invite.email} autoComplete="off" onChange={(e) => actor.send({ type: 'invite.change', field: 'email', value: e.target.value })} />
            </div>
            <label className={styles.checkbox}>
              <input type="checkbox" checked={ctx.invite.admin} onChange={(e) => actor.send({ type: 'invite.admin', value: e.target.checked })} />
              {t('admin.invite.admin')}
            </label>
            {ctx.officers.length > 0 && (
              <fieldset className={admin.fieldset}>
                <legend>{t('admin.invite.officers')}</legend>
                {ctx.officers.map((o) => (
                  <label key={o.id} className={styles.checkbox}>
                    <input type="checkbox" checked={ctx.invite.officers.includes(o.id)} onChange={(e) => actor.send({ type: 'invite.officer', officerId: o.id, value: e.target.checked })} />
                    {o.name}
                  </label>
                ))}
              </fieldset>
            )}
            <div role="alert">
              {!isInviteComplete(ctx.invite) && (ctx.invite.name !== '' || ctx.invite.email !== '') && <p className={styles.hint}>{t('admin.invite.incomplete')}</p>}
              {ctx.problem === 'taken' && <p className={styles.error}>{t('admin.invite.taken')}</p>}
              {ctx.problem === 'failed' && <p className={styles.error}>{t('admin.problem.failed')}</p>}
            </div>
            <div className={admin.actions}>
              <button type="submit" className={buttons.button} disabled={!state.can({ type: 'invite.submit' })}>
                {state.matches('sendingInvite') ? t('admin.invite.busy') : t('admin.invite.submit')}
              </button>
              <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'invite.cancel' })} onClick={() => actor.send({ type: 'invite.cancel' })}>
                {t('admin.cancel')}
              </button>
            </div>
          </form>
        </section>
      ) : (
        <div className={admin.actions}>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'invite.open' })} onClick={() => actor.send({ type: 'invite.open' })}>
            {t('admin.invite.open')}
          </button>
          <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'trail.open' })} onClick={() => actor.send({ type: 'trail.open' })}>
            {t('admin.trail.open')}
          </button>
        </div>
      )}
      <section className={styles.section}>
        <div className={styles.scroll}>
          <table className={styles.table} data-testid="accounts">
            <caption className={styles.caption}>{t('admin.accounts.caption')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('admin.col.name')}</th>
                <th scope="col">{t('admin.col.email')}</th>
                <th scope="col">{t('admin.col.officers')}</th>
                <th scope="col">{t('admin.col.enrolled')}</th>
                <th scope="col">{t('admin.col.lastSignIn')}</th>
                <th scope="col">{t('admin.col.state')}</th>
                <th scope="col">{t('admin.col.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {ctx.accounts.map((a) => (
                <tr key={a.id} data-email={a.email ?? ''}>
                  <td>{a.name}</td>
                  <td>{a.email}</td>
                  <td>{a.officers.length ? a.officers.map(officerName).join(', ') : t('admin.allOfficers')}</td>
                  <td>{a.enrolled ? t('admin.yes') : t('admin.no')}</td>
                  <td>{when(a.lastSignInAt)}</td>
                  <td data-state={a.state}>{t(`admin.state.${a.state}`)}</td>
                  <td>
                    <div className={admin.actions}>
                      {actsFor(a).map((act) => (
                        <button
                          key={act}
                          type="button"
                          className={`${buttons.secondaryButton} ${admin.small}`}
                          aria-label={t('admin.act.label', { act: t(ACT_LABEL[act]), name: a.name })}
                          data-act={act}
                          disabled={!state.can({ type: 'act.choose', accountId: a.id, act })}
                          onClick={() => actor.send({ type: 'act.choose', accountId: a.id, act })}
                        >
                          {t(ACT_LABEL[act])}
                        </button>
                      ))}
                      <button
                        type="button"
                        className={`${buttons.secondaryButton} ${admin.small}`}
                        aria-label={t('admin.act.label', { act: t('admin.act.tokens'), name: a.name })}
                        data-act="tokens"
                        disabled={!state.can({ type: 'tokens.open', accountId: a.id })}
                        onClick={() => actor.send({ type: 'tokens.open', accountId: a.id })}
                      >
                        {t('admin.act.tokens')}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <ConfirmDialog
        open={state.matches('confirming') || state.matches('acting')}
        title={ctx.act ? t(`admin.confirm.${ctx.act}.title`, { name: account?.name ?? '' }) : ''}
        description={ctx.act ? t(`admin.confirm.${ctx.act}.text`) : ''}
        cancelLabel={t('admin.cancel')}
        confirmLabel={ctx.act ? t(ACT_LABEL[ctx.act]) : ''}
        confirmDisabled={!state.can({ type: 'act.confirm' })}
        cancelDisabled={!state.can({ type: 'act.cancel' })}
        onCancel={() => actor.send({ type: 'act.cancel' })}
        onConfirm={() => actor.send({ type: 'act.confirm' })}
      />
    </div>
  );
}
