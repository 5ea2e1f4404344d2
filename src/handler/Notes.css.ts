/** The internal notes panel (issue 38 Build 1): the "not visible to the reporter" marker stands out from the case's reporter-facing parts. */
import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const panel = style({ borderLeft: `6px solid ${vars.color.warning}` });
export const marker = style({
  display: 'flex',
  alignItems: 'center',
  gap: 8,
  margin: '0 0 12px',
  padding: '8px 12px',
  borderRadius: vars.radius.small,
  background: vars.color.warning,
  color: vars.color.onWarning,
  fontWeight: 700,
});
export const note = style({ border: `1px dashed ${vars.color.border}`, borderRadius: vars.radius.small, padding: '10px 12px' });
export const meta = style({ color: vars.color.textMuted, fontSize: '0.9375rem', margin: 0 });
export const both = style({ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 16rem), 1fr))', gap: 12, margin: '8px 0' });
export const side = style({ border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '8px 12px', margin: 0 });
export const actions = style({ display: 'flex', gap: 12, flexWrap: 'wrap', margin: '8px 0 0' });
export const files = style({ margin: '10px 0 0' });
/** A note's files carry the note's marking: they are as internal as its text. */
export const fileMarker = style({ margin: '0 0 6px', fontWeight: 700, color: vars.color.text });
export const fileList = style({ listStyle: 'none', padding: 0, margin: '0 0 8px', display: 'grid', gap: 8 });
export const download = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44, marginInlineStart: 12 });
