import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const status = style({ gridColumn: '1 / -1', flexBasis: '100%', fontSize: '0.9375rem', display: 'grid', gap: 4 });
globalStyle(`${status} p`, { margin: 0 });
export const done = style({ fontWeight: 600 });
export const warning = style({ fontWeight: 600, color: vars.color.onWarning, background: vars.color.warning, padding: '4px 8px', borderRadius: vars.radius.small });
export const hint = style({ color: vars.color.text, fontSize: '0.875rem' });
export const choice = style({
  font: 'inherit',
  justifySelf: 'start',
  minHeight: 44,
  padding: '8px 12px',
  background: 'transparent',
  border: 'none',
  color: vars.color.primary,
  textDecoration: 'underline',
  cursor: 'pointer',
  selectors: { '&:disabled': { color: vars.color.text, opacity: 0.6, cursor: 'not-allowed', textDecoration: 'none' } },
});
