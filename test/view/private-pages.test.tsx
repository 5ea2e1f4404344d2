/**
 * The private pages of issue 17 §2 rendered from a real session actor (stub network
 * actors): the phone number on a pending phone case, Approve and Comment below the
 * record, the form's words for the category and for who sees the name, and the
 * password's one warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Suspense, type ComponentType } from 'react';
import { render, screen } from '@testing-library/react';
import {
  Outlet,
  RouterProvider,
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
} from '@tanstack/react-router';
import { createActor, fromPromise, waitFor, type AnyActorRef } from 'xstate';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppProviders } from '../../src/app/lookAndFeel.tsx';
import { createApiClient } from '../../src/api/client.ts';
import { I18nProvider, type Language } from '../../src/i18n/index.ts';
import { PrivateContext } from '../../src/private/context.tsx';
import { StatusPage } from '../../src/private/StatusPage.tsx';
import { ReportPage } from '../../src/private/ReportPage.tsx';
import { InfoPage } from '../../src/private/InfoPage.tsx';
import '../../src/i18n/private/index.ts';
import {
  sessionMachine,
  type CheckResult,
  type LoadCaseInput,
  type LoadCaseResult,
  type PrivateCase,
  type VerifyResult,
} from '../../machines/session.ts';
import { LANGUAGES } from '../../machines/schema.ts';
import { CASE_NUMBER, sampleCase } from '../model/session.fixtures.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const catalogue = (area: string, lang: Language) =>
  JSON.parse(readFileSync(path.join(ROOT, `src/i18n/${area}/${lang}.json`), 'utf8')) as Record<string, string>;

// The look and feel never answers: the views use the built-in defaults.
const api = createApiClient({ baseUrl: 'http://portal.test', companyHost: 'portal.test', fetch: () => new Promise(() => {}) });

const actors: AnyActorRef[] = [];
afterEach(() => actors.splice(0).forEach((a) => a.stop()));

async function renderPage(Page: ComponentType, c: PrivateCase, language: Language = 'en') {
  const session = createActor(
    sessionMachine.provide({
      actors: {
        checkSession: fromPromise<CheckResult, void>(async () => ({ authenticated: true, caseNumber: CASE_NUMBER })),
        verifyToken: fromPromise<VerifyResult, void>(async () => ({ status: 200 })),
        loadCase: fromPromise<LoadCaseResult, LoadCaseInput>(async () => ({ status: 200, data: c })),
      },
    }),
    { input: {} },
  ).start();
  actors.push(session);
  await waitFor(session, (s) => s.matches({ active: { caseData: 'ready' } }));
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/private/page',
    component: () => (
      <PrivateContext value={{ session, services: {} as never }}>
        <Page />
      </PrivateContext>
    ),
  });
  const router = createRouter({ routeTree: root.addChildren([page]), history: createMemoryHistory({ initialEntries: ['/private/page'] }) });
  render(
    <AppProviders api={api} initialLanguage={language}>
      {() => (
        <I18nProvider language={language}>
          <Suspense fallback={<p>loading</p>}>
            <RouterProvider router={router as never} />
          </Suspense>
        </I18nProvider>
      )}
    </AppProviders>,
  );
  await screen.findByRole('heading', { level: 1 }, { timeout: 5000 });
}

const pending = [{ status: 'PENDING_WHISTLEBLOWER_CONTACT' as const, dateTime: '2026-11-01T10:00:00.000Z' }];
const officer = { id: 'po-1', name: 'Anne Sørensen', jobTitle: 'Lawyer', company: 'Holm & Lund', phone: '+4570203040' };

/** True when `a` comes before `b` in the document. */
const before = (a: Element, b: Element) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);

