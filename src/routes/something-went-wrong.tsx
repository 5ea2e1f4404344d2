import { createFileRoute } from '@tanstack/react-router';
import { useT } from '../i18n/index.ts';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import * as styles from './-pages.css.ts';

export const Route = createFileRoute('/something-went-wrong')({
  component: SomethingWentWrong,
});

function SomethingWentWrong() {
  const t = useT();
  return (
    <Page>
      <PageTitle title={t('error.title')} />
      <p>{t('error.text')}</p>
      {/* A full page load: the app starts again and retries every load. */}
      <a href="/" className={styles.button}>
        {t('error.tryAgain')}
      </a>
    </Page>
  );
}
