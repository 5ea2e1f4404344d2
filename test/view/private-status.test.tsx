/** /private/status rendered from a real session actor (stub network actors): spec §2 and §4. */
import { afterEach, describe, expect, it } from 'vitest';
import { Suspense } from 'react';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  Outlet,
  RouterProvider,
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
} from '@tanstack/react-router';
import { createActor, fromPromise, waitFor, type AnyActorRef } from 'xstate';
import { I18nProvider, LANGUAGES, type Language } from '../../src/i18n/index.ts';
import { PrivateContext } from '../../src/private/context.tsx';
import { StatusPage } from '../../src/private/StatusPage.tsx';
import '../../src/i18n/private/index.ts';
import {
  sessionMachine,
  type CheckResult,
  type LoadCaseResult, type LoadCaseInput,
  type PrivateCase,
  type VerifyResult,
} from '../../machines/session.ts';
import { CASE_NUMBER, sampleCase } from '../model/session.fixtures.ts';
import da from '../../src/i18n/private/da.json' with { type: 'json' };
import no from '../../src/i18n/private/no.json' with { type: 'json' };
import se from '../../src/i18n/private/se.json' with { type: 'json' };
import en from '../../src/i18n/private/en.json' with { type: 'json' };
import es from '../../src/i18n/private/es.json' with { type: 'json' };
import pl from '../../src/i18n/private/pl.json' with { type: 'json' };
import de from '../../src/i18n/private/de.json' with { type: 'json' };

