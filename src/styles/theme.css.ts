/**
 * The one theme contract. Defaults are spec §9's theme colours (primary 172A55,
 * error A30404, warning FFE798) and spec §3's secondary/info; the company's own
 * colours are set on <html> at run time (src/app/Theme.tsx), so Radix portals,
 * which render into <body>, get them too.
 */
import { createGlobalTheme, createGlobalThemeContract } from '@vanilla-extract/css';

export const vars = createGlobalThemeContract(
  {
    color: {
      primary: 'color-primary',
      onPrimary: 'color-on-primary',
      secondary: 'color-secondary',
      onSecondary: 'color-on-secondary',
      info: 'color-info',
      onInfo: 'color-on-info',
      error: 'color-error',
      warning: 'color-warning',
      onWarning: 'color-on-warning',
      text: 'color-text',
      textMuted: 'color-text-muted',
      surface: 'color-surface',
      page: 'color-page',
      border: 'color-border',
      focus: 'color-focus',
      link: 'color-link',
    },
    font: { body: 'font-body', heading: 'font-heading' },
    size: { topBar: 'size-top-bar', content: 'size-content' },
    radius: { small: 'radius-small', large: 'radius-large' },
    shadow: { card: 'shadow-card' },
  },
  (_value, path) => `wb-${path.join('-')}`,
);

export const defaultColors = {
  primary: '#172a55',
  onPrimary: '#ffffff',
  secondary: '#ecf1f5',
  onSecondary: '#1a1a1a',
  info: '#ffffff',
  onInfo: '#1a1a1a',
  error: '#a30404',
  warning: '#ffe798',
  onWarning: '#1a1a1a',
  text: '#1a1a1a',
  textMuted: '#4a5160',
  surface: '#ffffff',
  page: '#f6f8fa',
  border: '#c5ccd6',
  focus: '#0b57d0',
  link: '#172a55',
};

createGlobalTheme(':root', vars, {
  color: defaultColors,
  font: {
    body: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
    heading: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  },
  size: { topBar: '83px', content: '1120px' },
  radius: { small: '6px', large: '14px' },
  shadow: { card: '0 1px 3px rgba(0, 0, 0, 0.12), 0 4px 14px rgba(0, 0, 0, 0.06)' },
});

/** The public layout's breakpoint (spec §9): under it the side drawer replaces the bar. */
export const NARROW = 'screen and (max-width: 1110.98px)';
export const WIDE = 'screen and (min-width: 1111px)';
