import { createFileRoute } from '@tanstack/react-router';
import { AboutPage } from './-AboutPage.tsx';

export const Route = createFileRoute('/about-whistleblowing/personal-data')({
  component: PersonalData,
});

function PersonalData() {
  return <AboutPage type="PERSONAL_DATA" />;
}
