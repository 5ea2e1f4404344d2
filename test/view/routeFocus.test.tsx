/** Focus and announcement after client-side route changes (src/components/RouteFocus.tsx). */
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
import { RouteFocus } from '../../src/components/RouteFocus.tsx';

function page(title: string) {
  return function Page() {
    document.title = title;
    return (
      <>
        <h1>{title}</h1>
        <label>
          Name <input />
        </label>
      </>
    );
  };
}

function renderApp() {
  const root = createRootRoute({
    component: () => (
      <>
        <main tabIndex={-1}>
          <Outlet />
        </main>
        <RouteFocus />
      </>
    ),
  });
  const first = createRoute({ getParentRoute: () => root, path: '/first', component: page('First page') });
  const second = createRoute({ getParentRoute: () => root, path: '/second', component: page('Second page') });
  const router = createRouter({
    routeTree: root.addChildren([first, second]),
    history: createMemoryHistory({ initialEntries: ['/first'] }),
  });
  render(<RouterProvider router={router as never} />);
  return router;
}

const live = () => document.querySelector('[aria-live="polite"]')!;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RouteFocus', () => {
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
