import { createFileRoute } from '@tanstack/react-router';
import { requireFrontPageOption } from './-guards.ts';
import { useT } from '../i18n/index.ts';
import { PageTitle } from '../components/PageTitle.tsx';

export const Route = createFileRoute('/book-meeting')({
  beforeLoad: ({ context, location }) => requireFrontPageOption('showBookingOption', { context, location }),
  component: BookMeeting,
});

// Placeholder until the forms (issue 5) take this route over.
function BookMeeting() {
  const t = useT();
  return <PageTitle title={t('landing.cards.meeting.title')} />;
}
