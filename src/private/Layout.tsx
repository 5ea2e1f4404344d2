/**
 * The private area's layout (spec §2 Private routes): a left drawer (status,
 * messages, your report, your identity, log out) that shrinks to icons under
 * 1000 px for a mouse, keeps its words on touch screens and becomes a row of
 * labelled tabs on a phone, and the page. Log out is also a labelled button in the
 * top bar at every width and in the frame's menu. It owns the session actor: nothing private renders before
 * the token is verified and the case is read, and an expired session keeps the
 * page (and any draft) mounted under a dialog offering to sign in again.
 */
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { Link, Outlet, useRouter, useRouterState } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { sessionMachine } from '../../machines/session.ts';
import { useApi } from '../app/lookAndFeel.tsx';
import type { RuntimeConfig } from '../api/config.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { FrameActions, FrameMenuActions } from '../components/FrameSlot.tsx';
import { PageTitle } from '../components/PageTitle.tsx';
import { PrivateContext, type SessionActor } from './context.tsx';
import { afterFirstPage, createPrivateServices, sessionImplementations } from './services.ts';
import { PrivateIcon } from './PrivateIcon.tsx';
import { UnlockCase } from './UnlockCase.tsx';
import './index.ts';
import '../i18n/sealing/index.ts';
import * as styles from './Layout.css.ts';
import * as buttons from '../styles/button.css.ts';

// The expired-session dialog (Radix's dialog parts, ≈ 10 kB Brotli) is not needed
// to show a page: it loads after the first page, long before a refresh can fail
// (and so while the network still answers).
const loadConfirmDialog = () => import('../components/ConfirmDialog.tsx');
const ConfirmDialog = lazy(() => loadConfirmDialog().then((m) => ({ default: m.ConfirmDialog })));

const NAV = [
  { to: '/private/status', icon: 'status', label: 'private.nav.status' },
  { to: '/private/messages', icon: 'messages', label: 'private.nav.messages' },
  { to: '/private/report', icon: 'report', label: 'private.nav.report' },
  { to: '/private/info', icon: 'identity', label: 'private.nav.info' },
] as const;

export function PrivateLayout({ config }: { config: RuntimeConfig }) {
  const api = useApi();
  const router = useRouter();
  const language = useLanguage();
  // Created once per mounted layout: the OpenID client and the private API client.
  const [services] = useState(() => createPrivateServices(config, api, window.location.origin));
  const [languageRef] = useState(() => ({ current: language }));
  languageRef.current = language;
  const [{ caseInHand, ...implementations }] = useState(() =>
    sessionImplementations(
      services,
      {
        replace: (path) => void router.navigate({ to: path, replace: true }),
        home: () => void router.navigate({ to: '/', replace: true }),
        error: () => void router.navigate({ to: '/something-went-wrong', replace: true }),
        path: () => window.location.pathname,
      },
      () => languageRef.current,
    ),
  );
  // Read once, as the actor is created: with the head's answers in hand, the first
  // render is the page, not "checking" first.
  const [input] = useState(() => ({ caseInHand: caseInHand() }));
  const session = useActorRef(sessionMachine.provide(implementations), { input });
  const ready = useSelector(session, (s) => s.hasTag('signedIn') && s.context.caseData !== null);
  const passwordChangeRequested = useSelector(session, (s) => s.matches('passwordChangeRequested'));
  const keyMissing = useSelector(session, (s) => s.matches('keyMissing'));
  const askingPassword = useSelector(session, (s) => s.matches('askingPassword') || s.matches('unlocking'));
  const t = useT('private');
  useEffect(() => {
    if (!ready) return;
    afterFirstPage(() => {
      void services.userManager().catch(() => undefined);
      void loadConfirmDialog().catch(() => undefined);
    });
  }, [ready, services]);
  if (passwordChangeRequested) return <PasswordChangeRequested />;
  if (keyMissing)
    return (
      <Suspense fallback={<p role="status">{t('private.session.checking')}</p>}>
        <KeyMissing session={session} />
      </Suspense>
    );
  if (askingPassword)
    return (
      <Suspense fallback={<p role="status">{t('private.session.checking')}</p>}>
        <UnlockCase session={session} />
      </Suspense>
    );
  if (!ready) {
    // The page's frame, drawer space included, is laid out before the case arrives,
    // so nothing on screen moves when it does (Lighthouse's layout shift).
    return (
      <div className={styles.shell}>
        <div className={styles.drawer} aria-hidden="true" />
        <div className={`${styles.content} ${styles.loading}`} aria-busy="true">
          <p role="status">{t('private.session.checking')}</p>
        </div>
      </div>
    );
  }
  return (
    <PrivateContext value={{ session, services }}>
      <ReloadOnPageChange session={session} />
      <div className={styles.shell}>
        <Drawer session={session} />
        <div className={styles.content}>
          <Outlet />
        </div>
      </div>
      <ExpiredDialog session={session} />
      <FrameActions>
        <button type="button" className={`${buttons.secondaryButton} ${styles.barLogout}`} onClick={() => session.send({ type: 'session.logout' })}>
          <PrivateIcon name="logout" size={18} />
          {t('private.nav.logout')}
        </button>
      </FrameActions>
      <FrameMenuActions>
        <button type="button" className={buttons.secondaryButton} onClick={() => session.send({ type: 'session.logout' })}>
          <PrivateIcon name="logout" size={18} />
          {t('private.nav.logout')}
        </button>
      </FrameMenuActions>
    </PrivateContext>
  );
}

