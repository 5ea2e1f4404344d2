/**
 * The company import file: the demo companies in server/seed/ are valid and complete
 * in all seven languages, their logos are safe self-contained SVG, a broken file names
 * the broken field, and the colours are readable (WCAG AA 4.5:1).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ABOUT_PAGE_TYPES,
  DARK_TEXT,
  LANGUAGES,
  LIGHT_TEXT,
  MIN_CONTRAST,
  contrastRatio,
  lookAndFeelResponse,
  parseCompanyFile,
  voiceSettings,
  type CompanyFile,
  type LookAndFeelEntry,
} from '../../server/companies/format.ts';

const SEED = resolve(dirname(fileURLToPath(import.meta.url)), '../../server/seed');
const SEED_FILES = ['localhost.json', 'group.json'] as const;

function readSeed(name: string): unknown {
  return JSON.parse(readFileSync(join(SEED, name), 'utf8'));
}

function loadSeed(name: string): CompanyFile {
  const result = parseCompanyFile(readSeed(name));
  if (!result.ok) throw new Error(`${name}: ${result.field}: ${result.message}`);
  return result.company;
}

/** The structure of a value with every string replaced by its kind, so languages can be compared. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shape(v)]));
  }
  return typeof value;
}

function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}.${i}`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k));
  return [];
}

/** Fields that are the same in every language by design. */
const LANGUAGE_NEUTRAL = /(^|\.)(link|icon|pageType|aboutPageType|backgroundImageColor)$/;

/** Words that are correct and identical in English and another language. */
const SAME_IN_ENGLISH = new Set(['Feedback']);

/** A word each language's texts must use, so an entry cannot silently hold another language. */
const MARKER: Record<string, RegExp> = {
  da: /indberet/i,
  no: /varsl/i,
  se: /rapport/i,
  en: /report/i,
  es: /comunicaci[oó]n/i,
  pl: /zgłosz/i,
  de: /Meldung/,
};

const ROUTES = {
  PERSONAL_DATA: '/about-whistleblowing/personal-data',
  ANONYMITY: '/about-whistleblowing/anonymity',
  CASE_MANAGEMENT: '/about-whistleblowing/case-process',
} as const;

function entry(company: CompanyFile, lang: string): LookAndFeelEntry {
  const e = company.lookAndFeel[lang as keyof CompanyFile['lookAndFeel']];
  if (!e) throw new Error(`no entry for ${lang}`);
  return e;
}

