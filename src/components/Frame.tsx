/**
 * The common frame (spec §2): an 83 px top bar with the logo (→ /), the navigation
 * from the look and feel, the language selector and the login button; under
 * 1111 px a side drawer (loaded on first use) replaces the bar's navigation.
 */
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useRouter, useRouterState } from '@tanstack/react-router';
import { PRIVATE_LANGUAGES } from '../i18n/index.ts';
import { FrameMenuSlotContext, FrameSlotContext } from './FrameSlot.tsx';
import { useT } from '../i18n/index.ts';
import { useApi, useLookAndFeel } from '../app/lookAndFeel.tsx';
import { logoUrl } from '../api/public.ts';
import { buildNavigation, type NavItem } from './navigation.ts';
import { LanguageSelect } from './LanguageSelect.tsx';
import { PathLink } from './NavLink.tsx';
import { Icon } from './Icon.tsx';
import { RouteFocusProvider } from './RouteFocus.tsx';
import { isQuickExitKey, quickExit } from '../app/quickExit.ts';
import * as styles from './Frame.css.ts';

const loadDrawer = () => import('./NavDrawer.tsx');
const NavDrawer = lazy(loadDrawer);

export const LOGIN_PATH = '/private/status';

export function LoginLink({ className, onNavigate }: { className?: string; onNavigate?: () => void }) {
  const t = useT();
  const router = useRouter();
  return (
    <a
      href={LOGIN_PATH}
      className={className ?? styles.button}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        onNavigate?.();
        router.history.push(LOGIN_PATH);
      }}
    >
      <Icon name="login" size={20} />
      {t('frame.login')}
    </a>
  );
}

function WideNav({ items, label }: { items: NavItem[]; label: string }) {
  return (
    <nav aria-label={label} className={`${styles.nav} ${styles.wideOnly}`}>
      <ul className={styles.navList}>
        {items.map((item) => (
          <li key={item.to + item.text} className={styles.navItem}>
            <PathLink to={item.to} className={styles.navLink}>
              <Icon name={item.icon} size={20} className={styles.navIcon} />
              {item.text}
              {item.children.length > 0 && <Icon name="chevron" size={16} />}
            </PathLink>
            {item.children.length > 0 && (
              <ul className={styles.subMenu}>
                {item.children.map((c) => (
                  <li key={c.to + c.text}>
                    <PathLink to={c.to} className={styles.subLink}>
                      {c.text}
                    </PathLink>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * "Leave quickly" (docs/decisions/quick-exit.md): always in the top bar, at every
 * width, and Alt+Q anywhere. Capture phase, so an open dialog cannot swallow it.
 */
function QuickExit() {
  const t = useT();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isQuickExitKey(e)) return;
      e.preventDefault();
      e.stopPropagation();
      quickExit();
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, []);
  return (
    <button type="button" className={styles.quickExit} aria-keyshortcuts="Alt+Q" onClick={() => quickExit()}>
      <Icon name="leave" size={20} />
      {t('frame.quickExit')}
    </button>
  );
}

export function Frame({ children }: { children: ReactNode }) {
  const t = useT();
  const api = useApi();
  const laf = useLookAndFeel();
  const items = buildNavigation(laf, t);
  // Open/closed of a disclosure is view state, not flow state.
  const [drawerOpen, setDrawerOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // The slot for <FrameActions> (FrameSlot.tsx): a ref, so filling it renders nothing.
  const slot = useRef<HTMLDivElement>(null);
  const [menuSlot, setMenuSlot] = useState<HTMLElement | null>(null);
  const isPrivate = useRouterState({ select: (s) => s.location.pathname.startsWith('/private') });
  const languages = isPrivate ? PRIVATE_LANGUAGES : undefined;

  return (
    <RouteFocusProvider>
      <a href="#main" className={styles.skipLink}>
        {t('frame.skipToContent')}
      </a>
      <header className={styles.topBar}>
        <Link to={(isPrivate ? LOGIN_PATH : '/') as '/'} className={styles.logoLink} aria-label={t(isPrivate ? 'frame.logoPrivate' : 'frame.logoHome')}>
          {laf.logoFileName ? (
            <img className={styles.logo} src={logoUrl(api, laf.logoFileName)} alt="" width={200} height={52} />
          ) : (
            <span>{t('frame.brand')}</span>
          )}
        </Link>
        <WideNav items={items} label={t('frame.mainNavigation')} />
        <div className={`${styles.actions} ${styles.wideOnly}`}>
          <LanguageSelect languages={languages} />
          {!isPrivate && <LoginLink />}
        </div>
        <QuickExit />
        {/* Not inside the wide-only actions: the private area's Log out stays in the bar on a phone. */}
        <div ref={slot} className={styles.slot} />
        <button
          ref={menuButton}
          type="button"
          className={`${styles.menuButton} ${styles.narrowOnly}`}
          aria-haspopup="dialog"
          aria-expanded={drawerOpen}
          onPointerEnter={() => void loadDrawer()}
          onFocus={() => void loadDrawer()}
          onClick={() => setDrawerOpen(true)}
        >
          <Icon name="menu" />
          <span className={styles.menuWord}>{t('frame.menu')}</span>
        </button>
      </header>
      {drawerOpen && (
        <Suspense fallback={null}>
          <NavDrawer
            items={items}
            languages={languages}
            showLogin={!isPrivate}
            open={drawerOpen}
            onOpenChange={setDrawerOpen}
            returnFocusTo={menuButton}
            actionsRef={setMenuSlot}
          />
        </Suspense>
      )}
      <main id="main" tabIndex={-1} className={styles.main}>
        <FrameSlotContext value={slot}>
          <FrameMenuSlotContext value={menuSlot}>{children}</FrameMenuSlotContext>
        </FrameSlotContext>
      </main>
      <footer className={styles.footer}>
        <span>{t('frame.footer')}</span>
        <span hidden data-testid="app-version">
          {__APP_VERSION__}
        </span>
      </footer>
    </RouteFocusProvider>
  );
}
