/** Styles of the report entry (CaseEntryPage.tsx): the form's groups, the slip and its printout. */
import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const fieldset = style({ border: 'none', padding: 0, margin: 0, display: 'flex', flexDirection: 'column', gap: 14 });
export const legend = style({ fontSize: '1.25rem', fontWeight: 700, padding: 0, margin: '0 0 12px' });
export const choices = style({ display: 'flex', gap: 16, flexWrap: 'wrap' });
export const choice = style({ display: 'flex', gap: 8, alignItems: 'center', minHeight: 44, minWidth: 44 });
export const slip = style({
  border: `2px dashed ${vars.color.border}`,
  borderRadius: vars.radius.large,
  padding: '20px 24px',
  background: vars.color.surface,
  '@media': { print: { border: '1px dashed #000000', background: '#ffffff', color: '#000000' } },
});
export const secret = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '1.375rem', letterSpacing: '0.06em', overflowWrap: 'anywhere' });
export const actions = style({ display: 'flex', gap: 12, flexWrap: 'wrap', marginTop: 16 });

// Printing the slip prints the slip: the top bar goes by the workspace's print sheet (print.css.ts), the slip's buttons here.
globalStyle(`${slip} button`, { '@media': { print: { display: 'none' } } });

/** The inbox's link to the entry: a tap target of 44 px. */
export const enterLink = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44, fontWeight: 600 });
