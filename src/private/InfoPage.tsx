/**
 * /private/info (spec §2, §4 Password change, §5 Private identity form): identity
 * and contact details (name locked once set; an invalid save shows the your-info
 * error and sends nothing), and the password-change request, confirmed first and
 * followed by a log-out; on a sealed case, the e-mail notification in its own section
 * (SealedNotify.tsx), its address sealed apart to the mail key. The flow is
 * machines/identityForm.ts.
 */
import { Unopened } from './Unopened.tsx';
import { SealedNotify } from './SealedNotify.tsx';
import { useId } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { identityErrors, identityFormMachine } from '../../machines/identityForm.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { useCase, usePrivateArea, useSessionActive } from './context.tsx';
import { identityActors } from './services.ts';
import { companyPhoneCountry, PhoneField } from '../components/PhoneField.tsx';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import * as buttons from '../styles/button.css.ts';
import { card } from '../styles/card.css.ts';
import * as styles from './Pages.css.ts';

export function InfoPage() {
  const t = useT('private');
  const lang = useLanguage();
  const laf = useLookAndFeel();
  const c = useCase();
  const { session, services } = usePrivateArea();
  const active = useSessionActive();
  const ids = { name: useId(), email: useId(), phone: useId(), error: useId(), nameErr: useId(), emailErr: useId(), phoneErr: useId() };
  const form = useActorRef(
    identityFormMachine.provide({
      actors: identityActors(services, () => c.whistleblower, () => lang),
      actions: {
        reloadCase: () => session.send({ type: 'case.reload' }),
        reportUnauthorized: () => session.send({ type: 'session.unauthorized' }),
        // The server ended every sign-in of the case: the portal only forgets its tokens.
        logOut: () => session.send({ type: 'session.ended' }),
      },
    }),
    { input: { whistleblower: c.whistleblower, notifyStored: c.sealed?.notify } },
  );
  const ctx = useSelector(form, (s) => s.context);
  const invalid = useSelector(form, (s) => s.matches({ form: { editing: 'invalid' } }));
  const saving = useSelector(form, (s) => s.matches({ form: 'saving' }));
  const saved = useSelector(form, (s) => s.matches({ form: { editing: 'saved' } }));
  const failed = useSelector(form, (s) => s.matches({ form: { editing: 'failed' } }));
  const confirming = useSelector(form, (s) => s.matches({ password: 'confirming' }) || s.matches({ password: 'requesting' }));
  const requesting = useSelector(form, (s) => s.matches({ password: 'requesting' }));
  const passwordFailed = useSelector(form, (s) => s.matches({ password: 'failed' }));
  const errors = invalid ? identityErrors(ctx) : [];

  return (
    <>
      <PageTitle title={t('private.info.title')} />
      <section className={card} aria-labelledby="identity-heading">
        <h2 id="identity-heading" className={styles.cardTitle}>
          {t('private.info.identity')}
        </h2>
        {c.sealed?.unopened.includes('whistleblower') ? <Unopened /> : <p>{c.whistleblower ? t('private.info.revealed') : t('private.info.anonymous')}</p>}
        {/* The same words as the form's identity step: one answer to "who sees my name". */}
        <p>{t('private.info.whoSees')}</p>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            form.send({ type: 'identity.save' });
          }}
        >
          <div className={styles.field}>
            <label htmlFor={ids.name} className={styles.label}>
              {t('private.info.name')} <span aria-hidden="true">*</span>
            </label>
            <input
              id={ids.name}
              className={styles.input}
              value={ctx.name}
              disabled={ctx.nameLocked}
              required
              aria-required="true"
              autoComplete="name"
              aria-invalid={errors.includes('name')}
              aria-describedby={errors.includes('name') ? ids.nameErr : undefined}
              onChange={(e) => form.send({ type: 'name.change', value: e.currentTarget.value })}
            />
            {ctx.nameLocked && <span className={styles.muted}>{t('private.info.nameLocked')}</span>}
            {errors.includes('name') && <span id={ids.nameErr} className={styles.error}>{t('validation.required')}</span>}
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.email} className={styles.label}>
              {t('private.info.email')}
            </label>
            <input
              id={ids.email}
              type="email"
              className={styles.input}
              value={ctx.email}
              autoComplete="email"
              aria-invalid={errors.includes('email')}
              aria-describedby={errors.includes('email') ? ids.emailErr : undefined}
              onChange={(e) => form.send({ type: 'email.change', value: e.currentTarget.value })}
            />
            {errors.includes('email') && <span id={ids.emailErr} className={styles.error}>{t('validation.email')}</span>}
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.phone} className={styles.label}>
              {t('private.info.phone')}
            </label>
            <PhoneField
              id={ids.phone}
              value={ctx.phone}
              defaultCountry={ctx.phoneCountryCode || companyPhoneCountry(laf, lang)}
              invalid={errors.includes('phone')}
              describedBy={errors.includes('phone') ? ids.phoneErr : undefined}
              countryLabel={t('private.info.country')}
              onChange={(phone, iso2, isValid) => {
                if (phone !== ctx.phone || iso2 !== ctx.phoneCountryCode) {
                  form.send({ type: 'phone.change', phone, countryCode: iso2, isValid });
                }
              }}
            />
            {errors.includes('phone') && <span id={ids.phoneErr} className={styles.error}>{t('private.info.phoneInvalid')}</span>}
          </div>
          {/* A sealed case's notification address is sealed apart, to the mail key: its own section below (SealedNotify). */}
          {!c.sealed && (
            <label className={styles.checkbox}>
              <input
                type="checkbox"
                checked={ctx.notification}
                disabled={!ctx.email.trim()}
                onChange={(e) => form.send({ type: 'notification.change', checked: e.currentTarget.checked })}
              />
              {t('private.info.notification')}
            </label>
          )}
          {invalid && (
            <p id={ids.error} className={styles.error} role="alert">
              {t('private.info.invalid')}
            </p>
          )}
          {saved && <p className={styles.success} role="status">{t('private.info.saved')}</p>}
          {failed && <p className={styles.error} role="alert">{t('private.info.failed')}</p>}
          <div className={styles.actions}>
            {/* A sealed case's identity is sealed here under the case's key before it leaves (services.ts identityActors). */}
            <button type="submit" className={buttons.button} disabled={saving || !active || !!c.sealed?.unopened.includes('whistleblower')}>
              {t('private.info.save')}
            </button>
          </div>
        </form>
      </section>

      {c.sealed && <SealedNotify form={form} closed={c.status === 'CLOSED'} />}

      <section className={card} aria-labelledby="password-heading">
        <h2 id="password-heading" className={styles.cardTitle}>
          {t('private.info.password.title')}
        </h2>
        <p>{t('private.info.password.text')}</p>
        {passwordFailed && <p className={styles.error} role="alert">{t('private.info.password.failed')}</p>}
        {/* A sealed case too: the provider's new-password page re-wraps its key in the browser (issue 37). */}
        <button type="button" className={buttons.secondaryButton} disabled={!active} onClick={() => form.send({ type: 'password.change' })}>
          {t('private.info.password.change')}
        </button>
      </section>

      <ConfirmDialog
        open={confirming}
        title={t('private.info.password.confirmTitle')}
        description={t('private.info.password.confirmText')}
        cancelLabel={t('private.common.cancel')}
        confirmLabel={t('private.info.password.confirm')}
        onCancel={() => form.send({ type: 'password.cancel' })}
        onConfirm={() => form.send({ type: 'password.confirm' })}
        cancelDisabled={requesting}
        confirmDisabled={requesting}
      />
    </>
  );
}
