import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

/** Spec §9: the drawer shrinks to icons under 1000 px. */
export const MINI = 'screen and (max-width: 999.98px)';

export const shell = style({
  display: 'flex',
  alignItems: 'stretch',
  minHeight: 'calc(100vh - 83px)',
});

export const drawer = style({
  flex: '0 0 240px',
  background: vars.color.surface,
  borderRight: `1px solid ${vars.color.border}`,
  padding: '24px 12px',
  display: 'flex',
  flexDirection: 'column',
  gap: 4,
  '@media': { [MINI]: { flexBasis: 64, padding: '16px 6px' } },
});

export const drawerList = style({ listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: 4 });

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
  '@media': { [MINI]: { justifyContent: 'center', padding: 8 } },
});

export const drawerLabel = style({
  '@media': {
    [MINI]: {
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

export const logout = style({ marginTop: 'auto' });

export const content = style({ flex: '1 1 auto', minWidth: 0, padding: '24px 32px 64px', '@media': { [MINI]: { padding: '16px 12px 48px' } } });

/** Until the case is read: as tall as the page will be, so the footer stays below the fold. */
export const loading = style({ minHeight: 'calc(100vh - 83px)' });

globalStyle(`${content} h1`, { marginTop: 0 });
