/**
 * The case password, asked for once after an external OpenID issuer's sign-in (issue 37;
 * machines/session.ts `askingPassword`, `unlocking`): the page derives the reporter key
 * from it here and opens the case. The view only sends `password.submit` with what was
 * typed (read from the form, never kept in React state) and shows the chart's substate.
 */
import { useId } from 'react';
import { useSelector } from '@xstate/react';
import '../i18n/unlock/index.ts';
import { useT } from '../i18n/index.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import type { SessionActor } from './context.tsx';
import { input } from '../styles/field.css.ts';
import * as buttons from '../styles/button.css.ts';
import * as layout from './Layout.css.ts';
import * as styles from './UnlockCase.css.ts';

export function UnlockCase({ session }: { session: SessionActor }) {
  const t = useT('unlock');
  const id = useId();
  const unlocking = useSelector(session, (s) => s.matches('unlocking'));
  const canSubmit = useSelector(session, (s) => s.can({ type: 'password.submit', password: 'x' }));
  const problem = useSelector(session, (s) =>
    s.matches({ askingPassword: 'empty' }) ? 'unlock.empty' : s.matches({ askingPassword: 'refused' }) ? 'unlock.refused' : s.matches({ askingPassword: 'failed' }) ? 'unlock.failed' : null,
  );
  const errorId = `${id}-error`;
  return (
    <div className={layout.notice} data-testid="unlock-case">
      <PageTitle title={t('unlock.title')} />
      <p id={`${id}-text`}>{t('unlock.text')}</p>
      <form
        className={styles.form}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const field = e.currentTarget.elements.namedItem('password') as HTMLInputElement;
          session.send({ type: 'password.submit', password: field.value });
          field.value = '';
        }}
      >
        <div className={styles.field}>
          <label htmlFor={`${id}-password`} className={styles.label}>
            {t('unlock.password')}
          </label>
          {/* No name reaches any request: the form is never posted, its value goes to the chart's event only. */}
          <input
            id={`${id}-password`}
            name="password"
            type="password"
            autoComplete="current-password"
            className={input}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? errorId : `${id}-text`}
            disabled={unlocking}
          />
        </div>
        <div role="alert" id={errorId}>
          {problem && <p className={styles.error}>{t(problem)}</p>}
        </div>
        <p role="status">{unlocking ? t('unlock.opening') : ''}</p>
        <div className={styles.actions}>
          <button type="submit" className={buttons.button} disabled={!canSubmit}>
            {t('unlock.submit')}
          </button>
          <button type="button" className={buttons.secondaryButton} onClick={() => session.send({ type: 'session.logout' })}>
            {t('unlock.logout')}
          </button>
        </div>
      </form>
    </div>
  );
}
