/** What the top bar's and the drawer's navigation links share; each adds its size and current-page mark. */
import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const pathLink = style({
  display: 'flex',
  alignItems: 'center',
  borderRadius: vars.radius.small,
  color: vars.color.text,
  textDecoration: 'none',
  fontWeight: 500,
  selectors: {
    '&:hover': { background: vars.color.secondary, color: vars.color.onSecondary },
  },
});
