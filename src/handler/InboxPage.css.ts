/** The inbox's table (issue 38): sortable headers, and at narrow widths one card per case, so 390 px never scrolls sideways. */
import { style, globalStyle } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

const NARROW = 'screen and (max-width: 56rem)';

export const table = style({ width: '100%', borderCollapse: 'collapse', background: vars.color.surface });
globalStyle(`${table} th, ${table} td`, { textAlign: 'left', padding: '8px 6px', borderBottom: `1px solid ${vars.color.border}`, verticalAlign: 'top', overflowWrap: 'anywhere' });

export const sortButton = style({
  font: 'inherit',
  fontWeight: 700,
  minHeight: 44,
  minWidth: 44,
  padding: '4px 2px',
  border: 0,
  background: 'transparent',
  color: 'inherit',
  cursor: 'pointer',
  textAlign: 'left',
  textDecoration: 'underline dotted',
});

export const head = style({
  '@media': { [NARROW]: { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } },
});

// Narrow: every row a card, every cell a line "label: value" (the label from data-label).
globalStyle(`${table} tbody tr`, { '@media': { [NARROW]: { display: 'block', borderBottom: `2px solid ${vars.color.border}`, padding: '8px 0' } } });
globalStyle(`${table} tbody td`, {
  '@media': { [NARROW]: { display: 'grid', gridTemplateColumns: 'minmax(7rem, 40%) 1fr', gap: 8, borderBottom: 0, padding: '4px 0' } },
});
globalStyle(`${table} tbody td::before`, { '@media': { [NARROW]: { content: 'attr(data-label)', fontWeight: 600 } } });

export const marker = style({ display: 'inline-block', marginLeft: 6, padding: '1px 8px', borderRadius: 999, background: vars.color.warning, color: vars.color.onWarning, fontSize: '0.875rem', fontWeight: 600 });
export const muted = style({ color: vars.color.textMuted, fontSize: '0.875rem' });
