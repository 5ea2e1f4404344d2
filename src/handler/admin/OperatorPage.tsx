/**
 * /handler/operator: the portal's companies for the operator, and a new company from
 * its company file with its first administrator (machines/admin/operator.ts). The
 * chart decides; this view reads it.
 */
import { useEffect, useId } from 'react';
import { Link } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { useT } from '../../i18n/index.ts';
import { input } from '../../styles/field.css.ts';
import * as buttons from '../../styles/button.css.ts';
import { isNewCompanyComplete, operatorMachine } from '../../../machines/admin/operator.ts';
import { useHandler } from '../context.ts';
import { adminApi } from '../adminApi.ts';
import * as styles from '../Pages.css.ts';
import * as admin from './Admin.css.ts';
import { AdminLoadFailed, AdminLoading } from './LoadState.tsx';

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function OperatorPage() {
  const t = useT('admin');
  const { session, rawApi } = useHandler();
  const actor = useActorRef(
    operatorMachine.provide({
      actors: (() => {
        const a = adminApi(rawApi, () => '');
        return { loadCompanies: fromPromise(() => a.loadCompanies()), createCompany: fromPromise(({ input: i }) => a.createCompany(i)) };
      })(),
      actions: { reportUnauthorized: () => session.send({ type: 'session.expired' }) },
    }),
  );
  const state = useSelector(actor, (s) => s);
  const ctx = state.context;
  const ids = { assets: useId(), file: useId(), name: useId(), email: useId(), form: useId(), link: useId() };
  useEffect(() => {
    document.title = t('admin.operator.title');
  }, [t]);

  if (state.matches('loading')) return <AdminLoading />;
  if (state.matches('failed')) return <AdminLoadFailed onRetry={() => actor.send({ type: 'reload' })} />;
  if (state.matches('showingLink') && ctx.link)
    return (
      <section className={styles.section} aria-labelledby={ids.link}>
        <h1 id={ids.link} className={styles.title}>
          {t('admin.operator.created', { company: ctx.link.companyId })}
        </h1>
        <p>{t('admin.operator.linkText')}</p>
        <p className={admin.link} data-testid="enrolment-link">
          {ctx.link.url}
        </p>
        <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'link.dismiss' })}>
          {t('admin.done')}
        </button>
      </section>
    );

  const editing = state.matches('editing') || state.matches('creating');
  const problem = ctx.problem;
  return (
    <div>
      <h1 className={styles.title}>{t('admin.operator.title')}</h1>
      {editing ? (
        <section className={styles.section} aria-labelledby={ids.form}>
          <h2 id={ids.form} className={styles.sectionTitle}>
            {t('admin.operator.open')}
          </h2>
          <form
            className={styles.form}
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              actor.send({ type: 'company.submit' });
            }}
          >
            <div className={styles.field}>
              <label htmlFor={ids.file} className={styles.label}>
                {t('admin.operator.file')}
              </label>
              <input
                id={ids.file}
                type="file"
                accept="application/json,.json"
                className={input}
                onChange={(e) => {
                  const f = e.target.files?.[0];
                  if (f) void f.text().then((text) => actor.send({ type: 'file.choose', name: f.name, text }));
                }}
              />
              {ctx.fileName && <p className={styles.hint}>{t('admin.operator.fileChosen', { name: ctx.fileName })}</p>}
            </div>
            <div className={styles.field}>
              <label htmlFor={ids.assets} className={styles.label}>
                {t('admin.operator.assets')}
              </label>
              <input
                id={ids.assets}
                type="file"
                multiple
                accept="image/png,image/jpeg,image/webp,image/svg+xml"
                className={input}
                onChange={(e) => {
                  const files = [...(e.target.files ?? [])];
                  void Promise.all(files.map(async (f) => [f.name, { contentType: f.type, base64: toBase64(new Uint8Array(await f.arrayBuffer())) }] as const)).then((pairs) =>
                    actor.send({ type: 'assets.choose', assets: Object.fromEntries(pairs) }),
                  );
                }}
              />
            </div>
            <div className={styles.field}>
              <label htmlFor={ids.name} className={styles.label}>
                {t('admin.operator.adminName')}
              </label>
              <input id={ids.name} className={input} value={ctx.adminName} autoComplete="off" onChange={(e) => actor.send({ type: 'admin.change', field: 'adminName', value: e.target.value })} />
            </div>
            <div className={styles.field}>
              <label htmlFor={ids.email} className={styles.label}>
                {t('admin.operator.adminEmail')}
              </label>
              <input id={ids.email} type="email" className={input} value={ctx.adminEmail} autoComplete="off" onChange={(e) => actor.send({ type: 'admin.change', field: 'adminEmail', value: e.target.value })} />
            </div>
            <div role="alert">
              {problem?.kind === 'fileUnreadable' && <p className={styles.error}>{t('admin.operator.fileUnreadable')}</p>}
              {problem?.kind === 'fileRefused' && <p className={styles.error}>{t('admin.operator.fileRefused', { field: problem.field ?? '' })}</p>}
              {problem?.kind === 'taken' && <p className={styles.error}>{t('admin.operator.taken')}</p>}
              {problem?.kind === 'failed' && <p className={styles.error}>{t('admin.problem.failed')}</p>}
              {!problem && !isNewCompanyComplete(ctx) && (ctx.adminName !== '' || ctx.adminEmail !== '') && <p className={styles.hint}>{t('admin.operator.incomplete')}</p>}
            </div>
            <div className={admin.actions}>
              <button type="submit" className={buttons.button} disabled={!state.can({ type: 'company.submit' })}>
                {state.matches('creating') ? t('admin.operator.busy') : t('admin.operator.submit')}
              </button>
              <button type="button" className={buttons.secondaryButton} disabled={!state.can({ type: 'company.cancel' })} onClick={() => actor.send({ type: 'company.cancel' })}>
                {t('admin.cancel')}
              </button>
            </div>
          </form>
        </section>
      ) : (
        <p>
          <button type="button" className={buttons.button} disabled={!state.can({ type: 'company.open' })} onClick={() => actor.send({ type: 'company.open' })}>
            {t('admin.operator.open')}
          </button>
        </p>
      )}
      <section className={styles.section}>
        <table className={styles.table} data-testid="companies">
          <caption className={styles.caption}>{t('admin.operator.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('admin.col.company')}</th>
              <th scope="col">{t('admin.col.hosts')}</th>
            </tr>
          </thead>
          <tbody>
            {ctx.companies.map((c) => (
              <tr key={c.id}>
                <td>
                  <Link to={'/handler/admin/$companyId' as never} params={{ companyId: c.id } as never}>
                    {c.name}
                  </Link>
                </td>
                <td>{c.hosts.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
