import { createFileRoute } from '@tanstack/react-router';
import { requireFrontPageOption } from './-guards.ts';
import { useT } from '../i18n/index.ts';
import { PageTitle } from '../components/PageTitle.tsx';

export const Route = createFileRoute('/oral-report')({
  beforeLoad: ({ context, location }) => requireFrontPageOption('showVerbalOption', { context, location }),
  component: OralReport,
});

// Placeholder until the forms (issue 5) take this route over.
function OralReport() {
  const t = useT();
  return <PageTitle title={t('landing.cards.oral.title')} />;
}
