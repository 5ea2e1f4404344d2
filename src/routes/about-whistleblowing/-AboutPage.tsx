import type { AboutPageType } from '../../../machines/lookAndFeel.ts';
import { useT } from '../../i18n/index.ts';
import { useLookAndFeel } from '../../app/lookAndFeel.tsx';
import { Page, PageTitle, TextSections } from '../../components/PageTitle.tsx';
import { NotFound } from '../../components/NotFound.tsx';

/** An about page (spec §2): sections of heading and paragraph, line breaks kept. */
export function AboutPage({ type }: { type: AboutPageType }) {
  const t = useT();
  const laf = useLookAndFeel();
  const page = laf.siteAboutPages.find((p) => p.aboutPageType === type);
  // A page the company marked not visible is not served at its URL either (spec §2).
  if (page && !page.visible) return <NotFound />;
  return (
    <Page>
      <PageTitle title={page?.heading || t(`about.${type}.title`)} />
      {page && page.textSections.length > 0 ? <TextSections sections={page.textSections} /> : <p>{t('about.empty')}</p>}
    </Page>
  );
}
