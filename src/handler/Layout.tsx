/**
 * The workspace frame: top bar (workspace name, company, handler, language, sign-out),
 * the page, and the idle warning the session chart raises one minute before the end.
 * Signed out, every page but enrolment shows the sign-in page's route. The route shown
 * while signed in is told to the session chart, which keeps it across the idle or
 * server-ended sign-out (in memory), so signing in again returns to the case.
 *
 * The idle warning is a notice in an alert live region, not a modal dialog: it is
 * announced but takes no focus, so a handler typing a message keeps the caret (and
 * typing is itself staying, machines/handler/session.ts).
 */
import { Suspense, useEffect, useId } from 'react';
import { Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { HLink, useHandlerNavigate } from './links.tsx';
import { useSelector } from '@xstate/react';
import { LANGUAGE_NAMES, LANGUAGES, isLanguage, toBcp47, useT } from '../i18n/index.ts';
import * as buttons from '../styles/button.css.ts';
import '../i18n/drafts/index.ts';
import { visuallyHidden } from '../styles/global.css.ts';
import { useHandler } from './context.ts';
import * as styles from './Pages.css.ts';
import { KeysGate } from './KeysGate.tsx';
import * as keyStyles from './KeysPage.css.ts';
import * as adminStyles from './admin/Admin.css.ts';
import { TemplatesNavLink } from './TemplatesNavLink.tsx';

/** Where an account lands after logging in: its cases, its company's accounts, or the operator's companies. */
function homeOf(h: { roles?: { operator: boolean; admin: boolean; handler: boolean }; companyId?: string } | null): string {
  if (h?.roles?.operator) return '/handler/operator';
  if (h?.roles && !h.roles.handler && h.roles.admin && h.companyId) return `/handler/admin/${encodeURIComponent(h.companyId)}`;
  return '/handler/cases';
}

export function Layout() {
  return (
    <Suspense fallback={<div aria-busy="true" />}>
      <Frame />
    </Suspense>
  );
}

function Frame() {
  const t = useT('handler');
  const tk = useT('keys');
  const ta = useT('admin');
  const td = useT('drafts');
  const go = useNavigate();
  const { session, language, setLanguage } = useHandler();
  const handler = useSelector(session, (s) => s.context.handler);
  const signedIn = useSelector(session, (s) => s.matches('signedIn'));
  const signedOut = useSelector(session, (s) => s.matches('signedOut'));
  const warning = useSelector(session, (s) => s.matches({ signedIn: { idle: 'warning' } }) || s.matches({ signedIn: { idle: 'refreshing' } }));
  const canStay = useSelector(session, (s) => s.can({ type: 'session.stay' }));
  const resume = useSelector(session, (s) => s.context.resume?.path ?? null);
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const navigate = useHandlerNavigate();
  const langId = useId();
  const idleId = useId();

  useEffect(() => {
    document.documentElement.lang = toBcp47(language);
  }, [language]);
  useEffect(() => {
    const onEnrol = pathname.startsWith('/handler/enrol');
    if (signedOut && !onEnrol && pathname !== '/handler') void navigate('/handler');
    const atSignIn = pathname === '/handler' || pathname === '/handler/';
    // Back where the idle or server-ended sign-out left off; forgotten once there (not before: the inbox would win the race).
    if (signedIn && atSignIn) void go({ to: (resume ?? homeOf(handler)) as never, replace: true });
    if (signedIn && resume && pathname === resume) session.send({ type: 'resume.done' });
    if (signedIn && !atSignIn && !onEnrol) session.send({ type: 'place.change', path: pathname });
  }, [signedIn, signedOut, pathname, navigate, go, handler, resume, session]);
  const roles = handler?.roles;

  return (
    <div className={styles.shell}>
      <header className={styles.topBar}>
        <HLink to={signedIn ? '/handler/cases' : '/handler'} className={styles.brand}>
          {t('handler.title')}
        </HLink>
        {handler && (
          <span className={styles.who}>
            {t('handler.bar.signedInAs', { name: handler.name, company: handler.companyName })}
          </span>
        )}
        {signedIn && roles && (roles.admin || roles.operator) && (
          <nav aria-label={ta('admin.nav.accounts')} className={adminStyles.nav}>
            {roles.handler && (
              <Link to={'/handler/cases' as never} className={adminStyles.navLink}>
                {ta('admin.nav.cases')}
              </Link>
            )}
            {roles.admin && handler?.companyId && (
              <Link to={'/handler/admin/$companyId' as never} params={{ companyId: handler.companyId } as never} className={adminStyles.navLink}>
                {ta('admin.nav.accounts')}
              </Link>
            )}
            <HLink to="/handler/company" className={adminStyles.navLink}>
              {t('handler.bar.company')}
            </HLink>
            <TemplatesNavLink />
            {roles.operator && (
              <Link to={'/handler/operator' as never} className={adminStyles.navLink}>
                {ta('admin.nav.companies')}
              </Link>
            )}
          </nav>
        )}
        <label htmlFor={langId} className={visuallyHidden}>
          {t('frame.language')}
        </label>
        <select id={langId} className={styles.barSelect} value={language} onChange={(e) => isLanguage(e.target.value) && setLanguage(e.target.value)}>
          {LANGUAGES.map((l) => (
            <option key={l} value={l} lang={toBcp47(l)}>
              {LANGUAGE_NAMES[l]}
            </option>
          ))}
        </select>
        {signedIn && (
          <HLink to="/handler/keys" className={keyStyles.barLink}>
            {tk('keys.nav')}
          </HLink>
        )}
        {signedIn && (
          <button type="button" className={styles.barButton} disabled={!session.getSnapshot().can({ type: 'signout' })} onClick={() => session.send({ type: 'signout' })}>
            {t('handler.bar.signOut')}
          </button>
        )}
      </header>
      <main className={styles.main}>
        {signedIn && (handler?.failedSignIns ?? 0) > 0 && (
          <p role="status" className={adminStyles.notice} data-testid="failed-signins">
            {ta('admin.failedSignIns', { count: handler!.failedSignIns! })}
          </p>
        )}
        <Suspense fallback={<div aria-busy="true" />}>
          <KeysGate />
          <Outlet />
        </Suspense>
      </main>
      {/* Assertive, and present before the notice appears so it is announced; no role="alert" on an empty region, which would sit beside every page's own alert. */}
      <div aria-live="assertive" aria-atomic="true">
        {warning && (
          <section className={styles.idleNotice} aria-labelledby={idleId} data-testid="idle-notice">
            <h2 id={idleId} className={styles.idleTitle}>
              {t('handler.idle.title')}
            </h2>
            <p>{t('handler.idle.text')}</p>
            <p>{td('drafts.idle.keep')}</p>
            <div className={styles.idleActions}>
              <button type="button" className={buttons.button} disabled={!canStay} onClick={() => session.send({ type: 'session.stay' })}>
                {t('handler.idle.stay')}
              </button>
              <button type="button" className={buttons.secondaryButton} onClick={() => session.send({ type: 'signout' })}>
                {t('handler.bar.signOut')}
              </button>
            </div>
          </section>
        )}
      </div>
    </div>
  );
}
