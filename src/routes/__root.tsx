import { Suspense, useEffect } from 'react';
import { createRootRouteWithContext, Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { useSelector } from '@xstate/react';
import type { RouterContext } from '../app/router.tsx';
import { useDisplayLanguage, useLookAndFeel, useLookAndFeelActor } from '../app/lookAndFeel.tsx';
import { ThemeSync } from '../app/Theme.tsx';
import { I18nProvider, useT } from '../i18n/index.ts';
import { Frame } from '../components/Frame.tsx';
import { ErrorPage } from '../components/ErrorPage.tsx';
import { NotFound } from '../components/NotFound.tsx';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import * as styles from '../components/Status.css.ts';
import * as buttons from '../styles/button.css.ts';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: Root,
  notFoundComponent: NotFound,
});

export const ERROR_PATH = '/something-went-wrong';

function Root() {
  const actor = useLookAndFeelActor();
  const language = useDisplayLanguage();
  const laf = useLookAndFeel();
  const failed = useSelector(actor, (s) => s.hasTag('failed'));
  const hasLookAndFeel = useSelector(actor, (s) => s.context.lookAndFeel !== null);
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const navigate = useNavigate();

  // Spec §8: no HTTP status for the look and feel, or company info 404/5xx/none.
  useEffect(() => {
    if (failed && pathname !== ERROR_PATH) void navigate({ to: ERROR_PATH, replace: true });
  }, [failed, pathname, navigate]);

  return (
    <I18nProvider language={language}>
      <ThemeSync colors={laf.siteColors} language={language} />
      <Suspense fallback={<Loading />}>
        {hasLookAndFeel || failed ? (
          <Frame>
            <Suspense fallback={<Loading />}>{failed ? <ErrorPage /> : <Outlet />}</Suspense>
          </Frame>
        ) : (
          <Loading />
        )}
      </Suspense>
    </I18nProvider>
  );
}

function Loading() {
  return <div className={styles.loading} aria-busy="true" />;
}

