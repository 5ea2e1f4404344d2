/**
 * Links and navigation of the handler's route tree. TanStack's type registration
 * belongs to the reporter's router (same TypeScript program), so the handler's paths
 * are typed here instead.
 */
import type { ReactNode } from 'react';
import { Link, useNavigate, useRouter, useRouterState } from '@tanstack/react-router';

export type HandlerPath = '/handler' | '/handler/enrol' | '/handler/cases' | '/handler/cases/new' | '/handler/keys' | '/handler/statistics' | '/handler/company' | '/handler/templates';

export function HLink(props: { to: HandlerPath | { caseNumber: string }; className?: string; children: ReactNode }) {
  const to = typeof props.to === 'string' ? props.to : '/handler/cases/$caseNumber';
  const params = typeof props.to === 'string' ? undefined : { caseNumber: props.to.caseNumber };
  return (
    <Link to={to as never} params={params as never} className={props.className}>
      {props.children}
    </Link>
  );
}

export function useHandlerNavigate() {
  const navigate = useNavigate();
  return (to: HandlerPath) => navigate({ to: to as never, replace: true });
}

/**
 * A link to a path with its own search part (the inbox's filters, issue 38), written as
 * the URLSearchParams string the inbox reads back rather than TanStack's JSON search.
 */
export function PathLink(props: { href: string; className?: string; children: ReactNode }) {
  const router = useRouter();
  return (
    <a
      href={props.href}
      className={props.className}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        router.history.push(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

/** The address's search part, as typed ("status=RECEIVED&sort=officer"), without the "?". */
export function useSearchString(): string {
  return useRouterState({ select: (s) => s.location.searchStr }).replace(/^\?/, '');
}

/** Replaces the current address (no new history entry): the inbox writes its filters back. */
export function useReplacePath() {
  const router = useRouter();
  return (href: string) => router.history.replace(href);
}
