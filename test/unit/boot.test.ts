/**
 * The SPA's first-paint data (core/boot.ts): read from the page when the server
 * inlined it, handed out once and only for the language asked for; without it the
 * SPA fetches as before.
 */
import { describe, expect, it } from 'vitest';
import { BootStore, readBootData } from '../../core/boot.ts';
import { loadRuntimeConfig } from '../../src/api/config.ts';
import { DEFAULT_LOOK_AND_FEEL } from '../../machines/lookAndFeel.ts';

const doc = (text: string | null) => ({ getElementById: (id: string) => (id === 'wb-boot' && text !== null ? ({ textContent: text } as HTMLElement) : null) });
const config = { api: { protocol: 'https', host: 'whistle.example.com', port: 443 }, version: '1.2.3', idSettings: { authority: 'https://whistle.example.com/idp/realms/whistleblower', realm: 'whistleblower', clientId: 'whistleblower-app' } };
const laf = { ...DEFAULT_LOOK_AND_FEEL, languageCode: 'en', languageName: 'English' };
const info = { protectionOfficers: [], subsidiaries: [{ id: 's', name: 'S' }] };

describe('boot data', () => {
  it('is read from the inline JSON, and is null when absent or broken', () => {
    expect(readBootData(doc(JSON.stringify({ config })))).toEqual({ config });
    expect(readBootData(doc(null))).toBeNull();
    expect(readBootData(doc('{not json'))).toBeNull();
    expect(readBootData(undefined)).toBeNull();
  });

  it('parses the same page text once, and a different text anew', () => {
    let parses = 0;
    const parse = JSON.parse;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parses++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      const text = JSON.stringify({ config, language: 'da' });
      const first = readBootData(doc(text));
      // Another read of the same page's text (a copy, as textContent gives) is the same object.
      expect(readBootData(doc(text.slice(0)))).toBe(first);
      expect(parses).toBe(1);
      expect(readBootData(doc(JSON.stringify({ config, language: 'en' })))?.language).toBe('en');
      expect(parses).toBe(2);
      expect(readBootData(doc(null))).toBeNull();
    } finally {
      JSON.parse = parse;
    }
  });

  it('gives the runtime config without a fetch, and falls back to config.json without it', async () => {
    let fetched = 0;
    const doFetch = (async () => {
      fetched++;
      return new Response(JSON.stringify({ api: { protocol: 'http', host: 'localhost', port: 9000 } }));
    }) as typeof fetch;
    const inlined = await loadRuntimeConfig(doFetch, { config });
    expect(inlined).toEqual({ apiBaseUrl: 'https://whistle.example.com', version: '1.2.3', idSettings: config.idSettings, fromFile: true });
    expect(fetched).toBe(0);
    const fetchedConfig = await loadRuntimeConfig(doFetch, null);
    expect(fetchedConfig.apiBaseUrl).toBe('http://localhost:9000');
    expect(fetched).toBe(1);
    const failing = await loadRuntimeConfig((async () => new Response('', { status: 500 })) as typeof fetch, null);
    expect(failing).toMatchObject({ apiBaseUrl: 'http://localhost:9000', fromFile: false });
  });

  it('hands out the look and feel once, and only for the language it was made for', () => {
    const store = new BootStore({ language: 'en', lookAndFeel: laf, companyInfo: info });
    expect(store.takeLookAndFeel('da')).toBeNull();
    expect(store.takeLookAndFeel('en')).toBe(laf);
    expect(store.takeLookAndFeel('en')).toBeNull();
    expect(store.takeCompanyInfo()).toBe(info);
    expect(store.takeCompanyInfo()).toBeNull();
    expect(new BootStore(null).takeLookAndFeel('en')).toBeNull();
    expect(new BootStore({ language: 'en', lookAndFeel: null, companyInfo: null }).takeCompanyInfo()).toBeNull();
  });
});
