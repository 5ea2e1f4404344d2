/**
 * The chat composer naming the files it did not add (issue 42), and past the
 * reporter's message budget (issue 36, finding 4;
 * docs/decisions/submission-abuse.md): the server's 429 keeps every typed word and
 * says how long to wait, from the server's Retry-After, in the composer's own words.
 * Rendered from a real session actor and the real API client over a stub fetch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Suspense } from 'react';
import { fireEvent, render, screen } from '@testing-library/react';
import { Outlet, RouterProvider, createMemoryHistory, createRootRoute, createRoute, createRouter } from '@tanstack/react-router';
import { createActor, fromPromise, waitFor, type AnyActorRef } from 'xstate';
import { AppProviders } from '../../src/app/lookAndFeel.tsx';
import { createApiClient } from '../../src/api/client.ts';
import { I18nProvider } from '../../src/i18n/index.ts';
import { PrivateContext } from '../../src/private/context.tsx';
import { MessagesPage } from '../../src/private/MessagesPage.tsx';
import '../../src/i18n/private/index.ts';
import { sessionMachine, type CheckResult, type LoadCaseInput, type LoadCaseResult, type VerifyResult } from '../../machines/session.ts';
import { CASE_NUMBER, sampleCase } from '../model/session.fixtures.ts';

const lookAndFeelApi = createApiClient({ baseUrl: 'http://portal.test', companyHost: 'portal.test', fetch: () => new Promise(() => {}) });

// jsdom lays nothing out: the page's scroll to the newest message has nothing to do.
Element.prototype.scrollIntoView ??= () => {};

const actors: AnyActorRef[] = [];
afterEach(() => actors.splice(0).forEach((a) => a.stop()));

async function renderMessages(privateApi: ReturnType<typeof createApiClient>) {
  const session = createActor(
    sessionMachine.provide({
      actors: {
        checkSession: fromPromise<CheckResult, void>(async () => ({ authenticated: true, caseNumber: CASE_NUMBER })),
        verifyToken: fromPromise<VerifyResult, void>(async () => ({ status: 200 })),
        loadCase: fromPromise<LoadCaseResult, LoadCaseInput>(async () => ({ status: 200, data: sampleCase })),
      },
    }),
    { input: {} },
  ).start();
  actors.push(session);
  await waitFor(session, (s) => s.matches({ active: { caseData: 'ready' } }));
  const root = createRootRoute({ component: () => <Outlet /> });
  const page = createRoute({
    getParentRoute: () => root,
    path: '/private/messages',
    component: () => (
      <PrivateContext value={{ session, services: { api: privateApi, accessToken: async () => 'token', caseKey: () => null } as never }}>
        <MessagesPage />
      </PrivateContext>
    ),
  });
  const router = createRouter({ routeTree: root.addChildren([page]), history: createMemoryHistory({ initialEntries: ['/private/messages'] }) });
  render(
    <AppProviders api={lookAndFeelApi} initialLanguage="en">
      {() => (
        <I18nProvider language="en">
          <Suspense fallback={<p>loading</p>}>
            <RouterProvider router={router as never} />
          </Suspense>
        </I18nProvider>
      )}
    </AppProviders>,
  );
}

describe('the chat composer past the message budget', () => {
  it('too many messages (429): keeps the typed text and says how long to wait', async () => {
    const posted: string[] = [];
    const privateApi = createApiClient({
      baseUrl: 'http://portal.test',
      companyHost: 'portal.test',
      getAccessToken: () => 'token',
      fetch: async (input) => {
        posted.push(String(input));
        return new Response(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'Too many messages and changes for this case. Try again in 290 seconds.' } }), {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '290' },
        });
      },
    });
    await renderMessages(privateApi);
    const field = (await screen.findByLabelText('Your message', {}, { timeout: 5000 })) as HTMLTextAreaElement;
    const typed = 'Part four of what happened at the meeting.';
    fireEvent.change(field, { target: { value: typed } });
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    const alert = await screen.findByRole('alert', {}, { timeout: 5000 });
    expect(posted.at(-1)).toBe('http://portal.test/api/private/case/messages/new');
    // 290 seconds: five minutes, rounded up.
    expect(alert.textContent).toBe('Too many messages have been sent in a short time. Your message is kept here: please try again in 5 minutes.');
    expect(field.value).toBe(typed);
    expect(field.getAttribute('aria-describedby')).toContain(alert.id);
    // Still the reporter's to send again, once the wait is over.
    expect((screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('names each chosen file it did not add, with why (issue 42)', async () => {
    const privateApi = createApiClient({ baseUrl: 'http://portal.test', companyHost: 'portal.test', getAccessToken: () => 'token', fetch: () => new Promise(() => {}) });
    await renderMessages(privateApi);
    await screen.findByLabelText('Your message', {}, { timeout: 5000 });
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    const files = [new File(['MZ'], 'virus.exe', { type: 'application/x-msdownload' }), new File(['%PDF-1.4'], 'a.pdf', { type: 'application/pdf' })];
    fireEvent.change(input, { target: { files } });
    const list = await screen.findByRole('list', { name: 'Files not added' });
    expect(list.textContent).toBe('virus.exe: not added, because files of this type are not allowed.');
  });
});
