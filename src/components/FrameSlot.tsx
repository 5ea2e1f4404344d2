/**
 * A slot in the top bar's action area for another part of the app (the private
 * area puts its log-out button there): `<FrameActions>…</FrameActions>` anywhere
 * below the frame renders its children into the bar.
 */
import { createContext, use, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

export const FrameSlotContext = createContext<HTMLElement | null>(null);

export function FrameActions({ children }: { children: ReactNode }) {
  const slot = use(FrameSlotContext);
  return slot ? createPortal(children, slot) : null;
}
