import { createFileRoute } from '@tanstack/react-router';
import { AboutPage } from './-AboutPage.tsx';

export const Route = createFileRoute('/about-whistleblowing/anonymity')({
  component: Anonymity,
});

function Anonymity() {
  return <AboutPage type="ANONYMITY" />;
}
