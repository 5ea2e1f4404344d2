import { style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const page = style({
  maxWidth: vars.size.content,
  margin: '0 auto',
  padding: '32px 20px 64px',
});
export const pageHeader = style({ marginBottom: 24 });
export const title = style({
  fontSize: 'clamp(1.75rem, 4vw, 2.5rem)',
  margin: '0 0 8px',
  color: vars.color.text,
  // The title takes the focus after each navigation (RouteFocus): a ring only for
  // keyboard users (:focus-visible, global), never after a tap or a click.
  selectors: { '&:focus:not(:focus-visible)': { outline: 'none', boxShadow: 'none' } },
});
export const sectionHeading = style({ fontSize: '1.25rem', margin: '0 0 8px' });
export const paragraph = style({ whiteSpace: 'pre-line', margin: 0, overflowWrap: 'anywhere' });
