/**
 * The workspace's print style sheet (issue 38 "print"): printing a case prints the case,
 * not the chrome, for a server-keyed and a sealed case alike (both render inside
 * `data-print-case`). `noPrint` marks the parts of a page that are workspace, not content.
 */
import { globalStyle, style } from '@vanilla-extract/css';
import { topBar } from './Pages.css.ts';

/** What a printout leaves out: the composer, the key unlock form, the page's own buttons. */
export const noPrint = style({ '@media': { print: { display: 'none' } } });

// Printing the case prints the case: no top bar, no navigation, no dialogs' overlays, black on white.
globalStyle(topBar, { '@media': { print: { display: 'none' } } });
// Controls outside a form too (the assignment's colleague list, the sealed page's file inputs): a printout has nothing to choose.
globalStyle('[data-print-case] button, [data-print-case] form, [data-print-case] audio, [data-print-case] select, [data-print-case] input, [data-print-case] textarea', { '@media': { print: { display: 'none' } } });
globalStyle('[data-print-case] section', { '@media': { print: { breakInside: 'auto', boxShadow: 'none', border: 'none', padding: 0, margin: '0 0 12pt' } } });
globalStyle('[data-print-case] h2, [data-print-case] h3', { '@media': { print: { breakAfter: 'avoid' } } });
globalStyle('[data-print-case] [role="region"]', { '@media': { print: { overflow: 'visible' } } });
globalStyle('body', { '@media': { print: { background: '#ffffff', color: '#000000' } } });