describe('seed companies', () => {
  it.each(SEED_FILES)('%s parses', (name) => {
    const result = parseCompanyFile(readSeed(name));
    expect(result.ok ? 'ok' : `${result.field}: ${result.message}`).toBe('ok');
  });

  it('localhost: one officer, no subsidiaries, phone and meeting on, Danish first, blue', () => {
    const c = loadSeed('localhost.json');
    expect(c.hosts).toContain('localhost');
    expect(c.defaultLanguage).toBe('da');
    expect(c.protectionOfficers).toHaveLength(1);
    expect(c.subsidiaries).toEqual([]);
    for (const lang of c.languages) {
      const front = entry(c, lang).siteFrontPage;
      expect(front.showVerbalOption).toBe(true);
      expect(front.showBookingOption).toBe(true);
      expect(front.backgroundImageColor).toBe('blue');
    }
  });

  it('group: three subsidiaries, one internal and two external officers, every about page visible, English first, green', () => {
    const c = loadSeed('group.json');
    expect(c.hosts).toEqual(['group.localhost']);
    expect(c.defaultLanguage).toBe('en');
    expect(c.subsidiaries).toHaveLength(3);
    expect(c.protectionOfficers.map((o) => o.customerRelation).sort()).toEqual(['EXTERNAL', 'EXTERNAL', 'INTERNAL']);
    for (const lang of c.languages) {
      expect(entry(c, lang).siteAboutPages.every((p) => p.visible)).toBe(true);
      expect(entry(c, lang).siteFrontPage.backgroundImageColor).toBe('green');
    }
  });

  it('the two companies look different and share no host', () => {
    const [a, b] = SEED_FILES.map(loadSeed) as [CompanyFile, CompanyFile];
    expect(a.id).not.toBe(b.id);
    expect(a.siteColors.primaryColorCode).not.toBe(b.siteColors.primaryColorCode);
    expect(a.siteColors.secondaryColorCode).not.toBe(b.siteColors.secondaryColorCode);
    expect(a.hosts.filter((h) => b.hosts.includes(h))).toEqual([]);
  });

  describe.each(SEED_FILES)('%s texts', (name) => {
    const c = loadSeed(name);

    it('offers all seven languages, each with a phone country code', () => {
      expect([...c.languages].sort()).toEqual([...LANGUAGES].sort());
      expect(c.phoneCodes).toEqual({ da: 'DK', no: 'NO', se: 'SE', en: 'GB', es: 'ES', pl: 'PL', de: 'DE' });
    });

    it('every language has the same structure as English and no empty text', () => {
      const english = shape(entry(c, 'en'));
      for (const lang of LANGUAGES) {
        expect(shape(entry(c, lang)), lang).toEqual(english);
        for (const [path, text] of strings(entry(c, lang))) expect(text.trim(), `${lang} ${path}`).not.toBe('');
      }
    });

    it('every language is really translated', () => {
      const names = LANGUAGES.map((l) => entry(c, l).languageName);
      expect(new Set(names).size).toBe(LANGUAGES.length);
      const english = new Map(strings(entry(c, 'en')));
      for (const lang of LANGUAGES.filter((l) => l !== 'en')) {
        const same = strings(entry(c, lang)).filter(([path, text]) => !LANGUAGE_NEUTRAL.test(path) && english.get(path) === text && !/@/.test(text) && !SAME_IN_ENGLISH.has(text));
        expect(same.map(([p]) => p), lang).toEqual([]);
      }
      for (const lang of LANGUAGES) {
        const e = entry(c, lang);
        const body = [e.siteFrontPage.paragraph, ...e.siteHowToReportPage.textSections.map((s) => s.paragraph)].join(' ');
        expect(body, lang).toMatch(MARKER[lang]!);
      }
    });

    it('has the required pages and enough content in every language', () => {
      for (const lang of LANGUAGES) {
        const e = entry(c, lang);
        expect(e.siteHowToReportPage.textSections.length, lang).toBeGreaterThanOrEqual(4);
        expect(e.siteHowToReportPage.textSections.length, lang).toBeLessThanOrEqual(5);
        expect(e.siteFAQPage.faqs.length, lang).toBeGreaterThanOrEqual(6);
        expect(e.siteAboutPages.map((p) => p.aboutPageType)).toEqual([...ABOUT_PAGE_TYPES]);
        for (const page of e.siteAboutPages) {
          expect(page.textSections.length, `${lang} ${page.aboutPageType}`).toBeGreaterThanOrEqual(3);
          expect(page.textSections.length, `${lang} ${page.aboutPageType}`).toBeLessThanOrEqual(4);
        }
        const paragraphs = strings(e).filter(([p]) => /paragraph$/.test(p)).map(([, t]) => t);
        expect(paragraphs.some((p) => p.includes('\n')), lang).toBe(true);
        // The directive's time limits: acknowledgement within 7 days, feedback within 3 months.
        const faq = e.siteFAQPage.faqs.map((f) => f.paragraph).join(' ');
        expect(faq, lang).toMatch(/\b7\b/);
        expect(faq, lang).toMatch(/\b3\b/);
        expect(faq, lang).toMatch(/\b10\b/);
      }
    });

    it('navigation uses the spec routes and ties the about sub-pages to their page types', () => {
      for (const lang of LANGUAGES) {
        const nav = entry(c, lang).navigationPages;
        expect(nav.map((p) => p.link)).toEqual(['/', '/how-to-report', ROUTES.PERSONAL_DATA, '/faq']);
        const about = nav[2]!;
        expect(about.children.map((ch) => [ch.pageType, ch.link])).toEqual(ABOUT_PAGE_TYPES.map((t) => [t, ROUTES[t]]));
        expect(nav.filter((p) => p !== about).every((p) => p.children.length === 0)).toBe(true);
      }
    });

    it('contact fields are filled', () => {
      expect(c.contactPhone).toMatch(/^\+\d/);
      expect(c.contactPerson).not.toBe('');
      for (const lang of LANGUAGES) expect(lookAndFeelResponse(c, lang, 'x.svg')!.contactDetails, lang).not.toBe('');
    });

    it('logos exist and are self-contained SVG without script or external references', () => {
      const assets = [c.logo, ...c.protectionOfficers.map((o) => o.logo).filter((l) => l !== undefined)];
      expect(assets.length).toBe(1 + c.protectionOfficers.length);
      for (const asset of assets) {
        const path = join(SEED, asset.file);
        expect(existsSync(path), asset.file).toBe(true);
        expect(asset.contentType).toBe('image/svg+xml');
        const svg = readFileSync(path, 'utf8');
        expect(svg.trimStart().startsWith('<svg'), asset.file).toBe(true);
        expect(svg).toContain('</svg>');
        expect(svg).toMatch(/<title[ >]/);
        expect(svg.toLowerCase()).not.toContain('<script');
        expect(svg.toLowerCase()).not.toContain('href="http');
        expect(svg.toLowerCase()).not.toContain('<foreignobject');
        expect(svg).not.toMatch(/\son[a-z]+\s*=/i);
        expect(svg).not.toMatch(/url\(\s*['"]?(?!#)/i);
        expect(svg).not.toMatch(/@import/i);
        // The only URL allowed is the SVG namespace itself.
        const urls = svg.match(/[a-z]+:\/\/[^\s"')]+/gi) ?? [];
        expect(urls.filter((u) => u !== 'http://www.w3.org/2000/svg'), asset.file).toEqual([]);
        expect(svg.length).toBeLessThan(10_000);
      }
    });

    it('colours meet WCAG AA 4.5:1: white text on primary, dark text and primary text on secondary', () => {
      const { primaryColorCode, secondaryColorCode } = c.siteColors;
      expect(contrastRatio(primaryColorCode, LIGHT_TEXT)).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(contrastRatio(secondaryColorCode, DARK_TEXT)).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(contrastRatio(secondaryColorCode, primaryColorCode)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    });
  });
});

describe('contrastRatio', () => {
  it('follows WCAG 2.1', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBe(1);
    // #767676 on white is the well-known AA limit (4.54:1); #777777 just misses it (4.48:1).
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(4.5);
    // The spec's default colours pass too.
    expect(contrastRatio('#172a55', '#ffffff')).toBeGreaterThan(MIN_CONTRAST);
    expect(contrastRatio('#ecf1f5', DARK_TEXT)).toBeGreaterThan(MIN_CONTRAST);
  });
});

describe('broken files name the field', () => {
  const base = () => structuredClone(readSeed('localhost.json')) as Record<string, any>;
  const failure = (json: unknown) => {
    const r = parseCompanyFile(json);
    if (r.ok) throw new Error('expected the file to be refused');
    return r;
  };

  it.each<[string, (f: Record<string, any>) => void, string, RegExp?]>([
    ['missing name', (f) => delete f.name, 'name', /required/],
    ['missing nested text', (f) => delete f.lookAndFeel.pl.siteFAQPage.heading, 'lookAndFeel.pl.siteFAQPage.heading', /required/],
    ['empty FAQ answer', (f) => (f.lookAndFeel.de.siteFAQPage.faqs[2].paragraph = '  '), 'lookAndFeel.de.siteFAQPage.faqs.2.paragraph', /empty/],
    ['colour not #rrggbb', (f) => (f.siteColors.primaryColorCode = '#12345'), 'siteColors.primaryColorCode', /#rrggbb/],
    ['colour by name', (f) => (f.siteColors.infoColorCode = 'white'), 'siteColors.infoColorCode', /#rrggbb/],
    ['primary too light for white text', (f) => (f.siteColors.primaryColorCode = '#7fb3e0'), 'siteColors.primaryColorCode', /contrast/],
    ['secondary too dark for dark text', (f) => (f.siteColors.secondaryColorCode = '#5a5a5a'), 'siteColors.secondaryColorCode', /contrast/],
    ['unknown language offered', (f) => f.languages.push('fr'), 'languages.7', /one of/],
    ['unknown default language', (f) => (f.defaultLanguage = 'sv'), 'defaultLanguage', /one of/],
    ['default language not offered', (f) => (f.languages = f.languages.filter((l: string) => l !== 'da')), 'defaultLanguage', /not one of the offered/],
    ['texts for an unknown language', (f) => (f.lookAndFeel.fr = f.lookAndFeel.en), 'lookAndFeel.fr'],
    ['offered language without texts', (f) => delete f.lookAndFeel.pl, 'lookAndFeel.pl', /no texts/],
    ['texts for a language not offered', (f) => (f.languages = ['da', 'en']), 'lookAndFeel.no', /not in languages/],
    ['offered language without phone code', (f) => delete f.phoneCodes.se, 'phoneCodes.se', /phone/],
    ['duplicate host', (f) => (f.hosts = ['localhost', 'other.example', 'localhost']), 'hosts.2', /twice/],
    ['host with port', (f) => (f.hosts = ['localhost:9000']), 'hosts.0', /without port/],
    ['host in capitals', (f) => (f.hosts = ['Whistle.Example.com']), 'hosts.0', /lower-case/],
    ['no host', (f) => (f.hosts = []), 'hosts', /at least one/],
    ['id not a slug', (f) => (f.id = 'Nordlys Energi'), 'id', /slug/],
    ['officer phone not E.164', (f) => (f.protectionOfficers[0].phone = '70 20 30 40'), 'protectionOfficers.0.phone', /international/],
    ['officer id not a UUID', (f) => (f.protectionOfficers[0].id = 'anne'), 'protectionOfficers.0.id', /UUID/],
    ['officer relation unknown', (f) => (f.protectionOfficers[0].customerRelation = 'PARTNER'), 'protectionOfficers.0.customerRelation', /INTERNAL/],
    ['duplicate officer', (f) => f.protectionOfficers.push(f.protectionOfficers[0]), 'protectionOfficers.1.id', /twice/],
    ['duplicate subsidiary', (f) => (f.subsidiaries = [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }]), 'subsidiaries.1.id', /twice/],
    ['logo outside the folder', (f) => (f.logo.file = '../../etc/passwd'), 'logo.file', /relative/],
    ['logo by URL', (f) => (f.logo.file = 'https://cdn.example.com/logo.svg'), 'logo.file', /relative/],
    ['logo type not an image', (f) => (f.logo.contentType = 'text/html'), 'logo.contentType', /image\/svg\+xml/],
    ['background colour unknown', (f) => (f.lookAndFeel.es.siteFrontPage.backgroundImageColor = 'red'), 'lookAndFeel.es.siteFrontPage.backgroundImageColor', /blue/],
    ['show option not boolean', (f) => (f.lookAndFeel.da.siteFrontPage.showVerbalOption = 'yes'), 'lookAndFeel.da.siteFrontPage.showVerbalOption', /true or false/],
    ['about page missing', (f) => f.lookAndFeel.se.siteAboutPages.pop(), 'lookAndFeel.se.siteAboutPages', /exactly 3/],
    [
      'about page twice',
      (f) => (f.lookAndFeel.en.siteAboutPages[2] = f.lookAndFeel.en.siteAboutPages[0]),
      'lookAndFeel.en.siteAboutPages.2.aboutPageType',
      /twice/,
    ],
    ['navigation to another site', (f) => (f.lookAndFeel.no.navigationPages[0].link = 'https://evil.example'), 'lookAndFeel.no.navigationPages.0.link', /path of this site/],
    ['unknown field', (f) => (f.lookAndFeel.da.siteFrontPage.colour = 'x'), 'lookAndFeel.da.siteFrontPage.colour', /unknown field/],
  ])('%s', (_label, breakIt, field, message) => {
    const file = base();
    breakIt(file);
    const r = failure(file);
    expect(r.field).toBe(field);
    if (message) expect(r.message).toMatch(message);
  });

  it('refuses something that is not an object', () => {
    for (const json of [[], null, 'text', 42]) expect(failure(json)).toEqual({ ok: false, field: '(file)', message: expect.stringMatching(/object/) });
  });
});

describe('lookAndFeelResponse', () => {
  const c = loadSeed('group.json');

  it('answers the wire shape of docs/architecture.md for an offered language', () => {
    const r = lookAndFeelResponse(c, 'se', 'fjordgruppen.svg')!;
    expect(Object.keys(r).sort()).toEqual(
      [
        'languageCode', 'languageName', 'logoFileName', 'supportLanguages', 'siteColors', 'contactPhone', 'contactPerson',
        'contactDetails', 'siteHowToReportPage', 'siteFrontPage', 'siteFAQPage', 'siteAboutPages', 'navigationPages',
        'phoneCodes', 'defaultLanguage', 'availableLanguages', 'voice',
      ].sort(),
    );
    expect(r.languageCode).toBe('se');
    expect(r.languageName).toBe('Svenska');
    expect(r.logoFileName).toBe('fjordgruppen.svg');
    expect(r.supportLanguages).toEqual(c.languages.map((l) => ({ languageCode: l, languageName: entry(c, l).languageName })));
    expect(r.supportLanguages.find((s) => s.languageCode === 'da')?.languageName).toBe('Dansk');
    expect(r.siteColors).toEqual(c.siteColors);
    expect(r.contactPhone).toBe(c.contactPhone);
    expect(r.contactPerson).toBe(c.contactPerson);
    expect(r.contactDetails).toBe(entry(c, 'se').contactDetails);
    expect(r.siteFrontPage).toEqual(entry(c, 'se').siteFrontPage);
    expect(r.siteFAQPage.faqs[0]!.heading).toBe('Kan jag rapportera anonymt?');
    expect(r.navigationPages[2]!.children).toHaveLength(3);
    expect(r.phoneCodes).toEqual({ da: 'DK', no: 'NO', se: 'SE', en: 'GB', es: 'ES', pl: 'PL', de: 'DE' });
    expect(r.defaultLanguage).toBe('en');
    expect(r.availableLanguages).toEqual(c.languages);
    // Plain JSON: survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });

  it('falls back to the company contact details when a language has none of its own', () => {
    const copy = structuredClone(c);
    delete entry(copy, 'de').contactDetails;
    expect(lookAndFeelResponse(copy, 'de', 'x.svg')!.contactDetails).toBe(c.contactDetails);
  });

  it('answers null for a language the company does not offer or that does not exist', () => {
    expect(lookAndFeelResponse(c, 'fr', 'x.svg')).toBeNull();
    expect(lookAndFeelResponse(c, 'sv', 'x.svg')).toBeNull();
    const small = parseCompanyFile({
      ...(readSeed('group.json') as object),
      languages: ['en', 'da'],
      lookAndFeel: { en: entry(c, 'en'), da: entry(c, 'da') },
    });
    expect(small.ok).toBe(true);
    if (!small.ok) return;
    expect(lookAndFeelResponse(small.company, 'pl', 'x.svg')).toBeNull();
    const en = lookAndFeelResponse(small.company, 'en', 'x.svg')!;
    expect(en.supportLanguages).toEqual([
      { languageCode: 'en', languageName: 'English' },
      { languageCode: 'da', languageName: 'Dansk' },
    ]);
    expect(en.availableLanguages).toEqual(['en', 'da']);
  });

  it('answers the company default language for a language it does not offer, when asked to (spec §1 "the site default")', () => {
    const small = parseCompanyFile({
      ...(readSeed('group.json') as object),
      languages: ['en', 'da'],
      defaultLanguage: 'en',
      lookAndFeel: { en: entry(c, 'en'), da: entry(c, 'da') },
    });
    expect(small.ok).toBe(true);
    if (!small.ok) return;
    expect(lookAndFeelResponse(small.company, 'pl', 'x.svg', { orDefault: true })!.languageCode).toBe('en');
    expect(lookAndFeelResponse(small.company, 'xx', 'x.svg', { orDefault: true })!.languageCode).toBe('en');
    expect(lookAndFeelResponse(small.company, 'da', 'x.svg', { orDefault: true })!.languageCode).toBe('da');
    expect(lookAndFeelResponse(small.company, 'pl', 'x.svg')).toBeNull();
  });
});

describe('quickExitUrl (docs/decisions/quick-exit.md)', () => {
  const withUrl = (quickExitUrl: unknown) => parseCompanyFile({ ...(readSeed('localhost.json') as object), quickExitUrl });

  it('is optional, and an absolute https address is kept', () => {
    expect(parseCompanyFile(readSeed('localhost.json')).ok).toBe(true);
    const r = withUrl(' https://www.dr.dk/ ');
    expect(r.ok && r.company.quickExitUrl).toBe('https://www.dr.dk/');
  });

  it.each(['/leave', 'javascript:alert(1)', 'https://user:pw@example.com/', 'ftp://example.com/', 42])('refuses %s, naming the field', (bad) => {
    const r = withUrl(bad);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.field).toBe('quickExitUrl');
  });
});

describe('voice (docs/decisions/voice-messages.md)', () => {
  const withVoice = (voice: unknown) => {
    const { voice: _seeded, ...rest } = readSeed('localhost.json') as Record<string, unknown>;
    return parseCompanyFile(voice === undefined ? rest : { ...rest, voice });
  };

  it('is off without a voice field; the demo company has it on; the defaults are 10 minutes and the reporter choosing', () => {
    const none = withVoice(undefined);
    expect(none.ok && voiceSettings(none.company)).toEqual({ enabled: false, maxMinutes: 10, disguise: 'choice' });
    const seeded = parseCompanyFile(readSeed('localhost.json'));
    expect(seeded.ok && voiceSettings(seeded.company).enabled).toBe(true);
    const partial = withVoice({ enabled: true });
    expect(partial.ok && voiceSettings(partial.company)).toEqual({ enabled: true, maxMinutes: 10, disguise: 'choice' });
  });

  it.each([
    [{ enabled: 'yes' }, 'voice.enabled'],
    [{ maxMinutes: 0 }, 'voice.maxMinutes'],
    [{ maxMinutes: 31 }, 'voice.maxMinutes'],
    [{ disguise: 'sometimes' }, 'voice.disguise'],
    [{ transcript: true }, 'voice'],
  ])('refuses %j, naming the field', (voice, field) => {
    const r = withVoice(voice);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.field.startsWith(field)).toBe(true);
  });
});
