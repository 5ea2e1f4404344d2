/** A text input or textarea on the theme's colours; aria-invalid marks it red. */
import { style } from '@vanilla-extract/css';
import { vars } from './theme.css.ts';

export const input = style({
  font: 'inherit',
  padding: '10px 12px',
  minHeight: 44,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  background: vars.color.surface,
  color: vars.color.text,
  selectors: { '&[aria-invalid="true"]': { borderColor: vars.color.error } },
});
