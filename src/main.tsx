/**
 * App start: read the runtime config, create the API client, the look-and-feel actor
 * and the router, resolve the route, then render.
 */
import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { createActor } from 'xstate';
import { RouterProvider } from '@tanstack/react-router';
import './styles/global.css.ts';
import { loadRuntimeConfig } from './api/config.ts';
import { createApiClient } from './api/client.ts';
import { createAppRouter } from './app/router.tsx';
import { AppServicesProvider, browserLookAndFeelMachine } from './app/lookAndFeel.tsx';
import { firstLanguage, preferredLanguage } from './app/language.ts';
import { loadCatalogue, loadProvidedCatalogues, provideCatalogues } from './i18n/index.ts';
import { continueQuickExit, onQuickExit } from './app/quickExit.ts';
import { adoptFirstPaint } from './app/firstPaint.ts';
import { readBootData } from '../core/boot.ts';
import { yieldToMain } from './app/yieldToMain.ts';

async function start() {
  // The modules' evaluation was the task before; the start's own work is the next.
  await yieldToMain();
  // A page the quick exit travelled back to leaves before it shows anything.
  if (continueQuickExit()) return;
  window.addEventListener('pageshow', (e) => {
    if (e.persisted) continueQuickExit();
  });
  // Spec §1: the reporter's language if the company offers it, else the company's default.
  const { language, followDefault } = firstLanguage(preferredLanguage(), readBootData());
  // The route's catalogues in the page's language came with the page.
  provideCatalogues(readBootData()?.catalogues);
  // Fetch the first catalogue while the config is read.
  void loadCatalogue('common', language).catch(() => undefined);
  const config = await loadRuntimeConfig();
  // Evaluating the scripts was one task; building the router and the app's actor is the next.
  await yieldToMain();
  let router: ReturnType<typeof createAppRouter> | undefined;
  const api = createApiClient({
    baseUrl: config.apiBaseUrl,
    companyHost: window.location.hostname,
    // Spec §6/§8: a 401 or 403 anywhere sends the reporter to /.
    onUnauthorized: () => void router?.navigate({ to: '/' }),
  });
  router = createAppRouter(api);
  const appRouter = router;
  // One actor for the app's lifetime, made here rather than in a component so the
  // routes' guards have it before the first render.
  const lookAndFeel = createActor(browserLookAndFeelMachine(api, undefined, { followDefault }), { input: { language } }).start();
  appRouter.update({ ...appRouter.options, context: { ...appRouter.options.context, lookAndFeel } });
  await yieldToMain();
  // The route (guards, loaders, its lazy chunks) is resolved before the first render,
  // so the router does not load it again once mounted: that second load re-rendered the
  // whole page synchronously, one long task on a slow phone (performance.md, tenth
  // round). A failure here is the router's own to show when it loads on mount.
  // The route's catalogues too: one still loading would suspend the first render.
  await Promise.all([appRouter.load().catch(() => undefined), loadProvidedCatalogues(language)]);
  const container = document.getElementById('root')!;
  // The server's picture of this page shows until our own first screen is ready; a
  // stored language other than the one it was drawn in shows the live page at once.
  const showNow = adoptFirstPaint(container, { immediately: readBootData()?.language !== language });
  const root = createRoot(container);
  // Leaving quickly forgets every form and session actor with the tree that holds them.
  onQuickExit(() => {
    showNow();
    queueMicrotask(() => {
      root.unmount();
      lookAndFeel.stop();
    });
  });
  // A transition: React renders the first screen in slices and yields between them,
  // so a slow phone's main thread is never held for the whole tree at once (the page
  // answers input sooner; Lighthouse's total blocking time, performance.md fifth round).
  startTransition(() =>
    root.render(
      <StrictMode>
        <AppServicesProvider services={{ api, lookAndFeel }}>
          <RouterProvider router={appRouter} context={{ lookAndFeel }} />
        </AppServicesProvider>
      </StrictMode>,
    ),
  );
}

void start();
