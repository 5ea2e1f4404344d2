/** The pill-shaped actions shared by the public pages, the report forms and the private area. */
import { style } from '@vanilla-extract/css';
import { vars } from './theme.css.ts';

/** A primary action: a <button>, or a link that acts like one. */
export const button = style({
  font: 'inherit',
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  gap: 8,
  minHeight: 44,
  padding: '8px 20px',
  borderRadius: 999,
  border: `2px solid ${vars.color.primary}`,
  background: vars.color.primary,
  color: vars.color.onPrimary,
  fontWeight: 600,
  textDecoration: 'none',
  cursor: 'pointer',
  selectors: { '&:disabled': { opacity: 0.5, cursor: 'not-allowed' } },
});

export const secondaryButton = style([button, { background: vars.color.surface, color: vars.color.primary }]);
