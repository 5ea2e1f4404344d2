/** The export dialog (issue 38). */
import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const actions = style({ display: 'flex', gap: 12, flexWrap: 'wrap', margin: '0 0 16px' });
export const wide = style({ width: 'min(640px, calc(100vw - 32px))' });
export const fieldset = style({ border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '8px 14px 12px', margin: '16px 0 0' });
export const legend = style({ fontWeight: 700, padding: '0 4px' });
export const terms = style({ listStyle: 'none', padding: 0, margin: '8px 0 0', display: 'flex', flexWrap: 'wrap', gap: 8 });
export const term = style({ display: 'inline-flex', alignItems: 'center', gap: 6, border: `1px solid ${vars.color.border}`, borderRadius: 999, padding: '0 0 0 12px', overflowWrap: 'anywhere' });
export const downloads = style({ display: 'flex', flexDirection: 'column', gap: 8, margin: '12px 0 0' });
export const download = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44, fontWeight: 600 });
