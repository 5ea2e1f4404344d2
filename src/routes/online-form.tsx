import { createFileRoute } from '@tanstack/react-router';
import { OnlineReportPage } from '../forms/ReportPage.tsx';

// The form is split into its own chunk (router autoCodeSplitting): the landing page never loads it.
export const Route = createFileRoute('/online-form')({
  component: OnlineReportPage,
});
