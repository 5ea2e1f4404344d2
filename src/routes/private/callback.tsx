/**
 * The OpenID redirect (and popup) target. The private layout's session chart
 * completes the sign-in here, then replaces this URL with the page the reporter
 * wanted; the code and state never stay in the address bar or the history.
 */
import { createFileRoute } from '@tanstack/react-router';

export const Route = createFileRoute('/private/callback')({
  component: () => null,
});
