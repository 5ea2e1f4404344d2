/**
 * The handlers' workspace (issue 14): its own entry and a code-based route tree whose
 * pages are lazy chunks (docs/decisions/handler-spa.md). Sharing with the reporter's
 * side: the API client, the schema module, the design system and i18n only.
 */
import { StrictMode, useEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, RouterProvider } from '@tanstack/react-router';
import { useActorRef } from '@xstate/react';
import { fromPromise } from 'xstate';
import '../styles/global.css.ts';
import '../i18n/handler/index.ts';
import '../i18n/admin/index.ts';
import '../i18n/keys/index.ts';
import '../i18n/sealed/index.ts';
import '../i18n/revoke/index.ts';
import '../i18n/export/index.ts';
import '../i18n/statistics/index.ts';
import { loadRuntimeConfig } from '../api/config.ts';
import { createApiClient } from '../api/client.ts';
import { I18nProvider, loadCatalogue, type Language } from '../i18n/index.ts';
import { initialLanguage, storeLanguage } from '../app/language.ts';
import { handlerSessionMachine, type Credentials } from '../../machines/handler/session.ts';
import { handlerApi } from './api.ts';
import { handlerKeys } from './keys.ts';
import { sealedCaseEffects } from './sealed.ts';
import { draftStore } from './drafts.ts';
import { HandlerContext } from './context.ts';
import { Layout } from './Layout.tsx';

const rootRoute = createRootRoute({ component: Layout });
const routeTree = rootRoute.addChildren([
  createRoute({ getParentRoute: () => rootRoute, path: '/handler', component: lazyRouteComponent(() => import('./SignInPage.tsx'), 'SignInPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/enrol', component: lazyRouteComponent(() => import('./EnrolPage.tsx'), 'EnrolPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/keys', component: lazyRouteComponent(() => import('./KeysPage.tsx'), 'KeysPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/statistics', component: lazyRouteComponent(() => import('./StatisticsPage.tsx'), 'StatisticsPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/cases', component: lazyRouteComponent(() => import('./InboxPage.tsx'), 'InboxPage') }),
  // A report that came by letter, e-mail or in person (docs/decisions/handler-entered-reports.md); a static segment, so it wins over $caseNumber.
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/cases/new', component: lazyRouteComponent(() => import('./CaseEntryPage.tsx'), 'CaseEntryPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/cases/$caseNumber', component: lazyRouteComponent(() => import('./CasePage.tsx'), 'CasePage') }),
  // The administration (docs/decisions/administration.md): the server decides who may; these only show.
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/admin/$companyId', component: lazyRouteComponent(() => import('./admin/AccountsPage.tsx'), 'AccountsPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/operator', component: lazyRouteComponent(() => import('./admin/OperatorPage.tsx'), 'OperatorPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/company', component: lazyRouteComponent(() => import('./admin/CompanyEditorPage.tsx'), 'CompanyEditorPage') }),
  createRoute({ getParentRoute: () => rootRoute, path: '/handler/templates', component: lazyRouteComponent(() => import('./admin/TemplatesPage.tsx'), 'TemplatesPage') }),
]);
const router = createRouter({ routeTree });

// Not registered with TanStack's `Register`: that slot types the reporter's router
// (one TypeScript program); handler links go through ./links.tsx instead.

function HandlerRoot({
  apiBaseUrl,
  firstLanguage,
}: {
  apiBaseUrl: string;
  firstLanguage: Language;
}) {
  const [language, setLanguageState] = useState(firstLanguage);
  // Calls that succeed move the session chart's idle clock; a 401 ends it there.
  const bridge = useRef<{ touch: () => void; expired: () => void }>({ touch: () => {}, expired: () => {} });
  const rawApi = useMemo(
    () =>
        createApiClient({
          baseUrl: apiBaseUrl,
          companyHost: window.location.hostname,
          onUnauthorized: (status) => {
            if (status === 401) bridge.current.expired();
          },
          // The shared client omits credentials (the reporter's side has no cookies);
          // the workspace's session is its same-origin HttpOnly cookie.
          fetch: async (input, init) => {
            const res = await fetch(input, { ...init, credentials: 'same-origin' });
            if (res.ok) bridge.current.touch();
            return res;
          },
        }),
    [apiBaseUrl],
  );
  const api = useMemo(() => {
    const keys = handlerKeys(rawApi, window.localStorage, window.location.hostname);
    return { ...handlerApi(rawApi, keys), keys, sealed: sealedCaseEffects(rawApi, keys) };
  }, [rawApi]);
  const drafts = useMemo(() => draftStore(window.indexedDB), []);
  const session = useActorRef(
    handlerSessionMachine.provide({
      actions: {
        // A sign-out by choice: nothing of this handler's stays on the device.
        discardDrafts: (_, handlerId) => {
          if (handlerId) void drafts.removeAllOf(handlerId).catch(() => undefined);
        },
      },
      actors: {
        checkSession: fromPromise(() => api.checkSession()),
        signIn: fromPromise(({ input }: { input: Credentials }) =>
          api.signIn(input),
        ),
        refreshSession: fromPromise(() => api.refreshSession()),
        signOut: fromPromise(() => api.signOut()),
        unlockKeys: fromPromise(({ input }: { input: { secret: string } }) =>
          api.keys.unlock(input.secret),
        ),
      },
    }),
  );
  useEffect(() => {
    bridge.current = {
      touch: () => session.send({ type: "session.touch" }),
      expired: () => session.send({ type: "session.expired" }),
    };
  }, [session]);
  const env = useMemo(
    () => ({
      api,
      rawApi,
      session,
      drafts,
      language,
      setLanguage: (l: Language) => {
        storeLanguage(l);
        void Promise.all([
          loadCatalogue("common", l),
          loadCatalogue("handler", l),
          loadCatalogue("keys", l),
          loadCatalogue("sealed", l),
        ]).then(() => setLanguageState(l));
      },
    }),
    [api, rawApi, session, drafts, language],
  );
  return (
    <HandlerContext value={env}>
      <I18nProvider language={language}>
        <RouterProvider router={router} />
      </I18nProvider>
    </HandlerContext>
  );
}

async function start() {
  const language = initialLanguage();
  const [config] = await Promise.all([
    loadRuntimeConfig(),
    loadCatalogue("common", language).catch(() => undefined),
    loadCatalogue("handler", language).catch(() => undefined),
    loadCatalogue("keys", language).catch(() => undefined),
    loadCatalogue("sealed", language).catch(() => undefined),
  ]);
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      <HandlerRoot apiBaseUrl={config.apiBaseUrl} firstLanguage={language} />
    </StrictMode>,
  );
}

void start();
