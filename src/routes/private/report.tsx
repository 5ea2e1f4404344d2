import { createFileRoute } from '@tanstack/react-router';
import { ReportPage } from '../../private/ReportPage.tsx';

export const Route = createFileRoute('/private/report')({
  component: ReportPage,
});
