/**
 * Slots in the frame for another part of the app (the private area puts its
 * log-out button in both): `<FrameActions>` renders its children into the top bar
 * at every width, `<FrameMenuActions>` into the menu drawer while it is open.
 */
import { createContext, use, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export const FrameSlotContext = createContext<HTMLElement | null>(null);

export function FrameActions({ children }: { children: ReactNode }) {
  const slot = use(FrameSlotContext);
  return slot ? createPortal(children, slot) : null;
}

export const FrameMenuSlotContext = createContext<HTMLElement | null>(null);

export function FrameMenuActions({ children }: { children: ReactNode }) {
  const slot = use(FrameMenuSlotContext);
  return slot ? createPortal(children, slot) : null;
}
