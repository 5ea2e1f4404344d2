/**
 * A sealed case's e-mail notification on /private/info (docs/decisions/sealed-reporter-
 * pages.md "The notification address"): the wish and an address, the region `notify`
 * of machines/identityForm.ts. The stored address is sealed to the mail key and cannot
 * be read here, so the page says whether one is stored and asks for it again to turn
 * notification on; the address is sealed in this page before it leaves
 * (services.ts identityActors). A closed case's address was deleted at the close: the
 * page says so and offers nothing. Rendered only for sealed cases.
 */
import { Suspense, useId } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import '../i18n/sealedPrivate/index.ts';
import { useT } from '../i18n/index.ts';
import { notifyErrors, type identityFormMachine } from '../../machines/identityForm.ts';
import { useSessionActive } from './context.tsx';
import * as buttons from '../styles/button.css.ts';
import { card } from '../styles/card.css.ts';
import * as styles from './Pages.css.ts';

type IdentityActor = ActorRefFrom<typeof identityFormMachine>;

function NotifySection({ form, closed }: { form: IdentityActor; closed: boolean }) {
  const t = useT('sealedPrivate');
  const active = useSessionActive();
  const ids = { heading: useId(), address: useId(), addressErr: useId() };
  const ctx = useSelector(form, (s) => s.context);
  const invalid = useSelector(form, (s) => s.matches({ notify: { editing: 'invalid' } }));
  const saved = useSelector(form, (s) => s.matches({ notify: { editing: 'saved' } }));
  const failed = useSelector(form, (s) => s.matches({ notify: { editing: 'failed' } }));
  const canSave = useSelector(form, (s) => s.can({ type: 'notify.save' }));
  const errors = invalid ? notifyErrors(ctx) : [];

  return (
    <section className={card} aria-labelledby={ids.heading}>
      <h2 id={ids.heading} className={styles.cardTitle}>
        {t('sealedPrivate.notify.title')}
      </h2>
      <p>{t('sealedPrivate.notify.apart')}</p>
      {closed ? (
        <p className={styles.muted}>{t('sealedPrivate.notify.closed')}</p>
      ) : (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            form.send({ type: 'notify.save' });
          }}
        >
          <p className={styles.muted} data-testid="notify-stored">
            {ctx.notifyStored ? t('sealedPrivate.notify.isOn') : t('sealedPrivate.notify.isOff')}
          </p>
          <label className={styles.checkbox}>
            <input type="checkbox" checked={ctx.notifyWanted} onChange={(e) => form.send({ type: 'notify.change', checked: e.currentTarget.checked })} />
            {t('sealedPrivate.notify.wanted')}
          </label>
          {ctx.notifyWanted && (
            <div className={styles.field}>
              <label htmlFor={ids.address} className={styles.label}>
                {t('sealedPrivate.notify.address')} <span aria-hidden="true">*</span>
              </label>
              <input
                id={ids.address}
                type="email"
                className={styles.input}
                value={ctx.notifyAddress}
                required
                aria-required="true"
                autoComplete="email"
                aria-invalid={errors.includes('notifyAddress')}
                aria-describedby={errors.includes('notifyAddress') ? ids.addressErr : undefined}
                onChange={(e) => form.send({ type: 'notifyAddress.change', value: e.currentTarget.value })}
              />
              {errors.includes('notifyAddress') && (
                <span id={ids.addressErr} className={styles.error}>
                  {t('sealedPrivate.notify.addressInvalid')}
                </span>
              )}
            </div>
          )}
          {saved && (
            <p className={styles.success} role="status">
              {ctx.notifyStored ? t('sealedPrivate.notify.savedOn') : t('sealedPrivate.notify.savedOff')}
            </p>
          )}
          {failed && (
            <p className={styles.error} role="alert">
              {t('sealedPrivate.notify.failed')}
            </p>
          )}
          <div className={styles.actions}>
            <button type="submit" className={buttons.button} disabled={!canSave || !active}>
              {t('sealedPrivate.notify.save')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

export function SealedNotify(props: { form: IdentityActor; closed: boolean }) {
  return (
    <Suspense fallback={null}>
      <NotifySection {...props} />
    </Suspense>
  );
}
