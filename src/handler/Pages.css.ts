/** Styles of the handlers' workspace pages (src/handler/*Page.tsx, Layout.tsx). */
import { style, globalStyle } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const shell = style({ minHeight: '100vh', display: 'flex', flexDirection: 'column' });
export const topBar = style({
  display: 'flex',
  alignItems: 'center',
  gap: 16,
  flexWrap: 'wrap',
  padding: '10px 24px',
  background: vars.color.primary,
  color: vars.color.onPrimary,
});
export const brand = style({ fontWeight: 700, fontSize: '1.125rem', marginRight: 'auto', color: 'inherit', textDecoration: 'none' });
export const who = style({ fontSize: '0.9375rem' });
export const barSelect = style({ font: 'inherit', minHeight: 44, padding: '6px 10px', borderRadius: vars.radius.small, border: `1px solid ${vars.color.border}` });
export const barButton = style({
  font: 'inherit',
  minHeight: 44,
  padding: '6px 16px',
  borderRadius: 999,
  border: `2px solid ${vars.color.onPrimary}`,
  background: 'transparent',
  color: vars.color.onPrimary,
  cursor: 'pointer',
});
export const main = style({ flex: 1, width: '100%', maxWidth: 1200, margin: '0 auto', padding: '24px 24px 48px' });
export const narrow = style({ maxWidth: 560 });
export const title = style({ fontSize: '1.75rem', margin: '0 0 16px' });
export const section = style({
  background: vars.color.surface,
  borderRadius: vars.radius.large,
  boxShadow: vars.shadow.card,
  padding: '20px 24px',
  margin: '0 0 20px',
});
export const sectionTitle = style({ fontSize: '1.25rem', margin: '0 0 12px' });
export const form = style({ display: 'flex', flexDirection: 'column', gap: 14 });
export const field = style({ display: 'flex', flexDirection: 'column', gap: 4 });
export const label = style({ fontWeight: 600 });
export const hint = style({ color: vars.color.textMuted, fontSize: '0.9375rem', margin: 0 });
export const error = style({ color: vars.color.error, fontWeight: 600, margin: 0 });
export const success = style({ color: '#1b5e20', fontWeight: 600, margin: 0 });
export const row = style({ display: 'flex', gap: 12, flexWrap: 'wrap', alignItems: 'flex-end' });
export const table = style({ width: '100%', borderCollapse: 'collapse', background: vars.color.surface });
globalStyle(`${table} th, ${table} td`, { textAlign: 'left', padding: '10px 8px', borderBottom: `1px solid ${vars.color.border}`, verticalAlign: 'top' });
export const overdue = style({ color: vars.color.error, fontWeight: 700 });
export const badge = style({ display: 'inline-block', padding: '2px 8px', borderRadius: 999, background: vars.color.warning, color: vars.color.onWarning, fontSize: '0.875rem' });
export const dl = style({ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '6px 16px', margin: 0 });
globalStyle(`${dl} dt`, { fontWeight: 600 });
globalStyle(`${dl} dd`, { margin: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' });
export const list = style({ listStyle: 'none', padding: 0, margin: 0, display: 'flex', flexDirection: 'column', gap: 10 });
export const message = style({ border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '10px 12px' });
export const fromReporter = style({ background: vars.color.secondary, color: vars.color.onSecondary });
export const pre = style({ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', margin: '8px 0 0' });
export const qr = style({ width: 220, height: 220, background: '#ffffff', padding: 8 });
export const code = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '1.0625rem', letterSpacing: '0.05em', overflowWrap: 'anywhere' });
export const meter = style({ width: '100%', height: 12 });
export const textarea = style({ minHeight: 140, resize: 'vertical' });
export const scroll = style({ overflowX: 'auto' });
export const caption = style({ textAlign: 'left', padding: '8px 0', color: vars.color.textMuted });
export const checkbox = style({ display: 'flex', gap: 8, alignItems: 'center', minHeight: 44 });
export const hash = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '0.8125rem', overflowWrap: 'anywhere', margin: 0 });

/** A voice message's player under its download link (issue 40). */
export const voice = style({ display: 'block', width: '100%', maxWidth: 420, minHeight: 44, marginTop: 6 });
/** The idle notice (issue 38): fixed at the foot of the window, beside the page, never a modal. */
export const idleNotice = style({
  position: 'fixed',
  insetInline: 16,
  bottom: 16,
  zIndex: 20,
  maxWidth: 640,
  margin: '0 auto',
  padding: '16px 20px',
  borderRadius: vars.radius.small,
  border: `2px solid ${vars.color.border}`,
  background: vars.color.warning,
  color: vars.color.onWarning,
  boxShadow: '0 4px 16px rgba(0, 0, 0, 0.25)',
});
export const idleTitle = style({ fontSize: '1.125rem', margin: '0 0 8px' });
export const idleActions = style({ display: 'flex', gap: 12, flexWrap: 'wrap', marginTop: 12 });