const CATALOGUES: Record<Language, Record<string, string>> = { da, no, se, en, es, pl, de };
const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T10:00:00.000Z`;

const actors: AnyActorRef[] = [];
afterEach(() => actors.splice(0).forEach((a) => a.stop()));

async function renderStatus(c: PrivateCase, language: Language = 'en') {
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
  const status = createRoute({
    getParentRoute: () => root,
    path: '/private/status',
    component: () => (
      <PrivateContext value={{ session, services: {} as never }}>
        <StatusPage />
      </PrivateContext>
    ),
  });
  const messages = createRoute({ getParentRoute: () => root, path: '/private/messages', component: () => <p>the messages page</p> });
  const router = createRouter({
    routeTree: root.addChildren([status, messages]),
    history: createMemoryHistory({ initialEntries: ['/private/status'] }),
  });
  render(
    <I18nProvider language={language}>
      <Suspense fallback={<p>loading</p>}>
        <RouterProvider router={router as never} />
      </Suspense>
    </I18nProvider>,
  );
  await screen.findByRole('heading', { level: 1 }, { timeout: 5000 });
}

describe('/private/status', () => {
  it('names the case, shows 5 % for a received case, and enables only the confirmation', async () => {
    await renderStatus({ ...sampleCase, submission: { type: 'ONLINE_FORM' } });
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Status of case 1234 5678 9012 3456');
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('5');
    expect(screen.queryByText(/asked you a question/)).toBeNull();
    expect(screen.queryByText(/starts when you call/)).toBeNull();
    const confirmation = screen.getByRole('button', { name: /Confirmation of receipt/ });
    expect((confirmation as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByRole('button', { name: /^Feedback/ }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(confirmation);
    expect(screen.getByText('Received on 01/11/2026')).toBeTruthy();
    // The acknowledgement clock: 7 days after receipt.
    expect(screen.getByText(/Due by 08\/11\/2026|Overdue since 08\/11\/2026/)).toBeTruthy();
  });

  it('shows the yellow banner linking to messages and the will-be-initiated warning for a lone pending event', async () => {
    const pending = [{ status: 'PENDING_WHISTLEBLOWER_CONTACT' as const, dateTime: '2026-11-01T10:00:00.000Z' }];
    await renderStatus({ ...sampleCase, pendingWhistleblowerAction: true, events: pending, caseStatusHistory: pending });
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('0');
    expect(screen.getByText(/starts when you call/)).toBeTruthy();
    expect((screen.getByRole('button', { name: /Confirmation of receipt/ }) as HTMLButtonElement).disabled).toBe(true);
    const banner = screen.getByRole('status');
    expect(banner.textContent).toMatch(/asked you a question/);
    await userEvent.click(within(banner).getByRole('link', { name: 'Go to messages' }));
    expect(await screen.findByText('the messages page')).toBeTruthy();
  });

  it('says when the case will be deleted', async () => {
    await renderStatus({ ...sampleCase, scheduledDeletion: '2029-11-20T10:00:00.000Z' });
    expect(screen.getByText("Under the company's retention rules, this case and everything in it will be deleted on 20/11/2029.")).toBeTruthy();
  });

  it('shows no deletion date for a case still being handled', async () => {
    await renderStatus({ ...sampleCase, scheduledDeletion: null });
    expect(screen.queryByText(/will be deleted/)).toBeNull();
  });

  it('lists every feedback with its date and time, oldest first', async () => {
    const fb = (id: string, time: string) => ({ id, message: `feedback ${id}`, time, type: 'FEEDBACK' as const, createdByUserId: 'h', files: [] });
    await renderStatus({
      ...sampleCase,
      events: [
        { status: 'RECEIVED', dateTime: '2026-11-01T10:00:00.000Z' },
        { status: 'BEING_INVESTIGATED', dateTime: '2026-11-03T10:00:00.000Z' },
      ],
      messages: [fb('b', '2026-11-20T10:00:00.000Z'), fb('a', '2026-11-05T10:00:00.000Z')],
    });
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('33');
    const trigger = screen.getByRole('button', { name: /^Feedback/ });
    await userEvent.click(trigger);
    expect(screen.getByText('First feedback on 05/11/2026')).toBeTruthy();
    const list = screen.getByRole('list', { name: 'All feedback' });
    expect(within(list).getAllByRole('listitem').map((li) => li.querySelector('p')!.textContent)).toEqual(['feedback a', 'feedback b']);
    expect(list.querySelector('time')!.textContent).toMatch(/2026/);
  });

  it('labels the statuses as spec §4 does: a phone case awaiting the call is a draft; BEING_CLOSED is "Under completion" (issue 42)', async () => {
    const pending = [{ status: 'PENDING_WHISTLEBLOWER_CONTACT' as const, dateTime: at(1) }];
    await renderStatus({ ...sampleCase, submission: { type: 'PHONE' }, events: pending, caseStatusHistory: pending });
    expect(screen.getByTestId('case-status').textContent).toBe('Status: Draft');
    expect([...screen.getByTestId('timeline').querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'Draft 01/11/2026Your case starts when you make the phone call.',
    ]);
  });

  it('shows the §4 timeline descriptions, oldest first, in all seven languages (issue 42)', async () => {
    const events = [
      { status: 'PENDING_WHISTLEBLOWER_CONTACT' as const, dateTime: at(1) },
      { status: 'RECEIVED' as const, dateTime: at(2) },
      { status: 'BEING_INVESTIGATED' as const, dateTime: at(3) },
      { status: 'BEING_CLOSED' as const, dateTime: at(4) },
      { status: 'CLOSED' as const, dateTime: at(5) },
    ];
    const keys = ['PENDING_WHISTLEBLOWER_CONTACT', 'RECEIVED', 'INITIAL_ASSESSMENT', 'BEING_INVESTIGATED', 'BEING_CLOSED', 'CLOSED'];
    for (const lang of LANGUAGES) {
      await renderStatus({ ...sampleCase, submission: { type: 'PHONE' }, events, caseStatusHistory: events }, lang);
      const cat = CATALOGUES[lang];
      const entries = [...screen.getByTestId('timeline').querySelectorAll('li')];
      expect(entries.map((li) => li.getAttribute('data-timeline')), lang).toEqual(keys);
      entries.forEach((li, i) => {
        expect(li.querySelector('strong')!.textContent, `${lang} ${keys[i]}`).toBe(cat[`private.status.timeline.name.${keys[i]}`]);
        expect(li.textContent, `${lang} ${keys[i]}`).toContain(cat[`private.status.timeline.text.${keys[i]}`]!);
      });
      expect(screen.getByTestId('case-status').textContent, lang).toBe(cat['private.status.current']!.replace('{status}', cat['private.status.step.CLOSED']!));
      cleanup();
    }
    const english = CATALOGUES.en;
    expect(english['private.status.step.BEING_CLOSED']).toBe('Under completion');
    expect(english['private.status.timeline.name.BEING_CLOSED']).toBe('Under completion');
    expect(english['private.status.step.PENDING_WHISTLEBLOWER_CONTACT']).toBe('Draft');
  });
});
