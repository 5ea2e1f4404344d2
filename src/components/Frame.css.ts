import { style, globalStyle } from '@vanilla-extract/css';
import { vars, NARROW, WIDE } from '../styles/theme.css.ts';
import { pathLink } from './NavLink.css.ts';

export const skipLink = style({
  position: 'absolute',
  left: 8,
  top: -100,
  zIndex: 100,
  padding: '10px 16px',
  background: vars.color.surface,
  color: vars.color.text,
  borderRadius: vars.radius.small,
  selectors: { '&:focus': { top: 8 } },
});

export const topBar = style({
  position: 'sticky',
  top: 0,
  zIndex: 10,
  height: vars.size.topBar,
  display: 'flex',
  alignItems: 'center',
  gap: 16,
  padding: '0 20px',
  background: vars.color.surface,
  borderBottom: `1px solid ${vars.color.border}`,
  // A phone: logo, "Leave quickly" and the menu must fit without sideways scroll.
  '@media': {
    'screen and (max-width: 479.98px)': { gap: 8, padding: '0 12px' },
    'screen and (max-width: 359.98px)': { gap: 8, padding: '0 10px' },
  },
});

export const logoLink = style({
  display: 'flex',
  alignItems: 'center',
  height: 56,
  // The logo gives way before anything is pushed off a narrow screen.
  flexShrink: 1,
  minWidth: 0,
  color: vars.color.text,
  textDecoration: 'none',
  fontWeight: 700,
  fontSize: '1.25rem',
});
// A fixed box (the <img> carries width and height, so nothing shifts when the logo
// arrives); the logo keeps its proportions inside it, at the start of the bar.
export const logo = style({
  width: 200,
  height: 52,
  maxWidth: '100%',
  objectFit: 'contain',
  objectPosition: 'left center',
  display: 'block',
  // Room for "Leave quickly" and the menu button on a small phone; never wider than
  // its link, which gives way (a fixed 110 px drew the logo under "Leave quickly" at 320 px).
  '@media': { 'screen and (max-width: 479.98px)': { maxWidth: 'min(110px, 100%)' } },
});

export const wideOnly = style({ '@media': { [NARROW]: { display: 'none !important' } } });
export const narrowOnly = style({ '@media': { [WIDE]: { display: 'none !important' } } });

export const nav = style({ flex: 1, minWidth: 0, height: '100%' });
export const navList = style({ display: 'flex', gap: 2, listStyle: 'none', margin: 0, padding: 0, height: '100%', alignItems: 'stretch' });
export const navItem = style({ position: 'relative', display: 'flex', alignItems: 'center' });
export const navLink = style([
  pathLink,
  {
    gap: 6,
    padding: '6px 10px',
    lineHeight: 1.25,
    selectors: { '&[aria-current="page"]': { boxShadow: `inset 0 -3px 0 ${vars.color.primary}` } },
  },
]);
export const subMenu = style({
  display: 'none',
  position: 'absolute',
  top: '100%',
  left: 0,
  minWidth: 260,
  listStyle: 'none',
  margin: 0,
  padding: 8,
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  boxShadow: vars.shadow.card,
});
globalStyle(`${navItem}:hover > ${subMenu}, ${navItem}:focus-within > ${subMenu}`, { display: 'block' });
export const subLink = style([navLink, { display: 'flex', width: '100%' }]);
/** Between 1111 and 1280 px the bar's icons give way to the texts (long German and Polish labels). */
export const navIcon = style({ flexShrink: 0, '@media': { 'screen and (max-width: 1279.98px)': { display: 'none' } } });
export const logoShrink = style({ minWidth: 0 });

export const actions = style({ display: 'flex', alignItems: 'center', gap: 12, marginLeft: 'auto' });
/** Where another part of the app adds to the bar (FrameActions): its buttons are the bar's own items. */
export const slot = style({ display: 'contents' });

export const button = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: 8,
  minHeight: 44,
  padding: '8px 18px',
  border: 0,
  borderRadius: 999,
  background: vars.color.primary,
  color: vars.color.onPrimary,
  font: 'inherit',
  fontWeight: 600,
  textDecoration: 'none',
  cursor: 'pointer',
});

export const menuButton = style([
  button,
  {
    marginLeft: 'auto',
    padding: 10,
    background: 'transparent',
    color: vars.color.text,
    border: `1px solid ${vars.color.border}`,
    // Narrow: "Leave quickly" takes the free space before the menu button.
    '@media': { [NARROW]: { marginLeft: 0 }, 'screen and (max-width: 479.98px)': { padding: 8, minWidth: 44, minHeight: 44 } },
  },
]);

/** The menu button's word: on a phone read by screen readers only, so "Leave quickly" keeps its room. */
export const menuWord = style({
  '@media': {
    'screen and (max-width: 479.98px)': {
      position: 'absolute',
      width: 1,
      height: 1,
      overflow: 'hidden',
      clip: 'rect(0 0 0 0)',
      whiteSpace: 'nowrap',
    },
  },
});

export const main = style({ minHeight: `calc(100vh - ${vars.size.topBar} - 60px)`, outline: 'none' });

export const footer = style({
  padding: '20px 24px',
  borderTop: `1px solid ${vars.color.border}`,
  background: vars.color.surface,
  color: vars.color.textMuted,
  fontSize: '0.875rem',
  textAlign: 'center',
});

export const select = style({
  minHeight: 44,
  padding: '6px 10px',
  font: 'inherit',
  color: vars.color.text,
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
});
export const languageLabel = style({ display: 'flex', alignItems: 'center', gap: 8 });

/** "Leave quickly": visible at every width, at least 44 x 44 px, never hidden in the drawer. */
export const quickExit = style({
  font: 'inherit',
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  gap: 6,
  minHeight: 44,
  minWidth: 44,
  padding: '6px 14px',
  flexShrink: 0,
  borderRadius: 999,
  border: `2px solid ${vars.color.text}`,
  background: vars.color.surface,
  color: vars.color.text,
  fontWeight: 700,
  cursor: 'pointer',
  whiteSpace: 'nowrap',
  '@media': { [NARROW]: { marginLeft: 'auto', padding: '6px 10px', fontSize: '0.875rem' } },
});

/** The language selector's globe: visible, and a tap on it opens the selector. */
export const languageGlobe = style({
  display: 'inline-flex',
  alignItems: 'center',
  marginRight: 4,
  cursor: 'pointer',
  // On the narrowest phones the top bar has no room for it; the drawer still shows it.
  '@media': { 'screen and (max-width: 359.98px)': { marginRight: 0 } },
});
globalStyle(`header ${languageGlobe} svg`, { '@media': { 'screen and (max-width: 359.98px)': { display: 'none' } } });
