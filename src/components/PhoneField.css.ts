/** The phone input: sizes and colours from the theme, no stylesheet of the library. */
import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../styles/theme.css.ts';

export const phone = style({ display: 'flex', gap: 6, alignItems: 'stretch' });
globalStyle(`${phone} .react-international-phone-input`, {
  font: 'inherit',
  flex: 1,
  // A flex item is as wide as its content by default: let the number field shrink instead.
  minWidth: 0,
  padding: '10px 12px',
  minHeight: 44,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  color: vars.color.text,
  background: vars.color.surface,
});
globalStyle(`${phone} .react-international-phone-country-selector`, { position: 'relative' });
globalStyle(`${phone} .react-international-phone-country-selector-button`, {
  display: 'flex',
  alignItems: 'center',
  gap: 4,
  minHeight: 44,
  height: '100%',
  padding: '0 8px',
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  background: vars.color.surface,
  cursor: 'pointer',
});
globalStyle(`${phone} .react-international-phone-flag-emoji`, { width: 24, height: 16 });
globalStyle(`${phone} .react-international-phone-country-selector-dropdown`, {
  position: 'absolute',
  zIndex: 20,
  top: '100%',
  left: 0,
  maxHeight: 240,
  // Never past a 320 px screen's edge (it opened 24 px beyond it, and the page scrolled sideways).
  width: 'min(300px, calc(100vw - 56px))',
  boxSizing: 'border-box',
  overflowY: 'auto',
  margin: 0,
  padding: 4,
  listStyle: 'none',
  background: vars.color.surface,
  color: vars.color.text,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.small,
  boxShadow: vars.shadow.card,
});
globalStyle(`${phone} .react-international-phone-country-selector-dropdown__list-item`, {
  display: 'flex',
  alignItems: 'center',
  gap: 8,
  padding: '6px 8px',
  cursor: 'pointer',
});
globalStyle(`${phone} .react-international-phone-country-selector-dropdown__list-item--focused`, {
  background: vars.color.secondary,
  color: vars.color.onSecondary,
});
globalStyle(`${phone} .react-international-phone-country-selector-dropdown__list-item-dial-code`, {
  color: vars.color.textMuted,
});
globalStyle(`${phone} .react-international-phone-country-selector-button__button-content`, {
  display: 'flex',
  alignItems: 'center',
  gap: 6,
});
globalStyle(`${phone} .react-international-phone-country-selector-button__dropdown-arrow`, {
  width: 0,
  height: 0,
  borderLeft: '4px solid transparent',
  borderRight: '4px solid transparent',
  borderTop: `5px solid ${vars.color.text}`,
});
