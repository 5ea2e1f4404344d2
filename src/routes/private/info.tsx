import { createFileRoute } from '@tanstack/react-router';
import { InfoPage } from '../../private/InfoPage.tsx';

export const Route = createFileRoute('/private/info')({
  component: InfoPage,
});
