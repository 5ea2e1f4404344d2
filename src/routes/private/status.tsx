import { createFileRoute } from '@tanstack/react-router';
import { StatusPage } from '../../private/StatusPage.tsx';

export const Route = createFileRoute('/private/status')({
  component: StatusPage,
});
