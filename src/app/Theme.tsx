/**
 * Puts the company's colours and the display language on <html>, so every part of
 * the page (Radix portals in <body> too) uses them.
 */
import { useEffect } from 'react';
import { setElementVars } from '@vanilla-extract/dynamic';
import { vars, defaultColors } from '../styles/theme.css.ts';
import { linkColorFor, normalizeHex, readableOn } from '../styles/color.ts';
import { toBcp47, type Language } from '../i18n/index.ts';
import type { LookAndFeel } from '../../machines/lookAndFeel.ts';

export function themeVarsFor(colors: LookAndFeel['siteColors']) {
  const primary = normalizeHex(colors.primaryColorCode, defaultColors.primary);
  const secondary = normalizeHex(colors.secondaryColorCode, defaultColors.secondary);
  const info = normalizeHex(colors.infoColorCode, defaultColors.info);
  return {
    [vars.color.primary]: primary,
    [vars.color.onPrimary]: readableOn(primary),
    [vars.color.secondary]: secondary,
    [vars.color.onSecondary]: readableOn(secondary),
    [vars.color.info]: info,
    [vars.color.onInfo]: readableOn(info),
    // Links use the primary colour only when it reads on white.
    [vars.color.link]: linkColorFor(primary, defaultColors.link),
  };
}

export function ThemeSync({ colors, language }: { colors: LookAndFeel['siteColors']; language: Language }) {
  useEffect(() => {
    setElementVars(document.documentElement, themeVarsFor(colors));
  }, [colors]);
  useEffect(() => {
    document.documentElement.lang = toBcp47(language);
  }, [language]);
  return null;
}
