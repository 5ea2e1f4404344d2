import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const form = style({ display: 'grid', gap: 16, marginTop: 24 });
export const field = style({ display: 'grid', gap: 6, maxWidth: 420 });
export const label = style({ fontWeight: 600 });
export const error = style({ color: vars.color.error, margin: 0 });
export const actions = style({ display: 'flex', flexWrap: 'wrap', gap: 12 });
