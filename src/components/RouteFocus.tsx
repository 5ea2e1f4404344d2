/**
 * Focus and announcement after a client-side route change, as a page load would give
 * a screen-reader user: the new page's <h1> takes the focus when it mounts and a
 * polite live region reads it.
 *
 * Event-driven, no timers: the router's `onBeforeNavigate` marks a move as pending,
 * and the page's heading claims it whenever it appears (at once, or after a lazy
 * chunk, the catalogues or the case have loaded).
 *
 * Not on the first load (the browser reads the page itself), not when only the
 * search or hash changes (a form step, a dialog), and never away from an open dialog,
 * a form field the user is in, or anything focused after the navigation began.
 */
import { createContext, use, useCallback, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { useRouter } from '@tanstack/react-router';
import { visuallyHidden } from '../styles/global.css.ts';

interface PendingMove {
  path: string;
  /** What had the focus when the navigation began (often the link, soon gone). */
  startActive: Element | null;
}

interface RouteFocus {
  claim(heading: HTMLElement): void;
  /**
   * A dialog that held the focus during the move is closing: true when the new page's
   * heading has taken, or will take, the focus instead of the dialog's trigger.
   */
  resume(): boolean;
}

const RouteFocusContext = createContext<RouteFocus | null>(null);

/** The focus stays where the user (or a dialog) has it. */
function keepsFocus(el: Element | null): boolean {
  if (!el || el === document.body) return false;
  if (el.closest('[role="dialog"], [role="alertdialog"]')) return true;
  return el.matches('input, textarea, select, [contenteditable="true"]');
}

export function RouteFocusProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  const live = useRef<HTMLDivElement>(null);
  const pending = useRef<PendingMove | null>(null);
  /** A heading that appeared while a dialog (the navigation drawer) held the focus. */
  const parked = useRef<HTMLElement | null>(null);

  useEffect(
    () =>
      router.subscribe('onBeforeNavigate', (e) => {
        // No fromLocation: the first load. Same path: a search or hash change.
        pending.current = e.fromLocation && e.pathChanged ? { path: e.toLocation.pathname, startActive: document.activeElement } : null;
        parked.current = null;
        if (pending.current && live.current) live.current.textContent = '';
      }),
    [router],
  );

  const value = useMemo<RouteFocus>(() => {
    const focusHeading = (heading: HTMLElement) => {
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus({ preventScroll: true });
      if (live.current) live.current.textContent = heading.textContent ?? '';
    };
    return {
      claim(heading) {
        const move = pending.current;
        if (!move || move.path !== router.state.location.pathname) return;
        pending.current = null;
        const active = document.activeElement;
        // A link in the drawer started the move: the drawer hands the focus on as it closes.
        if (active?.closest('[role="dialog"]') && move.startActive === active) parked.current = heading;
        if (keepsFocus(active)) return;
        const movedOn = active && active !== document.body && active !== move.startActive && active.isConnected;
        if (!movedOn) focusHeading(heading);
      },
      resume() {
        const heading = parked.current;
        parked.current = null;
        if (heading?.isConnected) {
          focusHeading(heading);
          return true;
        }
        // The new page has not shown its heading yet: leave the focus free for it.
        if (pending.current) {
          pending.current.startActive = null;
          return true;
        }
        return false;
      },
    };
  }, [router]);

  return (
    <RouteFocusContext value={value}>
      {children}
      <div ref={live} className={visuallyHidden} aria-live="polite" aria-atomic="true" />
    </RouteFocusContext>
  );
}

/** For a dialog's close: true when a page heading took the focus instead of the dialog's trigger. */
export function useResumeRouteFocus(): () => boolean {
  const focus = use(RouteFocusContext);
  return useCallback(() => focus?.resume() ?? false, [focus]);
}

/** A ref for a page's <h1>: it takes the focus when it appears after a route change. */
export function useRouteFocus<T extends HTMLElement>(): (el: T | null) => void {
  const focus = use(RouteFocusContext);
  return useCallback((el: T | null) => {
    if (el) focus?.claim(el);
  }, [focus]);
}
