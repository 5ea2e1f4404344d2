/**
 * What the model-generated browser journeys share (journeys.test.ts for the report
 * channels, journeys-private.test.ts for the private area): the page's own messages,
 * read from the catalogues, and the typed table of gestures a model event maps to.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { AnyMachineSnapshot } from 'xstate';

const I18N = path.resolve(import.meta.dirname, '../../src/i18n');
const catalogues = new Map<string, Record<string, string>>();

/** A message of the catalogues `common` and `area`, with `{name}` filled in; a missing key throws. */
export type T = (key: string, vars?: Record<string, string | number>) => string;

export function translator(area: 'forms' | 'private', lang: string): T {
  const id = `${area}/${lang}`;
  let m = catalogues.get(id);
  if (!m) {
    const read = (a: string) => JSON.parse(readFileSync(path.join(I18N, a, `${lang}.json`), 'utf8')) as Record<string, string>;
    m = { ...read('common'), ...read(area) };
    catalogues.set(id, m);
  }
  const messages = m;
  return (key, vars = {}) => {
    const text = messages[key];
    if (text === undefined) throw new Error(`no message ${key} in ${lang}`);
    return text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? `{${name}}`));
  };
}

/** The translator for the language the page is in (its `<html lang>`; `sv` is the catalogue `se`). */
export async function pageTranslator(page: Page, area: 'forms' | 'private'): Promise<T> {
  const bcp47 = ((await page.locator('html').getAttribute('lang')) ?? 'da').slice(0, 2);
  return translator(area, ({ sv: 'se', nb: 'no', nn: 'no' } as Record<string, string>)[bcp47] ?? bcp47);
}

export interface GestureContext<E> {
  page: Page;
  event: E;
  /** The model's snapshot before the event: where the reporter is. */
  before: AnyMachineSnapshot;
  t: T;
}
export type Gesture<E> = (g: GestureContext<E>) => Promise<void>;
/** An event no gesture can cause against the real server, with the reason. */
export interface Unrealizable {
  unrealizable: string;
}
export const unrealizable = (reason: string): Unrealizable => ({ unrealizable: reason });
