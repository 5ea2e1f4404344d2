import { createFileRoute } from '@tanstack/react-router';
import { ErrorPage } from '../components/ErrorPage.tsx';

export const Route = createFileRoute('/something-went-wrong')({
  component: ErrorPage,
});
