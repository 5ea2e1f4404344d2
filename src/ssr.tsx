/**
 * The first paint, rendered by the server (docs/decisions/first-paint.md).
 *
 * Built on its own (`vite build --ssr src/ssr.tsx --outDir dist/.ssr`) from the very
 * components the SPA renders, with the same class names, so the HTML of a public page
 * shows what the SPA will show before any script has run: the frame, the page's
 * heading and text in the company's look and feel and the page's language. The
 * server puts it into index.html as a picture of the page (`aria-hidden`, `inert`);
 * the SPA renders as before, and swaps its own tree in once its first screen is
 * ready (src/app/firstPaint.ts). Nothing is hydrated: a difference between the two
 * renders can cost a repaint, never a broken page.
 *
 * Only public pages are rendered: a private page depends on the reporter's session,
 * which the server does not have when it answers the HTML.
 */
import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
import { renderToString } from 'react-dom/server';
import { createMemoryHistory, RouterProvider } from '@tanstack/react-router';
import { createActor, waitFor } from 'xstate';
import { assignInlineVars } from '@vanilla-extract/dynamic';
import { createApiClient } from './api/client.ts';
import { apiBaseUrlOf } from './api/config.ts';
import { BootStore, type BootData } from '../core/boot.ts';
import { createAppRouter } from './app/router.tsx';
import { AppServicesProvider, browserLookAndFeelMachine } from './app/lookAndFeel.tsx';
import { themeVarsFor } from './app/Theme.tsx';
import { isLanguage, type Language } from './i18n/index.ts';

export interface FirstPaintInput {
  /** The route's path, without query or hash. */
  pathname: string;
  /** The host the page is for (the API client's company header; never fetched here). */
  host: string;
  /** What the server inlines as boot data: config, language, look and feel, company info. */
  boot: BootData & { language: Language };
}

export interface FirstPaint {
  /** The body's first screen, to put before `<div id="root">`. */
  html: string;
  /** The company's colours as CSS custom properties, for `<html style>`. */
  themeStyle: string;
  /** The page's title as the SPA sets it. */
  title: string | null;
}

/** Paths never rendered: they depend on the reporter's session or leave at once. */
const SKIPPED = /^\/(?:private|something-went-wrong)(?:\/|$)/;

/** Longest the server waits for a page to settle; a page still waiting is not rendered. */
const SETTLE_MS = 2000;

export async function renderFirstPaint({ pathname, host, boot }: FirstPaintInput): Promise<FirstPaint | null> {
  if (SKIPPED.test(pathname) || !boot.lookAndFeel || !boot.companyInfo || !isLanguage(boot.language)) return null;
  const baseUrl = (boot.config && apiBaseUrlOf(boot.config)) ?? null;
  if (!baseUrl) return null;
  // The server has every answer the page needs already; any request would be a bug.
  const api = createApiClient({
    baseUrl,
    companyHost: host,
    onUnauthorized: () => undefined,
    fetch: () => Promise.reject(new Error('no requests while rendering the first paint')),
  });
  const lookAndFeel = createActor(browserLookAndFeelMachine(api, new BootStore(boot)), { input: { language: boot.language } });
  lookAndFeel.start();
  try {
    const ready = await waitFor(lookAndFeel, (s) => s.matches('ready') || s.hasTag('failed'), { timeout: SETTLE_MS });
    if (!ready.matches('ready') || ready.context.language !== boot.language) return null;
    const router = createAppRouter(api, createMemoryHistory({ initialEntries: [pathname] }));
    router.update({ ...router.options, context: { ...router.options.context, lookAndFeel } });
    await router.load();
    const state = router.state;
    // Not found, redirected, or failed: the SPA decides, as without a first paint.
    const leaf = state.matches.at(-1);
    if (state.location.pathname !== pathname || !leaf || leaf.routeId === '__root__') return null;
    if (state.matches.some((m) => m.status !== 'success' || (m as { globalNotFound?: boolean }).globalNotFound)) return null;

    const app = (
      <StrictMode>
        <AppServicesProvider services={{ api, lookAndFeel, drawingPicture: true }}>
          <RouterProvider router={router} context={{ lookAndFeel }} />
        </AppServicesProvider>
      </StrictMode>
    );
    // First pass: wait for everything the page suspends on (its catalogues, the ICU
    // formatter, lazy parts). Its output is not used: React streams a boundary that
    // resolved late as a hidden segment plus an inline script to move it, which the
    // CSP would refuse. With all of it loaded the second pass renders in place.
    const errors: unknown[] = [];
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), SETTLE_MS);
    try {
      const { prelude } = await prerender(app, { signal: abort.signal, onError: (e) => void errors.push(e) });
      await new Response(prelude).arrayBuffer();
    } finally {
      clearTimeout(timer);
    }
    if (errors.length || abort.signal.aborted) return null;
    const html = renderToString(app);
    // Anything still suspended would be drawn as its fallback: better no picture.
    if (/<!--\$[?!]-->|<template/.test(html)) return null;
    const laf = ready.context.lookAndFeel;
    if (!laf) return null;
    const style = Object.entries(assignInlineVars(themeVarsFor(laf.siteColors)) as Record<string, string>)
      .map(([k, v]) => `${k}:${v}`)
      .join(';');
    return { html, themeStyle: style, title: null };
  } catch {
    return null;
  } finally {
    lookAndFeel.stop();
  }
}
