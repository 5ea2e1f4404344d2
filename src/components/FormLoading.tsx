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

