import { style, globalStyle, keyframes } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';
import { card } from '../styles/card.css.ts';
import { button as pillButton } from '../styles/button.css.ts';

export const lead = style({ fontSize: '1.125rem', margin: '0 0 24px', maxWidth: 720 });
export const grid = style({ display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(280px, 1fr))', gap: 16, marginBottom: 24 });
export const box = style([card, { marginBottom: 0 }]);
export const boxTitle = style({ display: 'flex', alignItems: 'center', gap: 10, fontSize: '1.25rem', margin: '0 0 8px' });
export const phone = style({ fontSize: '1.5rem', fontWeight: 700, color: vars.color.link });
export const muted = style({ color: vars.color.textMuted, margin: '8px 0 0' });
export const preLine = style({ whiteSpace: 'pre-line', margin: '8px 0 0' });
export const button = style([pillButton, { marginTop: 12 }]);

const open = keyframes({ from: { height: 0 }, to: { height: 'var(--radix-accordion-content-height)' } });
const close = keyframes({ from: { height: 'var(--radix-accordion-content-height)' }, to: { height: 0 } });

export const accordion = style({ display: 'flex', flexDirection: 'column', gap: 12 });
export const item = style({ background: vars.color.surface, borderRadius: vars.radius.large, boxShadow: vars.shadow.card, overflow: 'hidden' });
export const header = style({ margin: 0 });
export const trigger = style({
  all: 'unset',
  boxSizing: 'border-box',
  display: 'flex',
  width: '100%',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: 12,
  padding: '16px 24px',
  fontSize: '1.125rem',
  fontWeight: 600,
  cursor: 'pointer',
  color: vars.color.text,
  selectors: {
    '&:focus-visible': { outline: `3px solid ${vars.color.focus}`, outlineOffset: -3 },
  },
});
globalStyle(`${trigger}[data-state="open"] svg`, { transform: 'rotate(180deg)' });
export const content = style({
  overflow: 'hidden',
  selectors: {
    '&[data-state="open"]': { animation: `${open} 180ms ease-out` },
    '&[data-state="closed"]': { animation: `${close} 180ms ease-out` },
  },
  '@media': { '(prefers-reduced-motion: reduce)': { animation: 'none !important' } },
});
export const contentInner = style({ padding: '0 24px 20px', whiteSpace: 'pre-line', margin: 0 });
