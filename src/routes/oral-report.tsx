import { createFileRoute } from '@tanstack/react-router';
import { requireFrontPageOption } from './-guards.ts';
import { OralReportPage } from '../forms/ReportPage.tsx';

export const Route = createFileRoute('/oral-report')({
  beforeLoad: ({ context, location }) => requireFrontPageOption('showVerbalOption', { context, location }),
  component: OralReportPage,
});
