import { createRouter, type ParsedLocation, type RouterHistory } from '@tanstack/react-router';
import { routeTree } from '../routeTree.gen.ts';
import type { ApiClient } from '../api/client.ts';
import type { LookAndFeelActor } from './lookAndFeel.tsx';

/** What every route's `beforeLoad`/`loader` gets in `context`. */
export interface RouterContext {
  api: ApiClient;
  lookAndFeel: LookAndFeelActor;
  /** The location shown before the navigation under way (undefined on first load). */
  previousLocation: () => ParsedLocation | undefined;
}

/** `history`: the server's first-paint render passes a memory history (src/ssr.tsx). */
export function createAppRouter(api: ApiClient, history?: RouterHistory) {
  const router = createRouter({
    routeTree,
    ...(history ? { history } : {}),
    context: {
      api,
      // Supplied by <RouterProvider context> once the app's actor exists.
      lookAndFeel: undefined as unknown as LookAndFeelActor,
      previousLocation: () => router.state.resolvedLocation,
    },
    defaultPreload: false,
    scrollRestoration: true,
  });
  return router;
}

declare module '@tanstack/react-router' {
  interface Register {
    router: ReturnType<typeof createAppRouter>;
  }
}
