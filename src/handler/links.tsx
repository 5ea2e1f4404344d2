/**
 * Links and navigation of the handler's route tree. TanStack's type registration
 * belongs to the reporter's router (same TypeScript program), so the handler's paths
 * are typed here instead.
 */
import type { ReactNode } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';

export type HandlerPath = '/handler' | '/handler/enrol' | '/handler/cases' | '/handler/keys' | '/handler/statistics' | '/handler/company';

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
