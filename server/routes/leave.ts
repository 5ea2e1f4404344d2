/**
 * "Leave quickly" (docs/decisions/quick-exit.md): the blank page the SPA replaces
 * itself with, and its script. The page names nothing (no title, no company, no
 * text); the script drops the portal's forward history entries and replaces this
 * page with the company's `quickExitUrl`, or with about:blank when it set none (the
 * address bar then names nothing; docs/decisions/quick-exit.md). Arriving here with
 * Back or Forward shows the blank page and goes nowhere.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { companyByHost } from '../companies/service.ts';

export const LEAVE_PATH = '/leave';

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function leavePage(target: string | undefined): string {
  const to = target ? ` data-to="${escapeAttr(target)}"` : '';
  // An empty <title> makes the tab show the address; any word here would be a clue.
  return `<!doctype html><html${to}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title></title><link rel="icon" href="data:,"><meta name="robots" content="noindex"><script src="/leave.js"></script></head><body></body></html>`;
}

// Kept tiny and dependency-free: it runs before anything else could be shown.
export const LEAVE_SCRIPT = `(function () {
  try { sessionStorage.clear(); } catch (e) {}
  var nav = performance.getEntriesByType('navigation')[0];
  if (nav && nav.type === 'back_forward') return;
  // A push removes every forward entry (the portal pages after this one), then
  // the company's address takes this pushed entry's place; without one, a blank
  // about:blank, so the address bar no longer names the portal either.
  history.pushState(null, '', location.href);
  var to = document.documentElement.getAttribute('data-to');
  location.replace(to || 'about:blank');
})();
`;

/**
 * The embedded provider's session cookies (path /idp/, see server/idp/provider.ts):
 * cleared when /leave loads, so a person who opens the portal after the reporter
 * left is asked for the password again instead of being signed in by the
 * provider's single sign-on.
 */
const PROVIDER_SESSION_COOKIES = ['_session', '_session.sig', '_session.legacy', '_session.legacy.sig'];
const expired = (name: string) => `${name}=; Path=/idp/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; HttpOnly; SameSite=Lax`;

export function registerLeaveRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get(LEAVE_PATH, async (req, reply) => {
    const company = await companyByHost(ctx.db, req.host ?? '').catch(() => null);
    const target = company?.settings.quickExitUrl;
    return reply
      .header('set-cookie', PROVIDER_SESSION_COOKIES.map(expired))
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(leavePage(target));
  });
  app.get('/leave.js', async (_req, reply) =>
    reply.header('cache-control', 'no-cache').type('text/javascript; charset=utf-8').send(LEAVE_SCRIPT),
  );
}
