/**
 * /handler: e-mail, password (or the key recovery code in its place) and the six-digit
 * code (or a sign-in recovery code). The session chart decides; the page derives the
 * verifier (./keys.ts), never sending the password.
 */
import { useEffect, useId, useRef } from 'react';
import { useSelector } from '@xstate/react';
import { useT } from '../i18n/index.ts';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import { useHandler } from './context.ts';
import * as styles from './Pages.css.ts';

export function SignInPage() {
  const t = useT('handler');
  const tk = useT('keys');
  const { session } = useHandler();
  const state = useSelector(session, (s) => s);
  const ids = { email: useId(), password: useId(), code: useId(), error: useId() };
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${t('handler.signIn.title')} – ${t('handler.title')}`;
  }, [t]);

  const error = state.matches({ signedOut: 'refused' })
    ? t('handler.signIn.refused')
    : state.matches({ signedOut: 'incomplete' })
      ? t('handler.signIn.incomplete')
      : state.matches({ signedOut: 'unreachable' })
        ? t('handler.error.unreachable')
        : state.matches({ signedOut: 'timedOut' })
          ? t('handler.signIn.timedOut')
          : state.matches({ signedOut: 'expired' })
            ? t('handler.signIn.expired')
            : null;
  const busy = state.matches('signingIn') || state.matches('checking');

  return (
    <div className={styles.narrow}>
      <h1 ref={title} className={styles.title}>
        {t('handler.signIn.title')}
      </h1>
      <section className={styles.section}>
        <form
          className={styles.form}
          noValidate
          aria-describedby={error ? ids.error : undefined}
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            session.send({ type: 'signin.submit', email: String(f.get('email') ?? ''), password: String(f.get('password') ?? ''), code: String(f.get('code') ?? '') });
            (e.currentTarget.elements.namedItem('password') as HTMLInputElement).value = '';
            (e.currentTarget.elements.namedItem('code') as HTMLInputElement).value = '';
          }}
        >
          <div className={styles.field}>
            <label htmlFor={ids.email} className={styles.label}>
              {t('handler.signIn.email')}
            </label>
            <input id={ids.email} name="email" type="email" autoComplete="username" required className={input} />
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.password} className={styles.label}>
              {t('handler.signIn.password')}
            </label>
            <input id={ids.password} name="password" type="password" autoComplete="current-password" required className={input} aria-describedby={`${ids.password}-hint`} />
            <p id={`${ids.password}-hint`} className={styles.hint}>
              {tk('keys.signIn.passwordHint')}
            </p>
          </div>
          <div className={styles.field}>
            <label htmlFor={ids.code} className={styles.label}>
              {t('handler.signIn.code')}
            </label>
            <input id={ids.code} name="code" autoComplete="one-time-code" autoCapitalize="off" spellCheck={false} required className={input} aria-describedby={`${ids.code}-hint`} />
            <p id={`${ids.code}-hint`} className={styles.hint}>
              {t('handler.signIn.codeHint')}
            </p>
          </div>
          <div role="alert" id={ids.error}>
            {error && <p className={styles.error}>{error}</p>}
          </div>
          <div>
            <button type="submit" className={buttons.button} disabled={busy}>
              {busy ? t('handler.signIn.busy') : t('handler.signIn.submit')}
            </button>
          </div>
        </form>
      </section>
    </div>
  );
}
