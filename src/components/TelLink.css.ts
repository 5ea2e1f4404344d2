import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

/** A tap target of at least 44 px high. */
export const tel = style({
  display: 'inline-flex',
  alignItems: 'center',
  minHeight: 44,
  color: vars.color.link,
});
export const number = style({ whiteSpace: 'nowrap' });
export const hint = style({ display: 'block', fontSize: '0.875rem', color: vars.color.textMuted, margin: '4px 0 0' });
