/**
 * "Loading the form…" from the first moment a reporter taps a channel card: shown by
 * the router while the form's chunk loads (pendingMs 0) and while the form's own
 * catalogue loads. On a slow phone network that is seconds, which must not look like
 * a dead tap. It lives in the main bundle and reads only the common catalogue.
 */
import { useT } from '../i18n/index.ts';
import { Page } from './PageTitle.tsx';
import * as styles from './FormLoading.css.ts';

export function FormLoading() {
  const t = useT();
  return (
    <Page>
      <p className={styles.loading} role="status" aria-busy="true" data-testid="form-loading">
        {t('page.loadingForm')}
      </p>
    </Page>
  );
}


/**
 * The private area's first moments (issue 42): a tap on "Log in" or a return from the
 * sign-in page says at once what is happening, while the area's code and catalogue
 * load on a slow phone. Shown by the router (pendingMs 0) and by the layout while
 * the session is checked.
 */
export function PrivateLoading() {
  const t = useT();
  const returning = typeof window !== 'undefined' && window.location.pathname === '/private/callback';
  return (
    <Page>
      <p className={styles.loading} role="status" aria-busy="true" data-testid="private-loading">
        {t(returning ? 'page.openingCase' : 'page.openingSignIn')}
      </p>
    </Page>
  );
}
