/**
 * One editor's draft chart (machines/handler/draft.ts) with its effects (./drafts.ts),
 * fed with the handler's opened ECDH key as the session chart holds it. Shared by the
 * editors of server-keyed cases (CasePage) and of sealed ones (SealedCase, SealedRecord).
 */
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { draftMachine } from '../../machines/handler/draft.ts';
import { MESSAGE_TYPES, type MessageType } from '../../machines/schema.ts';
import type { DraftFields, DraftKind } from '../../core/crypto/index.ts';
import type { HandlerEnv } from './context.ts';
import { useHandler } from './context.ts';
import { draftEffects } from './drafts.ts';

export type DraftActor = ActorRefFrom<typeof draftMachine>;

export function useDraft(kind: DraftKind, caseNumber: string, restore: (fields: DraftFields) => void): DraftActor {
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

/**
 * The three actions every editor chart names (`noteDraft`, `flushDraft`, `dropDraft`),
 * wired to its draft chart; a noted change is activity for the session's idle clock.
 */
export function draftActions(draft: DraftActor, session: HandlerEnv['session']) {
  return {
    noteDraft: (_: unknown, value: DraftFields) => {
      draft.send({ type: 'draft.change', value });
      session.send({ type: 'session.activity' });
    },
    flushDraft: () => draft.send({ type: 'draft.flush' }),
    dropDraft: () => draft.send({ type: 'draft.drop' }),
  };
}

/** A message draft's fields as a composer's `draft.restore` takes them (an unknown type falls back to STANDARD). */
export function restoredMessage(f: DraftFields): { type: 'draft.restore'; text: string; messageType: MessageType; answerWanted: boolean } {
  const type = String(f.type);
  return { type: 'draft.restore', text: String(f.text ?? ''), messageType: (MESSAGE_TYPES as readonly string[]).includes(type) ? (type as MessageType) : 'STANDARD', answerWanted: f.answerWanted === true };
}
