import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

const NARROW = 'screen and (max-width: 999.98px)';

export const layout = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 1fr) 320px',
  gap: 24,
  alignItems: 'start',
  '@media': { [NARROW]: { gridTemplateColumns: 'minmax(0, 1fr)' } },
});
export const chat = style({ display: 'flex', flexDirection: 'column', gap: 16, minWidth: 0 });
export const thread = style({
  listStyle: 'none',
  margin: 0,
  padding: 16,
  display: 'flex',
  flexDirection: 'column',
  gap: 12,
  background: vars.color.surface,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
});
export const bubble = style({
  maxWidth: '80%',
  padding: '10px 14px',
  borderRadius: vars.radius.large,
  background: vars.color.secondary,
  color: vars.color.onSecondary,
  alignSelf: 'flex-start',
  overflowWrap: 'anywhere',
});
export const own = style({ alignSelf: 'flex-end', background: vars.color.primary, color: vars.color.onPrimary });
export const meta = style({ display: 'flex', gap: 8, fontSize: '0.85rem', marginBottom: 4, flexWrap: 'wrap' });
export const text = style({ margin: 0, whiteSpace: 'pre-wrap' });
export const badge = style({ fontWeight: 700, textTransform: 'uppercase', fontSize: '0.75rem', letterSpacing: '0.04em' });
export const fileButton = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: 6,
  marginTop: 6,
  minHeight: 32,
  padding: '4px 10px',
  borderRadius: 999,
  border: `1px solid currentColor`,
  background: 'transparent',
  color: 'inherit',
  font: 'inherit',
  fontSize: '0.9rem',
  cursor: 'pointer',
});
export const composer = style({
  background: vars.color.surface,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
  padding: 16,
  display: 'flex',
  flexDirection: 'column',
  gap: 8,
  // Scrolled to by the page: a little room below it, clear of the phone's edge.
  scrollMarginBottom: 16,
});
export const composerRow = style({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 12, flexWrap: 'wrap' });
export const attachments = style({ listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexWrap: 'wrap', gap: 8 });
export const attachment = style({
  display: 'inline-flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: 6,
  padding: '2px 4px 2px 10px',
  // Room for the hidden-data status under the name.
  borderRadius: 14,
  border: `1px solid ${vars.color.border}`,
});
export const removeButton = style({
  minWidth: 32,
  minHeight: 32,
  border: 0,
  borderRadius: 999,
  background: 'transparent',
  cursor: 'pointer',
  font: 'inherit',
  color: vars.color.text,
});
export const fileLabel = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: 8,
  minHeight: 44,
  padding: '8px 16px',
  borderRadius: 999,
  border: `2px solid ${vars.color.primary}`,
  color: vars.color.primary,
  fontWeight: 600,
  cursor: 'pointer',
});
export const progress = style({ width: '100%', height: 10 });
export const files = style({
  background: vars.color.surface,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
  padding: 16,
  position: 'sticky',
  top: 16,
});
export const filters = style({ display: 'flex', flexDirection: 'column', gap: 4, margin: '0 0 12px', padding: 0, border: 0 });
export const filter = style({
  display: 'flex',
  justifyContent: 'space-between',
  gap: 8,
  minHeight: 40,
  padding: '6px 10px',
  borderRadius: vars.radius.small,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.surface,
  color: vars.color.text,
  font: 'inherit',
  cursor: 'pointer',
  textAlign: 'left',
  selectors: { '&[aria-pressed="true"]': { background: vars.color.primary, color: vars.color.onPrimary, borderColor: vars.color.primary } },
});
export const fileList = style({ listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: 6 });
export const fileRow = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: 8,
  width: '100%',
  minHeight: 44,
  padding: '6px 8px',
  border: 0,
  borderRadius: vars.radius.small,
  background: vars.color.page,
  color: vars.color.text,
  font: 'inherit',
  cursor: 'pointer',
  textAlign: 'left',
  overflowWrap: 'anywhere',
});
