/**
 * Focus and announcement after a client-side route change, as a page load would give
 * a screen-reader user: the focus moves to the new page's <h1> (or to <main> when
 * the page shows none) and a polite live region reads the page title.
 *
 * Not on the first load (the browser reads the page itself), not when only the
 * search or hash changes (a form step, a dialog), and never away from an open dialog,
 * a form field the user is in, or anything focused after the navigation began.
 */
import { useEffect, useRef } from 'react';
import { useRouter } from '@tanstack/react-router';
import { visuallyHidden } from '../styles/global.css.ts';

const POLL_MS = 50;
/** How long a page may take to show its heading (lazy chunks, catalogues, the case). */
const WAIT_MS = 5000;
/** How long the focused heading must stay before the move counts as done. */
const SETTLE_MS = 200;

export function RouteFocus() {
  const router = useRouter();
  const live = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let cancel = () => {};
    const unsubscribe = router.subscribe('onResolved', (e) => {
      cancel();
      // No fromLocation: the first load. A redirect back to the same path is no move.
      if (!e.fromLocation || !e.pathChanged) return;
      if (live.current) live.current.textContent = '';
      cancel = focusNewPage((title) => {
        if (live.current) live.current.textContent = title;
      });
    });
    return () => {
      unsubscribe();
      cancel();
    };
  }, [router]);

  return <div ref={live} className={visuallyHidden} aria-live="polite" aria-atomic="true" />;
}

/** The focus stays where the user (or a dialog) has it. */
function keepsFocus(el: Element | null): boolean {
  if (!el || el === document.body) return false;
  if (el.closest('[role="dialog"], [role="alertdialog"]')) return true;
  return el.matches('input, textarea, select, [contenteditable="true"]');
}

/** Waits for the new page's heading and moves the focus there; returns a cancel. */
function focusNewPage(announce: (title: string) => void): () => void {
  const start = document.activeElement;
  let focused: HTMLElement | null = null;
  let waited = 0;
  let settled = 0;
  const timer = window.setInterval(() => {
    waited += POLL_MS;
    if (waited > 2 * WAIT_MS) return finish(null);
    const active = document.activeElement;
    const lost = !active || active === document.body;
    if (focused) {
      if (active === focused && focused.isConnected) {
        settled += POLL_MS;
        if (settled >= SETTLE_MS) finish(document.title || focused.textContent || '');
        return;
      }
      // Something else took the focus on purpose: leave it there.
      if (!lost) return finish(document.title);
      settled = 0; // the heading was replaced (the page re-rendered): focus the new one
    } else if (!lost && active !== start) {
      return finish(null); // the user moved on before the page showed
    }
    if (keepsFocus(active)) return finish(null);
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
      focused = heading;
    } else if (waited >= WAIT_MS) {
      const main = document.querySelector<HTMLElement>('main');
      if (lost) main?.focus({ preventScroll: true });
      finish(document.title);
    }
  }, POLL_MS);
  const finish = (title: string | null) => {
    window.clearInterval(timer);
    if (title) announce(title);
  };
  return () => window.clearInterval(timer);
}
