import { createFileRoute } from '@tanstack/react-router';
import { MessagesPage } from '../../private/MessagesPage.tsx';

export const Route = createFileRoute('/private/messages')({
  component: MessagesPage,
});
