import { createFileRoute } from '@tanstack/react-router';
import { useT } from '../i18n/index.ts';
import { PageTitle } from '../components/PageTitle.tsx';

export const Route = createFileRoute('/online-form')({
  component: OnlineForm,
});

// Placeholder until the forms (issue 5) take this route over.
function OnlineForm() {
  const t = useT();
  return <PageTitle title={t('landing.cards.online.title')} />;
}
