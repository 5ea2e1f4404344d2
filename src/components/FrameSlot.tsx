/**
 * Slots in the frame for another part of the app (the private area puts its
 * log-out button in both): `<FrameActions>` renders its children into the top bar
 * at every width, `<FrameMenuActions>` into the menu drawer while it is open.
 */
import { createContext, use, useEffect, useState, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';

/**
 * The top bar's slot, as a ref the frame fills when it commits. Not the element in
 * the frame's state: setting that from a ref callback re-rendered the frame
 * synchronously at the end of every page's first commit, with all passive effects
 * flushed in the same task (a long task on a slow phone), for a slot only the private
 * area uses (performance.md, fourteenth round).
 */
export const FrameSlotContext = createContext<RefObject<HTMLElement | null> | null>(null);

export function FrameActions({ children }: { children: ReactNode }) {
  const slotRef = use(FrameSlotContext);
  // A DOM node, not flow state. Mounted in the frame's own first commit, the slot is
  // not there yet while this renders: it is taken once that commit is done.
  const [slot, setSlot] = useState<HTMLElement | null>(() => slotRef?.current ?? null);
  useEffect(() => {
    if (slotRef?.current && slotRef.current !== slot) setSlot(slotRef.current);
  }, [slotRef, slot]);
  return slot ? createPortal(children, slot) : null;
}

export const FrameMenuSlotContext = createContext<HTMLElement | null>(null);

export function FrameMenuActions({ children }: { children: ReactNode }) {
  const slot = use(FrameMenuSlotContext);
  return slot ? createPortal(children, slot) : null;
}
