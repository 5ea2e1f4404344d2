/** The white card every page section sits on. */
import { style } from '@vanilla-extract/css';
import { vars } from './theme.css.ts';

export const card = style({
  background: vars.color.surface,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
  padding: '20px 24px',
  marginBottom: 16,
});
