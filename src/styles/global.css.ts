import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from './theme.css.ts';

globalStyle('*, *::before, *::after', { boxSizing: 'border-box' });
globalStyle('html', { WebkitTextSizeAdjust: '100%' });
globalStyle('body', {
  margin: 0,
  fontFamily: vars.font.body,
  fontSize: '1rem',
  lineHeight: 1.5,
  color: vars.color.text,
  background: vars.color.page,
});
// Danish, German and Norwegian compounds ("Whistleblowerordning") are wider than a
// 375 px card at heading size: let them hyphenate or break instead of overflowing.
globalStyle('h1, h2, h3', { fontFamily: vars.font.heading, lineHeight: 1.25, overflowWrap: 'break-word', hyphens: 'auto' });
globalStyle('a', { color: vars.color.link });
// Visible focus everywhere, also on dark company colours (double ring).
globalStyle(':focus-visible', {
  outline: `3px solid ${vars.color.focus}`,
  outlineOffset: '2px',
  boxShadow: `0 0 0 5px ${vars.color.surface}`,
});
globalStyle('img', { maxWidth: '100%' });

export const visuallyHidden = style({
  position: 'absolute',
  width: 1,
  height: 1,
  padding: 0,
  margin: -1,
  overflow: 'hidden',
  clip: 'rect(0, 0, 0, 0)',
  whiteSpace: 'nowrap',
  border: 0,
});

/** A private page's words before its script runs (server/spa.ts `opening`): readable, not a corner of small print. */
globalStyle('#root > .wb-opening', { margin: 0, padding: '40px 24px', fontSize: '1.125rem', textAlign: 'center' });
