/**
 * The app's look-and-feel actor, created once per app (never a module singleton): by
 * `start()` in src/main.tsx, before the router resolves the first route, or by
 * <AppProviders> where a tree makes its own (the view tests). Hooks for views: they
 * read snapshots and send events.
 */
import { createContext, use, type ReactNode } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise, type ActorRefFrom } from 'xstate';
import {
  DEFAULT_LOOK_AND_FEEL,
  lookAndFeelMachine,
  type LookAndFeel,
} from '../../machines/lookAndFeel.ts';
import type { ApiClient } from '../api/client.ts';
import { getCompanyInfo, getLookAndFeel } from '../api/public.ts';
import { BootStore } from '../../core/boot.ts';
import { isLanguage, loadCatalogue, type Language } from '../i18n/index.ts';
import { storeLanguage } from './language.ts';

export type LookAndFeelActor = ActorRefFrom<typeof lookAndFeelMachine>;

/**
 * The machine with the real fetches and storage. The first look and feel and the
 * company info come from the page itself when the server inlined them.
 * `followDefault`: the reporter has no preference of their own (no stored choice, no
 * supported browser language) and the page said nothing about the company, so the
 * first answer's `defaultLanguage` is the language to show (spec §1 "otherwise the
 * site default"), and is fetched when the answer came in another one.
 */
export function browserLookAndFeelMachine(api: ApiClient, boot: BootStore = new BootStore(), opts: { followDefault?: boolean } = {}) {
  let followDefault = opts.followDefault === true;
  return lookAndFeelMachine.provide({
    actors: {
      fetchLookAndFeel: fromPromise(
        async ({ input, signal }: { input: { language: Language; orDefault: boolean }; signal: AbortSignal }) => {
          const follow = followDefault && input.orDefault;
          followDefault = false;
          // Load the language's catalogue alongside, so switching never flashes a fallback.
          const inlined = boot.takeLookAndFeel(input.language, input.orDefault);
          let [lookAndFeel] = await Promise.all([
            inlined ?? getLookAndFeel(api, input.language, signal, input.orDefault),
            loadCatalogue('common', input.language).catch(() => null),
          ]);
          if (follow && isLanguage(lookAndFeel.defaultLanguage) && lookAndFeel.defaultLanguage !== lookAndFeel.languageCode) {
            lookAndFeel = await getLookAndFeel(api, lookAndFeel.defaultLanguage, signal, true);
          }
          // The company answered in its default language: make sure that catalogue is there too.
          if (isLanguage(lookAndFeel.languageCode) && lookAndFeel.languageCode !== input.language) {
            await loadCatalogue('common', lookAndFeel.languageCode).catch(() => null);
          }
          return lookAndFeel;
        },
      ),
      fetchCompanyInfo: fromPromise(async ({ signal }) => boot.takeCompanyInfo() ?? getCompanyInfo(api, signal)),
    },
    actions: {
      storeLanguage: (_, params) => storeLanguage(params.language),
    },
  });
}

interface AppServices {
  api: ApiClient;
  lookAndFeel: LookAndFeelActor;
  /**
   * True while the server draws a page's first-paint picture (src/ssr.tsx): a view
   * may then draw less than the live page's first render (see useDrawingPicture).
   */
  drawingPicture?: boolean;
}

const AppContext = createContext<AppServices | null>(null);

export function AppProviders({
  api,
  initialLanguage,
  children,
}: {
  api: ApiClient;
  initialLanguage: Language;
  children: (services: AppServices) => ReactNode;
}) {
  const lookAndFeel = useActorRef(browserLookAndFeelMachine(api), { input: { language: initialLanguage } });
  const services = { api, lookAndFeel };
  return <AppContext value={services}>{children(services)}</AppContext>;
}

/**
 * The same context around an actor made elsewhere: the browser's start-up
 * (src/main.tsx) and the server's first-paint render (src/ssr.tsx) make theirs
 * before they render.
 */
export function AppServicesProvider({ services, children }: { services: AppServices; children: ReactNode }) {
  return <AppContext value={services}>{children}</AppContext>;
}

function useServices(): AppServices {
  const s = use(AppContext);
  if (!s) throw new Error('AppProviders missing');
  return s;
}

export function useApi(): ApiClient {
  return useServices().api;
}

/**
 * True in the server's first-paint picture. The picture is painted by a slow phone
 * before any script and answers no tap, so a view whose live first render is long
 * (the report form's seven steps) draws its short loading screen there instead.
 */
export function useDrawingPicture(): boolean {
  return useServices().drawingPicture === true;
}

export function useLookAndFeelActor(): LookAndFeelActor {
  return useServices().lookAndFeel;
}

/** The company's look and feel, or the spec §3 defaults while none is loaded. */
export function useLookAndFeel(): LookAndFeel {
  return useSelector(useLookAndFeelActor(), (s) => s.context.lookAndFeel ?? DEFAULT_LOOK_AND_FEEL);
}

export function useDisplayLanguage(): Language {
  return useSelector(useLookAndFeelActor(), (s) => s.context.language);
}
