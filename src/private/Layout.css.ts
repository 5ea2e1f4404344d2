import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

/**
 * Spec §9: the drawer shrinks to icons under 1000 px. Icons alone only where a
 * mouse can hover for the name (a fine pointer); a touch screen keeps the words,
 * and a phone shows the drawer as a row of labelled tabs above the page.
 */
export const MINI = 'screen and (max-width: 999.98px)';
export const ICONS = 'screen and (min-width: 600px) and (max-width: 999.98px) and (hover: hover) and (pointer: fine)';
export const PHONE = 'screen and (max-width: 599.98px)';

export const shell = style({
  display: 'flex',
  alignItems: 'stretch',
  minHeight: 'calc(100vh - 83px)',
  '@media': { [PHONE]: { flexDirection: 'column' } },
});

export const drawer = style({
  flex: '0 0 240px',
  background: vars.color.surface,
  borderRight: `1px solid ${vars.color.border}`,
  padding: '24px 12px',
  display: 'flex',
  flexDirection: 'column',
  gap: 4,
  '@media': {
    [MINI]: { flexBasis: 200, padding: '16px 8px' },
    [ICONS]: { flexBasis: 64, padding: '16px 6px' },
    [PHONE]: { flex: '0 0 auto', flexDirection: 'row', padding: 4, borderRight: 0, borderBottom: `1px solid ${vars.color.border}` },
  },
});

export const drawerList = style({
  listStyle: 'none',
  margin: 0,
  padding: 0,
  display: 'flex',
  flexDirection: 'column',
  gap: 4,
  '@media': { [PHONE]: { flexDirection: 'row', flex: '4 1 0', minWidth: 0, gap: 2 } },
});
globalStyle(`${drawerList} > li`, { '@media': { [PHONE]: { flex: '1 1 0', minWidth: 0, display: 'flex' } } });

export const drawerLink = style({
  display: 'flex',
  alignItems: 'center',
  gap: 12,
  minHeight: 48,
  padding: '8px 12px',
  borderRadius: vars.radius.small,
  color: vars.color.text,
  textDecoration: 'none',
  fontWeight: 500,
  background: 'transparent',
  border: 0,
  width: '100%',
  font: 'inherit',
  cursor: 'pointer',
  selectors: {
    '&:hover': { background: vars.color.secondary },
    '&[aria-current="page"]': { background: vars.color.primary, color: vars.color.onPrimary },
  },
  '@media': {
    [ICONS]: { justifyContent: 'center', padding: 8 },
    // A tab: the icon above its word, the word in small type and free to wrap.
    [PHONE]: {
      flexDirection: 'column',
      justifyContent: 'center',
      gap: 2,
      minHeight: 56,
      padding: '6px 2px',
      fontSize: '0.75rem',
      lineHeight: 1.2,
      textAlign: 'center',
      overflowWrap: 'anywhere',
      hyphens: 'auto',
    },
  },
});

export const drawerLabel = style({
  '@media': {
    [ICONS]: {
      position: 'absolute',
      width: 1,
      height: 1,
      margin: -1,
      overflow: 'hidden',
      clip: 'rect(0, 0, 0, 0)',
      whiteSpace: 'nowrap',
    },
  },
});

/** On a phone Log out stands in the top bar just above the tabs: the tab row does not repeat it. */
export const logout = style({ marginTop: 'auto', '@media': { [PHONE]: { display: 'none' } } });

/**
 * Log out in the top bar: compact beside "Leave quickly" and the menu; on a phone
 * its word under the icon, in small type, so the company's logo keeps its room.
 */
export const barLogout = style({
  flexShrink: 0,
  whiteSpace: 'nowrap',
  '@media': {
    [MINI]: { padding: '6px 10px', fontSize: '0.875rem', gap: 4 },
    'screen and (max-width: 479.98px)': { flexDirection: 'column', gap: 0, padding: '2px 6px', fontSize: '0.7rem', lineHeight: 1.1, minWidth: 44, minHeight: 44, borderRadius: 10 },
  },
});

export const content = style({ flex: '1 1 auto', minWidth: 0, padding: '24px 32px 64px', '@media': { [MINI]: { padding: '16px 12px 48px' } } });

/** Until the case is read: as tall as the page will be, so the footer stays below the fold. */
export const loading = style({ minHeight: 'calc(100vh - 83px)' });

export const notice = style({ maxWidth: 640, margin: '0 auto', padding: '32px 16px 64px' });

globalStyle(`${content} h1`, { marginTop: 0 });
