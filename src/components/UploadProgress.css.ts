import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const progress = style({ gridColumn: '1 / -1', width: '100%', height: 8 });
/** Speed and time left (or "retrying") under a file's progress bar. */
export const rate = style({ gridColumn: '1 / -1', fontSize: '0.875rem', color: vars.color.textMuted });