describe('the status page of a pending phone case', () => {
  it('shows the number to call, grouped, as a tap-to-call link, with how to hide one\'s own number', async () => {
    await renderPage(StatusPage, { ...sampleCase, protectionOfficer: officer, events: pending, caseStatusHistory: pending });
    expect(screen.getByRole('heading', { name: 'Phone number to call' })).toBeTruthy();
    const link = screen.getByRole('link', { name: '+45 70 20 30 40' });
    expect(link.getAttribute('href')).toBe('tel:+4570203040');
    expect(screen.getByText('Anne Sørensen, Lawyer')).toBeTruthy();
    expect(screen.getByText(/dial #31# before the number/)).toBeTruthy();
  });

  it('shows no number once the case has started', async () => {
    await renderPage(StatusPage, { ...sampleCase, protectionOfficer: officer });
    expect(screen.queryByRole('link', { name: '+45 70 20 30 40' })).toBeNull();
  });
});

describe('the report page of a phone case', () => {
  it('puts Approve and Comment below the record they act on', async () => {
    const report = { text: 'What was said on the phone.', updatedAt: '2026-11-02T10:00:00.000Z', version: 1, sha256: 'a'.repeat(64) };
    await renderPage(ReportPage, { ...sampleCase, report });
    const record = screen.getByRole('heading', { name: 'The record of your report' });
    const approve = screen.getByRole('button', { name: 'Approve' });
    const comment = screen.getByRole('button', { name: 'Submit comments' });
    expect(before(record, approve)).toBe(true);
    expect(before(record, comment)).toBe(true);
    expect(before(screen.getByText('What was said on the phone.'), approve)).toBe(true);
  });

  it('names the category with the form\'s word: Danish "Bedrageri"', async () => {
    await renderPage(ReportPage, { ...sampleCase, violation: 'FRAUD' }, 'da');
    expect(screen.getByText('Bedrageri')).toBeTruthy();
    expect(screen.queryByText('Svindel')).toBeNull();
  });
});

describe('the form and the private area say the same thing', () => {
  it('every category reads the same on the report page as in the form, in all seven languages', () => {
    for (const lang of LANGUAGES) {
      const forms = catalogue('forms', lang);
      const own = catalogue('private', lang);
      const codes = Object.keys(forms).filter((k) => k.startsWith('forms.violation.')).map((k) => k.slice('forms.violation.'.length));
      expect(codes.length).toBeGreaterThan(5);
      for (const code of codes) expect(own[`private.report.violations.${code}`], `${lang} ${code}`).toBe(forms[`forms.violation.${code}`]);
    }
  });

  it('who sees the name: the identity page repeats the form\'s sentence word for word, in all seven languages', () => {
    for (const lang of LANGUAGES) {
      expect(catalogue('private', lang)['private.info.whoSees'], lang).toBe(catalogue('forms', lang)['forms.identity.revealHint']);
    }
  });

  it('the identity page shows it, anonymous or not', async () => {
    const hint = catalogue('forms', 'en')['forms.identity.revealHint']!;
    await renderPage(InfoPage, { ...sampleCase, whistleblower: null });
    expect(screen.getByText(hint)).toBeTruthy();
    expect(screen.queryByText(/case handlers/)).toBeNull();
  });
});

describe('the password on the identity page', () => {
  it('has one warning: it cannot be recovered', async () => {
    await renderPage(InfoPage, sampleCase);
    expect(screen.getByText(/Your password cannot be recovered/)).toBeTruthy();
  });
});

describe('the notification section of a sealed case on the identity page', () => {
  const sealedText = (key: string) => catalogue('sealedPrivate', 'en')[key]!;

  it('says an address is stored and offers it checked; a server-keyed case has no such section', async () => {
    await renderPage(InfoPage, { ...sampleCase, sealed: { unopened: [], notify: true } });
    expect(await screen.findByText(sealedText('sealedPrivate.notify.isOn'))).toBeTruthy();
    expect((screen.getByRole('checkbox', { name: sealedText('sealedPrivate.notify.wanted') }) as HTMLInputElement).checked).toBe(true);
    // The stored address cannot be read here: the field is empty, for a new one.
    expect((screen.getByLabelText(new RegExp(`^${sealedText('sealedPrivate.notify.address')}`)) as HTMLInputElement).value).toBe('');
    // The identity form's own checkbox is the server-keyed case's: not here.
    expect(screen.queryByRole('checkbox', { name: catalogue('private', 'en')['private.info.notification'] })).toBeNull();
  });

  it('says a closed case deleted the address and offers nothing', async () => {
    await renderPage(InfoPage, { ...sampleCase, status: 'CLOSED', sealed: { unopened: [] } });
    expect(await screen.findByText(sealedText('sealedPrivate.notify.closed'))).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: sealedText('sealedPrivate.notify.wanted') })).toBeNull();
    expect(screen.queryByRole('button', { name: sealedText('sealedPrivate.notify.save') })).toBeNull();
  });

  it('is not shown for a server-keyed case, whose identity form keeps its own checkbox', async () => {
    await renderPage(InfoPage, sampleCase);
    expect(screen.getByRole('checkbox', { name: catalogue('private', 'en')['private.info.notification'] })).toBeTruthy();
    expect(screen.queryByRole('region', { name: sealedText('sealedPrivate.notify.title') })).toBeNull();
  });
});
