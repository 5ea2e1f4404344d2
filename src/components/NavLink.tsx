import { Link } from '@tanstack/react-router';
import type { ReactNode } from 'react';

/** A link to an in-app path that comes from data (navigation settings). */
export function PathLink({ to, className, children, onClick }: { to: string; className?: string; children: ReactNode; onClick?: () => void }) {
  return (
    <Link to={to as '/'} className={className} onClick={onClick} activeOptions={{ exact: true }} activeProps={{ 'aria-current': 'page' }}>
      {children}
    </Link>
  );
}
