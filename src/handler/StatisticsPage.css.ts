import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

/** A count table: the category on the left, its number right-aligned in tabular figures. */
export const counts = style({ width: '100%', borderCollapse: 'collapse', margin: '0 0 8px' });
export const caption = style({ textAlign: 'left', fontWeight: 600, padding: '0 0 6px' });
export const cell = style({ padding: '8px 10px', borderBottom: `1px solid ${vars.color.border}`, textAlign: 'left' });
export const number = style([cell, { textAlign: 'right', fontVariantNumeric: 'tabular-nums' }]);
