/** Focus and announcement after client-side route changes (src/components/RouteFocus.tsx). */
import { useEffect, useState } from 'react';
import { describe, expect, it } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import {
  Outlet,
  RouterProvider,
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
} from '@tanstack/react-router';
import { RouteFocusProvider } from '../../src/components/RouteFocus.tsx';
import { PageTitle } from '../../src/components/PageTitle.tsx';

function page(title: string) {
  return function Page() {
    return (
      <>
        <PageTitle title={title} />
        <label>
          Name <input />
        </label>
      </>
    );
  };
}

/** A page whose heading appears only once its data has loaded, like the private pages. */
function SlowPage() {
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setLoaded(true), 150);
    return () => clearTimeout(t);
  }, []);
  return loaded ? <PageTitle title="Slow page" /> : <p>Loading</p>;
}

function renderApp() {
  const root = createRootRoute({
    component: () => (
      <RouteFocusProvider>
        <main tabIndex={-1}>
          <Outlet />
        </main>
      </RouteFocusProvider>
    ),
  });
  const first = createRoute({ getParentRoute: () => root, path: '/first', component: page('First page') });
  const second = createRoute({ getParentRoute: () => root, path: '/second', component: page('Second page') });
  const slow = createRoute({ getParentRoute: () => root, path: '/slow', component: SlowPage });
  const router = createRouter({
    routeTree: root.addChildren([first, second, slow]),
    history: createMemoryHistory({ initialEntries: ['/first'] }),
  });
  render(<RouterProvider router={router as never} />);
  return router;
}

const live = () => document.querySelector('[aria-live="polite"]')!;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RouteFocusProvider', () => {
  it('leaves the first load alone, then focuses the new heading and announces the title', async () => {
    const router = renderApp();
    await screen.findByRole('heading', { name: 'First page' });
    await pause(300);
    expect(document.activeElement).toBe(document.body);
    expect(live().textContent).toBe('');

    await act(() => router.navigate({ to: '/second' as never }));
    const heading = await screen.findByRole('heading', { name: 'Second page' });
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(heading.getAttribute('tabindex')).toBe('-1');
    await waitFor(() => expect(live().textContent).toBe('Second page'));
  });

  it('focuses a heading that appears only after the page has loaded its data', async () => {
    const router = renderApp();
    await screen.findByRole('heading', { name: 'First page' });
    await act(() => router.navigate({ to: '/slow' as never }));
    expect(screen.queryByRole('heading', { name: 'Slow page' })).toBeNull();
    const heading = await screen.findByRole('heading', { name: 'Slow page' });
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(live().textContent).toBe('Slow page');
  });

  it('keeps the focus in a field when only the search changes', async () => {
    const router = renderApp();
    await screen.findByRole('heading', { name: 'First page' });
    const field = screen.getByRole('textbox', { name: 'Name' });
    field.focus();
    await act(() => router.navigate({ to: '/first' as never, search: { step: 2 } as never }));
    await pause(300);
    expect(router.state.location.search).toEqual({ step: 2 });
    expect(document.activeElement).toBe(field);
    expect(live().textContent).toBe('');
  });

  it('keeps the focus inside an open dialog', async () => {
    const router = renderApp();
    await screen.findByRole('heading', { name: 'First page' });
    const dialog = document.createElement('div');
    dialog.setAttribute('role', 'dialog');
    const button = document.createElement('button');
    dialog.append(button);
    document.body.append(dialog);
    button.focus();
    await act(() => router.navigate({ to: '/second' as never }));
    await screen.findByRole('heading', { name: 'Second page' });
    await pause(300);
    expect(document.activeElement).toBe(button);
    dialog.remove();
  });
});
