/**
 * "Leave quickly" (docs/decisions/quick-exit.md). One call leaves at once:
 * - hides the page and forgets everything in memory (the React root is unmounted,
 *   so every form and session actor stops) and in this tab's sessionStorage (the
 *   OpenID tokens, state and PKCE verifier);
 * - goes back to the first portal entry of this tab's history with the Navigation
 *   API and *replaces* it with the blank /leave page, so Back leads to the page the
 *   reporter came from, never to a portal page; /leave then drops the portal's
 *   forward entries and goes on to the company's neutral address, if it set one.
 * Browsers give a page no way to delete history entries; this is the most they
 * allow. Without the Navigation API only the current entry is replaced.
 */
import { QUICK_EXIT_FLAG as FLAG } from '../../machines/config.ts';

export const LEAVE_PATH = '/leave';

/** Alt+Q (Option+Q): no browser, screen reader or dialog uses it; AltGr+Q (@ on German keyboards) does not count. */
export function isQuickExitKey(e: KeyboardEvent): boolean {
  return e.code === 'KeyQ' && e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.getModifierState?.('AltGraph');
}

const forgetters = new Set<() => void>();

/** Registers what must be forgotten on leaving (main.tsx: unmount the app). */
export function onQuickExit(forget: () => void): () => void {
  forgetters.add(forget);
  return () => forgetters.delete(forget);
}

interface NavEntry {
  key: string;
  index: number;
}
interface NavigationLike {
  currentEntry: NavEntry | null;
  entries(): NavEntry[];
  traverseTo(key: string): { committed: Promise<unknown>; finished: Promise<unknown> };
  addEventListener(type: 'currententrychange', fn: () => void, opts?: { once?: boolean }): void;
}

function replaceWithLeave() {
  window.location.replace(LEAVE_PATH);
}

export function quickExit(): void {
  document.documentElement.style.visibility = 'hidden';
  document.title = '';
  try {
    window.sessionStorage.clear();
  } catch {
    /* storage disabled: nothing stored either */
  }
  const nav = (window as unknown as { navigation?: NavigationLike }).navigation;
  const current = nav?.currentEntry;
  const first = nav?.entries()[0];
  if (nav && current && first && current.index > 0) {
    // Cross-document arrival: the page there sees the flag before it shows anything.
    try {
      window.sessionStorage.setItem(FLAG, '1');
    } catch {
      /* then the first entry stays a portal page; see the decision */
    }
    // Same-document arrival: this document is still here when the entry changes.
    nav.addEventListener('currententrychange', replaceWithLeave, { once: true });
    nav.traverseTo(first.key).committed.catch(replaceWithLeave);
  } else {
    replaceWithLeave();
  }
  for (const forget of forgetters) {
    try {
      forget();
    } catch {
      /* leaving matters more than a clean unmount */
    }
  }
  forgetters.clear();
}

/**
 * Called first at start and on every `pageshow`: a page reached by the traversal
 * above (loaded anew or restored from the back/forward cache) leaves at once.
 * True when it is leaving, so the app must not render.
 */
export function continueQuickExit(): boolean {
  let flagged = false;
  try {
    flagged = window.sessionStorage.getItem(FLAG) === '1';
    if (flagged) window.sessionStorage.removeItem(FLAG);
  } catch {
    return false;
  }
  if (flagged) {
    document.documentElement.style.visibility = 'hidden';
    replaceWithLeave();
  }
  return flagged;
}
