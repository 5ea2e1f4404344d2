import { createFileRoute } from '@tanstack/react-router';
import { requireFrontPageOption } from './-guards.ts';
import { MeetingReportPage } from '../forms/ReportPage.tsx';

export const Route = createFileRoute('/book-meeting')({
  beforeLoad: ({ context, location }) => requireFrontPageOption('showBookingOption', { context, location }),
  component: MeetingReportPage,
});
