import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const hash = style({ overflowWrap: 'anywhere', fontSize: '0.9375rem' });
export const code = style({ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: '0.8125rem', overflowWrap: 'anywhere' });
export const awaiting = style({ fontWeight: 600, color: vars.color.onWarning, background: vars.color.warning, padding: '6px 10px', borderRadius: vars.radius.small });
export const subTitle = style({ fontSize: '1rem', margin: '16px 0 8px' });
export const list = style({ display: 'grid', gap: 12, paddingLeft: 20 });
export const item = style({ display: 'grid', gap: 4, justifyItems: 'start' });
