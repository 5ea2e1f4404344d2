/** Styles of the company editor (CompanyEditorPage.tsx). */
import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../../styles/theme.css.ts';

export const toolbar = style({
  position: 'sticky',
  top: 0,
  zIndex: 1,
  display: 'flex',
  flexWrap: 'wrap',
  gap: 12,
  alignItems: 'center',
  padding: '12px 0',
  background: vars.color.page,
});
export const fieldset = style({ border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '12px 16px', margin: '0 0 12px', display: 'flex', flexDirection: 'column', gap: 12 });
export const legend = style({ fontWeight: 700, padding: '0 4px' });
export const input = style({ font: 'inherit', minHeight: 44, padding: '8px 10px', borderRadius: vars.radius.small, border: `1px solid ${vars.color.textMuted}`, background: vars.color.surface, color: vars.color.text, width: '100%', boxSizing: 'border-box' });
export const textarea = style([input, { minHeight: 96, resize: 'vertical' }]);
export const check = style({ display: 'flex', alignItems: 'center', gap: 10, minHeight: 44 });
globalStyle(`${check} input`, { width: 22, height: 22 });
export const colourRow = style({ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' });
export const swatch = style({ width: 44, height: 44, padding: 0, border: `1px solid ${vars.color.textMuted}`, borderRadius: vars.radius.small });
export const sample = style({ padding: '8px 12px', borderRadius: vars.radius.small, fontWeight: 600 });
export const invalid = style({ borderColor: vars.color.error, borderWidth: 2 });
export const textsWrap = style({ overflowX: 'auto' });
export const texts = style({ borderCollapse: 'collapse', minWidth: '100%' });
globalStyle(`${texts} th, ${texts} td`, { textAlign: 'left', verticalAlign: 'top', padding: '8px 6px', borderBottom: `1px solid ${vars.color.border}`, minWidth: 220 });
export const missing = style({ display: 'inline-block', marginBottom: 4, padding: '2px 8px', borderRadius: 999, background: vars.color.warning, color: vars.color.onWarning, fontSize: '0.875rem', fontWeight: 600 });
export const logo = style({ maxWidth: 240, maxHeight: 80, background: '#ffffff', border: `1px solid ${vars.color.border}`, padding: 4 });
export const frame = style({ width: '100%', height: 640, border: `1px solid ${vars.color.textMuted}`, borderRadius: vars.radius.small, background: '#ffffff' });
export const versions = style({ listStyle: 'none', padding: 0, margin: 0, display: 'flex', flexDirection: 'column', gap: 8 });
globalStyle(`${versions} li`, { display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' });
export const fileLabel = style({ display: 'inline-flex', alignItems: 'center', minHeight: 44 });
export const group = style({ margin: '0 0 12px', border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '0 12px' });
export const summary = style({ cursor: 'pointer', fontWeight: 700, minHeight: 44, display: 'flex', alignItems: 'center', gap: 8 });
