/**
 * The parts of the i18n runtime that need neither React nor the bundler: which
 * messages are plain enough to format by substitution, and the BCP 47 tag of a
 * catalogue language. The build's message compiler (scripts/precompileMessages.ts)
 * uses the same test, so what it leaves as text is exactly what the runtime formats
 * without intl-messageformat.
 */
import type { IntlMessageFormat } from 'intl-messageformat';
import type { Language } from '../../machines/languages.ts';

/** A catalogue message: ICU text, or (in a production build) its parsed form. */
export type Message = ConstructorParameters<typeof IntlMessageFormat>[0];

export type MessageValues = Record<string, string | number | Date | boolean | null | undefined>;

/** BCP 47 tag for `<html lang>`, `Intl` and the browser: the spec's `se` is `sv`. */
export function toBcp47(lang: Language): string {
  return lang === 'se' ? 'sv' : lang;
}

/**
 * A message with at most plain `{name}` arguments and no ICU quoting: formatted by
 * substitution, with the same result intl-messageformat gives.
 */
const SIMPLE = /^[^{}]*(?:\{\s*[\p{L}\p{N}_]+\s*\}[^{}]*)*$/u;
export function isSimpleMessage(message: string): boolean {
  return SIMPLE.test(message) && !/'[{}'#|]/.test(message);
}

/** Mirrors intl-messageformat for a plain argument: strings and numbers as String(), other falsy values empty. */
export function formatSimple(message: string, values?: MessageValues): string {
  return message.replace(/\{\s*([\p{L}\p{N}_]+)\s*\}/gu, (_m, name: string) => {
    if (!values || !(name in values)) {
      throw new Error(`The intl string context variable "${name}" was not provided to the string "${message}"`);
    }
    const v = values[name];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
    return v ? String(v) : '';
  });
}
