/** What every handler page gets from the layout: the calls and the session actor. */
import { createContext, use } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { handlerSessionMachine } from '../../machines/handler/session.ts';
import type { HandlerApi } from './api.ts';
import type { HandlerKeysApi } from './keys.ts';
import type { SealedCaseEffects } from './sealed.ts';
import type { DraftStore } from './drafts.ts';
import type { Language } from '../i18n/index.ts';
import type { ApiClient } from '../api/client.ts';

export interface HandlerEnv {
  api: HandlerApi & { keys: HandlerKeysApi; sealed: SealedCaseEffects };
  /** The shared API client itself, for the administration's calls (src/handler/adminApi.ts). */
  rawApi: ApiClient;
  session: ActorRefFrom<typeof handlerSessionMachine>;
  /** Drafts sealed on this device (./drafts.ts). */
  drafts: DraftStore;
  language: Language;
  setLanguage: (l: Language) => void;
}

export const HandlerContext = createContext<HandlerEnv | null>(null);

export function useHandler(): HandlerEnv {
  const env = use(HandlerContext);
  if (!env) throw new Error('useHandler outside the handler layout');
  return env;
}
