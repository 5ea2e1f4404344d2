import { createFileRoute } from '@tanstack/react-router';
import { useT } from '../i18n/index.ts';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import { Page, PageTitle, TextSections } from '../components/PageTitle.tsx';

export const Route = createFileRoute('/how-to-report')({
  component: HowToReport,
});

function HowToReport() {
  const t = useT();
  const { siteHowToReportPage } = useLookAndFeel();
  return (
    <Page>
      <PageTitle title={siteHowToReportPage.heading || t('howToReport.title')} />
      {siteHowToReportPage.textSections.length === 0 ? <p>{t('howToReport.empty')}</p> : <TextSections sections={siteHowToReportPage.textSections} />}
    </Page>
  );
}
