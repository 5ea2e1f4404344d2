/**
 * One editor's draft chart (machines/handler/draft.ts) with its effects (./drafts.ts),
 * fed with the handler's opened ECDH key as the session chart holds it.
 */
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { draftMachine } from '../../machines/handler/draft.ts';
import type { DraftFields, DraftKind } from '../../core/crypto/index.ts';
import { useHandler } from './context.ts';
import { draftEffects } from './drafts.ts';

export function useDraft(kind: DraftKind, caseNumber: string, restore: (fields: DraftFields) => void) {
  const { session, drafts } = useHandler();
  const handlerId = useSelector(session, (s) => s.context.handler?.id ?? '');
  const keys = useSelector(session, (s) => s.context.keys);
  const actor = useActorRef(draftMachine.provide({ actors: draftEffects(drafts), actions: { restoreDraft: (_, fields) => restore(fields) } }), {
    input: { handlerId, kind, caseNumber },
  });
  useEffect(() => {
    actor.send({ type: 'keys.change', keys: keys ? { privateKey: keys.ecdh.privateKey, publicKey: keys.ecdhSpki } : null });
  }, [actor, keys]);
  return actor;
}
