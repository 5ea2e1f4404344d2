import { createFileRoute } from '@tanstack/react-router';
import { AboutPage } from './-AboutPage.tsx';

export const Route = createFileRoute('/about-whistleblowing/case-process')({
  component: CaseProcess,
});

function CaseProcess() {
  return <AboutPage type="CASE_MANAGEMENT" />;
}
