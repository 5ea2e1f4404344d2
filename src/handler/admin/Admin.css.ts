/** Styles of the administration pages (src/handler/admin/). */
import { style } from '@vanilla-extract/css';
import { vars } from '../../styles/theme.css.ts';

export const actions = style({ display: 'flex', flexWrap: 'wrap', gap: 8 });
export const small = style({ minHeight: 44, padding: '6px 12px', fontSize: '0.9375rem' });
export const link = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', overflowWrap: 'anywhere', background: vars.color.secondary, color: vars.color.onSecondary, padding: '10px 12px', borderRadius: vars.radius.small, margin: '8px 0' });
export const fieldset = style({ border: `1px solid ${vars.color.border}`, borderRadius: vars.radius.small, padding: '8px 12px', margin: 0 });
export const notice = style({ background: vars.color.warning, color: vars.color.onWarning, padding: '10px 16px', borderRadius: vars.radius.small, margin: '0 0 16px' });
export const nav = style({ display: 'flex', gap: 12 });
export const navLink = style({ color: 'inherit', fontWeight: 600, minHeight: 44, display: 'inline-flex', alignItems: 'center' });
