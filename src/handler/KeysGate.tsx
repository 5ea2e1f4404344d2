/**
 * Above every signed-in page: the unlock form while the session chart's keys are
 * locked (after a reload the password is gone), and a legacy account's new key
 * recovery code, shown once after the sign-in that made its keys.
 */
import { useId } from 'react';
import { useSelector } from '@xstate/react';
import { useT } from '../i18n/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { useHandler } from './context.ts';
import { noPrint } from './print.css.ts';
import * as styles from './Pages.css.ts';

export function KeysGate() {
  const t = useT('keys');
  const { session } = useHandler();
  const state = useSelector(session, (s) => s);
  const ids = { secret: useId(), error: useId() };
  if (!state.matches('signedIn')) return null;
  const locked = state.matches({ signedIn: { keys: 'keysLocked' } });
  const unlocking = state.matches({ signedIn: { keys: 'unlocking' } });
  if (state.matches({ signedIn: { keys: { keysUnlocked: 'showingRecoveryCode' } } })) {
    return (
      <section className={styles.section} aria-labelledby={`${ids.secret}-rc`}>
        <h2 id={`${ids.secret}-rc`} className={styles.sectionTitle}>
          {t('keys.upgrade.title')}
        </h2>
        <p>{t('keys.upgrade.text')}</p>
        <p>
          <code className={styles.code} data-testid="key-recovery-code">
            {state.context.recoveryCode}
          </code>
        </p>
        <p>{t('keys.enrol.loss')}</p>
        <button type="button" className={buttons.button} disabled={!state.can({ type: 'recovery.noted' })} onClick={() => session.send({ type: 'recovery.noted' })}>
          {t('keys.upgrade.noted')}
        </button>
      </section>
    );
  }
  if (!locked && !unlocking) return null;
  const error = state.matches({ signedIn: { keys: { keysLocked: 'refused' } } })
    ? t('keys.unlock.refused')
    : state.matches({ signedIn: { keys: { keysLocked: 'missing' } } })
      ? t('keys.unlock.missing')
      : state.matches({ signedIn: { keys: { keysLocked: 'unavailable' } } })
        ? t('keys.unlock.unavailable')
        : null;
  return (
    <section className={`${styles.section} ${noPrint}`} aria-labelledby={`${ids.secret}-t`}>
      <h2 id={`${ids.secret}-t`} className={styles.sectionTitle}>
        {t('keys.unlock.title')}
      </h2>
      <p>{t('keys.unlock.text')}</p>
      <form
        className={styles.form}
        noValidate
        aria-describedby={error ? ids.error : undefined}
        onSubmit={(e) => {
          e.preventDefault();
          const field = e.currentTarget.elements.namedItem('secret') as HTMLInputElement;
          session.send({ type: 'keys.unlock', secret: field.value });
          field.value = '';
        }}
      >
        <div className={styles.field}>
          <label htmlFor={ids.secret} className={styles.label}>
            {t('keys.unlock.secret')}
          </label>
          <input id={ids.secret} name="secret" type="password" autoComplete="current-password" className={input} aria-invalid={!!error} />
        </div>
        <div role="alert" id={ids.error}>
          {error && <p className={styles.error}>{error}</p>}
        </div>
        <div>
          <button type="submit" className={buttons.button} disabled={unlocking}>
            {unlocking ? t('keys.unlock.busy') : t('keys.unlock.submit')}
          </button>
        </div>
      </form>
    </section>
  );
}
