/** What private pages share: the session actor and the private services, from the layout. */
import { createContext, use } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import type { sessionMachine, PrivateCase } from '../../machines/session.ts';
import type { PrivateServices } from './services.ts';

export type SessionActor = ActorRefFrom<typeof sessionMachine>;

export interface PrivateArea {
  session: SessionActor;
  services: PrivateServices;
}

export const PrivateContext = createContext<PrivateArea | null>(null);

export function usePrivateArea(): PrivateArea {
  const area = use(PrivateContext);
  if (!area) throw new Error('private pages render inside the private layout');
  return area;
}

/** The case as last read; the layout renders pages only once there is one. */
export function useCase(): PrivateCase {
  const { session } = usePrivateArea();
  const data = useSelector(session, (s) => s.context.caseData);
  if (!data) throw new Error('no case loaded');
  return data;
}

/** True while the session is active (calls may be made); false while expired or resuming. */
export function useSessionActive(): boolean {
  const { session } = usePrivateArea();
  return useSelector(session, (s) => s.matches('active'));
}
