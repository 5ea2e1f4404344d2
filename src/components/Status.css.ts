import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const loading = style({ minHeight: '60vh' });
export const homeLink = style({
  display: 'inline-flex',
  alignItems: 'center',
  minHeight: 44,
  padding: '8px 20px',
  borderRadius: 999,
  background: vars.color.primary,
  color: vars.color.onPrimary,
  fontWeight: 600,
  textDecoration: 'none',
});
