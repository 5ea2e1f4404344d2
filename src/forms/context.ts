/** The report actor of the page, for the step and dialog views (created per page, never a singleton). */
import { createContext, use } from 'react';
import type { ReportActor } from '../../machines/report.ts';

export const ReportContext = createContext<ReportActor | null>(null);

export function useReport(): ReportActor {
  const actor = use(ReportContext);
  if (!actor) throw new Error('ReportContext missing');
  return actor;
}
