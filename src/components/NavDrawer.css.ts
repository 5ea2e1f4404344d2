import { globalStyle, keyframes, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';
import { pathLink } from './NavLink.css.ts';

const slideIn = keyframes({ from: { transform: 'translateX(-100%)' }, to: { transform: 'translateX(0)' } });

export const content = style({
  position: 'fixed',
  top: 0,
  left: 0,
  bottom: 0,
  zIndex: 51,
  width: 'min(340px, 88vw)',
  overflowY: 'auto',
  background: vars.color.surface,
  color: vars.color.text,
  padding: '16px 16px 32px',
  boxShadow: vars.shadow.card,
  animation: `${slideIn} 160ms ease-out`,
  '@media': { '(prefers-reduced-motion: reduce)': { animation: 'none' } },
});
export const head = style({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', marginBottom: 12 });
export const title = style({ fontSize: '1.25rem', margin: 0 });
export const close = style({
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: 44,
  height: 44,
  border: `1px solid ${vars.color.border}`,
  borderRadius: 999,
  background: 'transparent',
  color: vars.color.text,
  cursor: 'pointer',
});
export const list = style({ listStyle: 'none', margin: 0, padding: 0 });
export const row = style({ display: 'flex', alignItems: 'center' });
export const link = style([
  pathLink,
  {
    flex: 1,
    gap: 10,
    minHeight: 48,
    padding: '8px 10px',
    selectors: { '&[aria-current="page"]': { boxShadow: `inset 3px 0 0 ${vars.color.primary}` } },
  },
]);
export const toggle = style([close, { border: 0 }]);
globalStyle(`${toggle}[data-state="open"] svg`, { transform: 'rotate(180deg)' });
export const children = style({ listStyle: 'none', margin: 0, padding: '0 0 0 28px' });
export const footer = style({ display: 'flex', flexDirection: 'column', gap: 12, marginTop: 24, paddingTop: 16, borderTop: `1px solid ${vars.color.border}` });
export const actions = style({ display: 'contents' });
