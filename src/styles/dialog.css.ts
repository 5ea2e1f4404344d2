/**
 * Modal dialogs (Radix portals render into <body>; the theme sits on :root, so the
 * company colours reach them).
 */
import { style } from '@vanilla-extract/css';
import { vars } from './theme.css.ts';

export const overlay = style({ position: 'fixed', inset: 0, background: 'rgba(0, 0, 0, 0.45)', zIndex: 50 });
export const dialog = style({
  position: 'fixed',
  zIndex: 51,
  top: '50%',
  left: '50%',
  transform: 'translate(-50%, -50%)',
  width: 'min(560px, calc(100vw - 32px))',
  maxHeight: 'calc(100vh - 32px)',
  overflowY: 'auto',
  background: vars.color.surface,
  color: vars.color.text,
  borderRadius: vars.radius.large,
  padding: '24px 28px',
  boxShadow: vars.shadow.card,
});
export const dialogTitle = style({ fontSize: '1.375rem', margin: '0 0 12px' });
/** A confirmation's buttons: cancel first, the action last, at the right. */
export const dialogActions = style({ display: 'flex', gap: 12, justifyContent: 'flex-end', flexWrap: 'wrap', marginTop: 20 });
