/**
 * Colour helpers for company colours: readable text on a company colour, picked by
 * WCAG contrast so every company theme stays AA.
 */
const HEX = /^#?([0-9a-f]{6})$/i;

export function normalizeHex(input: string | null | undefined, fallback: string): string {
  const m = HEX.exec((input ?? '').trim());
  return m ? `#${m[1]!.toLowerCase()}` : fallback;
}

function channel(c: number): number {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

export function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

export function contrast(a: string, b: string): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}

export const LIGHT_TEXT = '#ffffff';
export const DARK_TEXT = '#1a1a1a';

/** White or near-black, whichever reads better on `background`. */
export function readableOn(background: string): string {
  return contrast(background, LIGHT_TEXT) >= contrast(background, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
}

/** The link colour: the company's primary where it reads on white (white text on it), else `fallback`. */
export function linkColorFor(primary: string, fallback: string): string {
  return readableOn(primary) === LIGHT_TEXT ? primary : fallback;
}