/**
 * Each private page shows the case as it is now (spec §4 "reloads the case on
 * entry"), but the page the reporter lands on was just read by the session: one
 * case call on entering the private area, one more per page change.
 */
function ReloadOnPageChange({ session }: { session: SessionActor }) {
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const shown = useRef(pathname);
  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    session.send({ type: 'case.reload' });
  }, [pathname, session]);
  return null;
}

function Drawer({ session }: { session: SessionActor }) {
  const t = useT('private');
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  return (
    <nav aria-label={t('private.nav.label')} className={styles.drawer}>
      <ul className={styles.drawerList}>
        {NAV.map((item) => (
          <li key={item.to}>
            <Link
              to={item.to}
              className={styles.drawerLink}
              aria-current={pathname === item.to ? 'page' : undefined}
              title={t(item.label)}
            >
              <PrivateIcon name={item.icon} />
              <span className={styles.drawerLabel}>{t(item.label)}</span>
            </Link>
          </li>
        ))}
      </ul>
      <button
        type="button"
        className={`${styles.drawerLink} ${styles.logout}`}
        onClick={() => session.send({ type: 'session.logout' })}
        title={t('private.nav.logout')}
      >
        <PrivateIcon name="logout" />
        <span className={styles.drawerLabel}>{t('private.nav.logout')}</span>
      </button>
    </nav>
  );
}

/**
 * After a password-change request the server has ended every sign-in: the page
 * says, in plain words, what happens next, and offers to log in again (a full
 * page load, so a fresh session starts the sign-in).
 */
function PasswordChangeRequested() {
  const t = useT('private');
  return (
    <div className={styles.notice}>
      <PageTitle title={t('private.password.requested.title')} />
      <p>{t('private.password.requested.text')}</p>
      <ol>
        <li>{t('private.password.requested.step1')}</li>
        <li>{t('private.password.requested.step2')}</li>
      </ol>
      <a className={buttons.button} href="/private/status">
        {t('private.password.requested.login')}
      </a>
    </div>
  );
}

/**
 * A sealed case and no reporter key in this page that opens it (issue 37): nothing of
 * the case can be shown, so the page says how to get the key back (log out, log in
 * again with case number and password) instead of failing.
 */
function KeyMissing({ session }: { session: SessionActor }) {
  const t = useT('sealing');
  return (
    <div className={styles.notice} data-testid="key-missing">
      <PageTitle title={t('sealing.keyMissing.title')} />
      <p>{t('sealing.keyMissing.text')}</p>
      <button type="button" className={buttons.button} onClick={() => session.send({ type: 'session.logout' })}>
        {t('sealing.keyMissing.logout')}
      </button>
    </div>
  );
}

/** A failed refresh: the page stays, the draft stays; sign in again or log out. */
function ExpiredDialog({ session }: { session: SessionActor }) {
  const t = useT('private');
  const open = useSelector(session, (s) => s.matches('expired') || s.matches('resuming'));
  const resuming = useSelector(session, (s) => s.matches('resuming'));
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <ConfirmDialog
        open
        title={t('private.session.expired.title')}
        description={t('private.session.expired.text')}
        cancelLabel={t('private.nav.logout')}
        confirmLabel={t('private.session.expired.signIn')}
        onCancel={() => session.send({ type: 'session.logout' })}
        onConfirm={() => session.send({ type: 'session.resume' })}
        confirmDisabled={resuming}
        escapeCancels={false}
      />
    </Suspense>
  );
}
