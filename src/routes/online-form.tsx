import { createFileRoute } from '@tanstack/react-router';
import { FormLoading } from '../components/FormLoading.tsx';
import { OnlineReportPage } from '../forms/ReportPage.tsx';

// The form is split into its own chunk (router autoCodeSplitting): the landing page never loads it.
export const Route = createFileRoute('/online-form')({
  // "Loading the form…" at once while the form's chunk loads (a slow phone network takes seconds).
  pendingComponent: FormLoading,
  pendingMs: 0,
  pendingMinMs: 0,
  component: OnlineReportPage,
});
