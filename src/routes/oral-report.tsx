import { createFileRoute } from '@tanstack/react-router';
import { FormLoading } from '../components/FormLoading.tsx';
import { requireFrontPageOption } from './-guards.ts';
import { OralReportPage } from '../forms/ReportPage.tsx';

export const Route = createFileRoute('/oral-report')({
  beforeLoad: ({ context, location }) => requireFrontPageOption('showVerbalOption', { context, location }),
  // "Loading the form…" at once while the form's chunk loads (a slow phone network takes seconds).
  pendingComponent: FormLoading,
  pendingMs: 0,
  pendingMinMs: 0,
  component: OralReportPage,
});
