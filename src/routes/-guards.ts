/**
 * Route guards shared by the report routes (the forms helper's routes use them too).
 * A guard in the SPA is only convenience: the server checks every request itself.
 */
import { redirect } from '@tanstack/react-router';
import { waitFor } from 'xstate';
import type { LookAndFeel } from '../../machines/lookAndFeel.ts';
import type { RouterContext } from '../app/router.tsx';

export type FrontPageOption = 'showVerbalOption' | 'showBookingOption';

/** Waits until a look and feel (company's or default) is there, or the load failed. */
export async function settledLookAndFeel(context: Pick<RouterContext, 'lookAndFeel'>): Promise<LookAndFeel | null> {
  const snap = await waitFor(
    context.lookAndFeel,
    (s) => s.hasTag('failed') || (s.context.lookAndFeel !== null && !s.matches('loadingLookAndFeel')),
  );
  return snap.hasTag('failed') ? null : snap.context.lookAndFeel;
}

/**
 * `beforeLoad` of /oral-report and /book-meeting (spec §2): entry only when the
 * front-page option is on; otherwise the navigation goes back to where it came
 * from (or / on a first visit). A failed load goes to /something-went-wrong.
 */
export async function requireFrontPageOption(
  option: FrontPageOption,
  args: { context: RouterContext; location: { pathname: string } },
): Promise<void> {
  const lookAndFeel = await settledLookAndFeel(args.context);
  if (!lookAndFeel) throw redirect({ to: '/something-went-wrong', replace: true });
  if (lookAndFeel.siteFrontPage[option]) return;
  const previous = args.context.previousLocation();
  if (previous && previous.pathname !== args.location.pathname) {
    throw redirect({ to: previous.pathname, search: previous.search, hash: previous.hash, replace: true } as never);
  }
  throw redirect({ to: '/', replace: true });
}
