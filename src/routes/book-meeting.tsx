import { createFileRoute } from '@tanstack/react-router';
import { FormLoading } from '../components/FormLoading.tsx';
import { requireFrontPageOption } from './-guards.ts';
import { MeetingReportPage } from '../forms/ReportPage.tsx';

export const Route = createFileRoute('/book-meeting')({
  beforeLoad: ({ context, location }) => requireFrontPageOption('showBookingOption', { context, location }),
  // "Loading the form…" at once while the form's chunk loads (a slow phone network takes seconds).
  pendingComponent: FormLoading,
  pendingMs: 0,
  pendingMinMs: 0,
  component: MeetingReportPage,
});
