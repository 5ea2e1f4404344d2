import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const box = style({
  display: 'grid',
  gap: 12,
  padding: 16,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  background: vars.color.surface,
});

export const heading = style({ margin: 0, fontSize: '1.05rem' });
export const note = style({ margin: 0, color: vars.color.textMuted });
export const actions = style({ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'center' });
export const meter = style({ width: '100%', maxWidth: 320, height: 16 });
export const status = style({ margin: 0, fontVariantNumeric: 'tabular-nums' });
export const player = style({ width: '100%', maxWidth: 420, minHeight: 44 });
export const takes = style({ display: 'grid', gap: 16 });
export const take = style({ display: 'grid', gap: 6 });
export const choices = style({ border: 0, padding: 0, margin: 0, display: 'grid', gap: 4 });
export const choice = style({ display: 'flex', alignItems: 'center', gap: 10, minHeight: 44, cursor: 'pointer' });
export const radio = style({ width: 22, height: 22, margin: 0 });
export const link = style({ color: vars.color.link, minHeight: 44, display: 'inline-flex', alignItems: 'center' });
