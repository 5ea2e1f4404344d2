/**
 * Where the focus goes when a machine-controlled dialog closes. Radix returns it to
 * the dialog's Trigger, but these dialogs open from a machine state and have none,
 * so without this the focus would fall to <body> and a keyboard user would start
 * again from the top of the page (WCAG 2.4.3).
 */
import { useRef } from 'react';

export function useReturnFocus(override?: () => boolean) {
  const returnTo = useRef<HTMLElement | null>(null);
  return {
    onOpenAutoFocus: () => {
      // Called before the dialog moves the focus in: this is what had it.
      const active = document.activeElement;
      returnTo.current = active instanceof HTMLElement && active !== document.body ? active : null;
    },
    onCloseAutoFocus: (e: Event) => {
      e.preventDefault();
      if (override?.()) return;
      const target = returnTo.current;
      returnTo.current = null;
      if (target?.isConnected) target.focus({ preventScroll: true });
    },
  };
}
