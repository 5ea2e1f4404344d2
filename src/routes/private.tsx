/**
 * The one layout route of the private area (spec §2 Private routes). `beforeLoad`
 * sends the bare /private to the default landing and fetches the private
 * catalogue; the layout component (a lazy chunk, the only one that loads
 * oidc-client-ts) hands everything else over to the session chart
 * (machines/session.ts): sign-in, verification, refresh, expiry, log-out.
 * The server authorises every call itself; this guard is only convenience.
 */
import { createFileRoute, redirect } from '@tanstack/react-router';
import { loadRuntimeConfig } from '../api/config.ts';
import { PrivateLayout } from '../private/Layout.tsx';
import { PrivateLoading } from '../components/FormLoading.tsx';

export const Route = createFileRoute('/private')({
  beforeLoad: async ({ location, context }) => {
    if (/^\/private\/?$/.test(location.pathname)) throw redirect({ to: '/private/status', replace: true });
    const [{ loadCatalogue }, lang] = await Promise.all([
      import('../i18n/private/index.ts').then(() => import('../i18n/index.ts')),
      Promise.resolve(context.lookAndFeel?.getSnapshot().context.requested),
    ]);
    if (lang) await loadCatalogue('private', lang).catch(() => undefined);
  },
  loader: () => loadRuntimeConfig(),
  staleTime: Infinity,
  // "Opening the login…" at once after a tap on Log in, while the area's code loads.
  pendingComponent: PrivateLoading,
  pendingMs: 0,
  pendingMinMs: 0,
  component: PrivateRoute,
});

function PrivateRoute() {
  const config = Route.useLoaderData();
  return <PrivateLayout config={config} />;
}
