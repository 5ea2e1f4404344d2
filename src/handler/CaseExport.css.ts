/** The export dialog and the case page's print style sheet (issue 38). */
import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';
import { topBar } from './Pages.css.ts';

export const actions = style({ display: 'flex', gap: 12, flexWrap: 'wrap', margin: '0 0 16px' });
export const wide = style({ width: 'min(640px, calc(100vw - 32px))' });
export const fieldset = style({ border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '8px 14px 12px', margin: '16px 0 0' });
export const legend = style({ fontWeight: 700, padding: '0 4px' });
export const terms = style({ listStyle: 'none', padding: 0, margin: '8px 0 0', display: 'flex', flexWrap: 'wrap', gap: 8 });
export const term = style({ display: 'inline-flex', alignItems: 'center', gap: 6, border: `1px solid ${vars.color.border}`, borderRadius: 999, padding: '0 0 0 12px', overflowWrap: 'anywhere' });
export const downloads = style({ display: 'flex', flexDirection: 'column', gap: 8, margin: '12px 0 0' });
export const download = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44, fontWeight: 600 });

/** Marks what a printed case leaves out: the composer, the forms and buttons of the page. */
export const noPrint = style({ '@media': { print: { display: 'none' } } });

// Printing the case prints the case: no top bar, no navigation, no dialogs' overlays, black on white.
globalStyle(topBar, { '@media': { print: { display: 'none' } } });
globalStyle('[data-print-case] button, [data-print-case] form, [data-print-case] audio', { '@media': { print: { display: 'none' } } });
globalStyle('[data-print-case] section', { '@media': { print: { breakInside: 'auto', boxShadow: 'none', border: 'none', padding: 0, margin: '0 0 12pt' } } });
globalStyle('[data-print-case] h2, [data-print-case] h3', { '@media': { print: { breakAfter: 'avoid' } } });
globalStyle('[data-print-case] [role="region"]', { '@media': { print: { overflow: 'visible' } } });
globalStyle('body', { '@media': { print: { background: '#ffffff', color: '#000000' } } });
