/**
 * The server's first paint (src/ssr.tsx, docs/decisions/first-paint.md) is a picture
 * of the page, drawn before any script runs. The SPA renders its own tree into the
 * hidden #root and swaps it in, in one step, once its first screen is ready: the
 * frame is there and nothing in it is still loading (`aria-busy`). So the reporter
 * never sees the page go blank or step back to "Loading…" in between.
 *
 * Not a view and not flow: a one-off bootstrap step on two DOM nodes. The wait is
 * bounded: a page still busy `settleMs` (300 ms) after its frame appeared is shown as it is:
 * the picture does not answer the keyboard or taps, so it must not stand in for long.
 */
export const FIRST_PAINT_ELEMENT_ID = 'wb-first-paint';

export interface AdoptOptions {
  /** How long a rendered frame may stay busy before it is shown anyway. */
  settleMs?: number;
  /** Show the SPA at once (e.g. it renders in another language than the picture). */
  immediately?: boolean;
}

/** Returns a function that swaps at once (for leaving the page). */
export function adoptFirstPaint(container: HTMLElement, { settleMs = 300, immediately = false }: AdoptOptions = {}): () => void {
  const doc = container.ownerDocument;
  const picture = doc.getElementById(FIRST_PAINT_ELEMENT_ID);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let observer: MutationObserver | undefined;
  const swap = () => {
    observer?.disconnect();
    if (timer !== undefined) clearTimeout(timer);
    picture?.remove();
    container.hidden = false;
  };
  if (!picture || immediately) {
    swap();
    return swap;
  }
  const check = () => {
    const main = container.querySelector('main');
    if (!main) return;
    if (!container.querySelector('[aria-busy="true"]')) return swap();
    timer ??= setTimeout(swap, settleMs);
  };
  // Mutation records arrive in the microtask after React's commit, before the
  // browser paints it: the picture and the live page are never both on screen.
  observer = new MutationObserver(check);
  observer.observe(container, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-busy'] });
  check();
  return swap;
}
