import { useT } from '../i18n/index.ts';
import { Page, PageTitle } from './PageTitle.tsx';
import * as styles from './Status.css.ts';
import * as buttons from '../styles/button.css.ts';

/**
 * Spec §8 error page. Part of the main bundle, so it shows even when the server
 * is unreachable and no route chunk can be loaded.
 */
export function ErrorPage() {
  const t = useT();
  return (
    <Page>
      <PageTitle title={t('error.title')} />
      <p>{t('error.text')}</p>
      {/* A full page load: the app starts again and retries every load. */}
      <a href="/" className={buttons.button}>
        {t('error.tryAgain')}
      </a>
    </Page>
  );
}
