import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const hash = style({ overflowWrap: 'anywhere', fontSize: '0.9375rem' });
export const code = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '0.8125rem', overflowWrap: 'anywhere' });
export const awaiting = style({ fontWeight: 600, color: vars.color.onWarning, background: vars.color.warning, padding: '6px 10px', borderRadius: vars.radius.small });
export const subTitle = style({ fontSize: '1rem', margin: '16px 0 8px' });
export const diff = style({ whiteSpace: 'pre-line', lineHeight: 1.6 });
export const added = style({ background: '#d8f5dd', color: '#0b3d17', textDecoration: 'underline' });
export const removed = style({ background: '#fbe0e0', color: '#5c0b0b', textDecoration: 'line-through' });
export const list = style({ display: 'grid', gap: 12, paddingLeft: 20 });
export const item = style({ display: 'grid', gap: 4, justifyItems: 'start' });
