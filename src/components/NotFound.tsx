/** The not-found page (spec §2 "any other path"): title and a link home. */
import { Link } from '@tanstack/react-router';
import { useT } from '../i18n/index.ts';
import { Page, PageTitle } from './PageTitle.tsx';
import * as buttons from '../styles/button.css.ts';

export function NotFound() {
  const t = useT();
  return (
    <Page>
      <PageTitle title={t('notFound.title')} />
      <p>{t('notFound.text')}</p>
      <Link to="/" className={buttons.button}>
        {t('notFound.home')}
      </Link>
    </Page>
  );
}
