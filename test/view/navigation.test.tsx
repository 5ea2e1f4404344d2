/** The public navigation built from the look and feel (spec §2 Common frame). */
import { describe, expect, it } from 'vitest';
import { buildNavigation } from '../../src/components/navigation.ts';
import { DEFAULT_LOOK_AND_FEEL, type LookAndFeel } from '../../machines/lookAndFeel.ts';

const t = (key: string) => `«${key}»`;

const about = (visible: [boolean, boolean, boolean]): LookAndFeel['siteAboutPages'] =>
  (['PERSONAL_DATA', 'ANONYMITY', 'CASE_MANAGEMENT'] as const).map((aboutPageType, i) => ({
    aboutPageType,
    heading: aboutPageType,
    visible: visible[i]!,
    textSections: [],
  }));

const withNav: LookAndFeel = {
  ...DEFAULT_LOOK_AND_FEEL,
  navigationPages: [
    { text: 'Home', link: '/', icon: 'home', children: [] },
    {
      text: 'About',
      link: '/about-whistleblowing/personal-data',
      icon: 'info',
      children: [
        { text: 'Policy', link: '/about-whistleblowing/personal-data', icon: 'privacy', pageType: 'PERSONAL_DATA', children: [] },
        { text: 'Protection', link: '/about-whistleblowing/anonymity', icon: 'protection', pageType: 'ANONYMITY', children: [] },
        { text: 'Process', link: '/about-whistleblowing/case-process', icon: 'process', pageType: 'CASE_MANAGEMENT', children: [] },
      ],
    },
    { text: 'FAQ', link: '/faq', icon: 'faq', children: [] },
  ],
};

describe('buildNavigation', () => {
  it('keeps text, link, icon and children, showing only visible about pages', () => {
    const items = buildNavigation({ ...withNav, siteAboutPages: about([true, false, true]) }, t);
    expect(items.map((i) => i.text)).toEqual(['Home', 'About', 'FAQ']);
    expect(items[1]!.children.map((c) => [c.text, c.to, c.icon])).toEqual([
      ['Policy', '/about-whistleblowing/personal-data', 'privacy'],
      ['Process', '/about-whistleblowing/case-process', 'process'],
    ]);
    expect(items[0]).toEqual({ text: 'Home', to: '/', icon: 'home', children: [] });
  });

  it('drops a parent that only groups about pages when none is visible', () => {
    const items = buildNavigation({ ...withNav, siteAboutPages: about([false, false, false]) }, t);
    expect(items.map((i) => i.text)).toEqual(['Home', 'FAQ']);
  });

  it('builds the spec’s public navigation from the catalogue when the settings have none', () => {
    const items = buildNavigation({ ...DEFAULT_LOOK_AND_FEEL, siteAboutPages: about([true, true, false]) }, t);
    expect(items.map((i) => [i.text, i.to])).toEqual([
      ['«nav.home»', '/'],
      ['«nav.howToReport»', '/how-to-report'],
      ['«nav.about»', '/about-whistleblowing/personal-data'],
      ['«nav.faq»', '/faq'],
    ]);
    expect(items[2]!.children.map((c) => c.text)).toEqual(['«nav.about.PERSONAL_DATA»', '«nav.about.ANONYMITY»']);
    // The built-in defaults have no about pages: no about entry at all.
    expect(buildNavigation(DEFAULT_LOOK_AND_FEEL, t).map((i) => i.to)).toEqual(['/', '/how-to-report', '/faq']);
  });
});
