/**
 * The public navigation (spec §2 Common frame): from the look and feel's
 * navigation pages (text, link, icon, children, page type); an item tied to an
 * about page type shows only when that about page is marked visible. Without any
 * navigation pages (built-in defaults) the spec's public navigation is built.
 */
import type { LookAndFeel, NavigationPage } from '../../machines/lookAndFeel.ts';
import type { TFunction } from '../i18n/index.ts';

export interface NavItem {
  text: string;
  to: string;
  icon: string | null;
  children: NavItem[];
}

export const ABOUT_PATHS = {
  PERSONAL_DATA: '/about-whistleblowing/personal-data',
  ANONYMITY: '/about-whistleblowing/anonymity',
  CASE_MANAGEMENT: '/about-whistleblowing/case-process',
} as const;

function isShown(page: NavigationPage, laf: LookAndFeel): boolean {
  if (!page.pageType) return true;
  return laf.siteAboutPages.some((a) => a.aboutPageType === page.pageType && a.visible);
}

export function buildNavigation(laf: LookAndFeel, t: TFunction): NavItem[] {
  if (laf.navigationPages.length > 0) {
    const items: NavItem[] = [];
    for (const page of laf.navigationPages) {
      if (!isShown(page, laf)) continue;
      const children = (page.children ?? [])
        .filter((c) => isShown(c, laf))
        .map((c) => ({ text: c.text, to: c.link, icon: c.icon ?? null, children: [] }));
      // A parent that only groups about pages disappears when none of them is visible.
      if ((page.children?.length ?? 0) > 0 && children.length === 0 && page.children!.every((c) => c.pageType)) continue;
      items.push({ text: page.text, to: page.link, icon: page.icon ?? null, children });
    }
    return items;
  }
  const about: NavItem[] = (['PERSONAL_DATA', 'ANONYMITY', 'CASE_MANAGEMENT'] as const)
    .filter((type) => laf.siteAboutPages.some((a) => a.aboutPageType === type && a.visible))
    .map((type) => ({ text: t(`nav.about.${type}`), to: ABOUT_PATHS[type], icon: null, children: [] }));
  const items: NavItem[] = [
    { text: t('nav.home'), to: '/', icon: 'home', children: [] },
    { text: t('nav.howToReport'), to: '/how-to-report', icon: 'report', children: [] },
  ];
  if (about.length > 0) items.push({ text: t('nav.about'), to: about[0]!.to, icon: 'info', children: about });
  items.push({ text: t('nav.faq'), to: '/faq', icon: 'faq', children: [] });
  return items;
}
