/**
 * App start: read the runtime config, create the API client and the router, then
 * render. The look-and-feel actor is created inside <AppProviders>.
 */
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from '@tanstack/react-router';
import './styles/global.css.ts';
import { loadRuntimeConfig } from './api/config.ts';
import { createApiClient } from './api/client.ts';
import { createAppRouter } from './app/router.tsx';
import { AppProviders } from './app/lookAndFeel.tsx';
import { initialLanguage } from './app/language.ts';
import { loadCatalogue } from './i18n/index.ts';
import { continueQuickExit, onQuickExit } from './app/quickExit.ts';
import { adoptFirstPaint } from './app/firstPaint.ts';
import { readBootData } from './api/boot.ts';

async function start() {
  // A page the quick exit travelled back to leaves before it shows anything.
  if (continueQuickExit()) return;
  window.addEventListener('pageshow', (e) => {
    if (e.persisted) continueQuickExit();
  });
  const language = initialLanguage();
  // Fetch the first catalogue while the config is read.
  void loadCatalogue('common', language).catch(() => undefined);
  const config = await loadRuntimeConfig();
  let router: ReturnType<typeof createAppRouter> | undefined;
  const api = createApiClient({
    baseUrl: config.apiBaseUrl,
    companyHost: window.location.hostname,
    // Spec §6/§8: a 401 or 403 anywhere sends the reporter to /.
    onUnauthorized: () => void router?.navigate({ to: '/' }),
  });
  router = createAppRouter(api);
  const appRouter = router;
  const container = document.getElementById('root')!;
  // The server's picture of this page shows until our own first screen is ready; a
  // stored language other than the one it was drawn in shows the live page at once.
  const showNow = adoptFirstPaint(container, { immediately: readBootData()?.language !== language });
  const root = createRoot(container);
  // Leaving quickly forgets every form and session actor with the tree that holds them.
  onQuickExit(() => {
    showNow();
    queueMicrotask(() => root.unmount());
  });
  // A transition: React renders the first screen in slices and yields between them,
  // so a slow phone's main thread is never held for the whole tree at once (the page
  // answers input sooner; Lighthouse's total blocking time, performance.md fifth round).
  startTransition(() =>
    root.render(
      <StrictMode>
        <AppProviders api={api} initialLanguage={language}>
          {({ lookAndFeel }) => <RouterProvider router={appRouter} context={{ lookAndFeel }} />}
        </AppProviders>
      </StrictMode>,
    ),
  );
}

void start();
