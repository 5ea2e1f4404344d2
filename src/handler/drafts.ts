/**
 * The draft charts' effects (machines/handler/draft.ts; docs/decisions/handler-drafts.md):
 * drafts sealed to the handler's own public key (core/crypto/draft.ts) and kept in this
 * browser's IndexedDB, never in localStorage and never sent anywhere.
 *
 * A record is {id: hash of handler, kind and case; handlerId; sealed bytes}. Nothing in it
 * opens without the handler's private key, and nothing in it signs in. Every operation
 * runs in one queue, so a deletion after a seal always lands after it (a Send right
 * after typing, a sign-out right after a keystroke).
 */
import { fromPromise } from 'xstate';
import { draftId, openDraft, sealDraft, type DraftFields } from '../../core/crypto/index.ts';
import type { DraftEffectInput } from '../../machines/handler/draft.ts';

const DB_NAME = 'wb-handler-drafts';
const STORE = 'drafts';

interface DraftRecord {
  id: string;
  handlerId: string;
  sealed: Uint8Array;
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

export function draftStore(idb: IDBFactory) {
  let db: Promise<IDBDatabase> | null = null;
  const open = () =>
    (db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const r = idb.open(DB_NAME, 1);
      r.onupgradeneeded = () => {
        const store = r.result.createObjectStore(STORE, { keyPath: 'id' });
        store.createIndex('handler', 'handlerId');
      };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => {
        db = null;
        reject(r.error ?? new Error('IndexedDB did not open'));
      };
    }));
  let queue: Promise<unknown> = Promise.resolve();
  const inQueue = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };
  const tx = async <T>(mode: IDBTransactionMode, run: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const store = (await open()).transaction(STORE, mode).objectStore(STORE);
    return request(run(store));
  };
  return {
    put: (r: DraftRecord) => inQueue(() => tx('readwrite', (s) => s.put(r)).then(() => undefined)),
    get: (id: string) => inQueue(() => tx('readonly', (s) => s.get(id) as IDBRequest<DraftRecord | undefined>)),
    remove: (id: string) => inQueue(() => tx('readwrite', (s) => s.delete(id)).then(() => undefined)),
    /** Every draft of one handler on this device ("discard drafts on this device"). */
    removeAllOf: (handlerId: string) =>
      inQueue(async () => {
        const keys = await tx('readonly', (s) => s.index('handler').getAllKeys(handlerId));
        for (const k of keys) await tx('readwrite', (s) => s.delete(k));
      }),
  };
}

export type DraftStore = ReturnType<typeof draftStore>;

/** The three named effects the draft chart is provided with. */
export function draftEffects(store: DraftStore) {
  return {
    openDraft: fromPromise<DraftFields | null, DraftEffectInput>(async ({ input }) => {
      if (!input.keys) return null;
      const id = await draftId(input);
      const found = await store.get(id);
      if (!found) return null;
      try {
        return await openDraft(input.keys, input, new Uint8Array(found.sealed));
      } catch {
        // Altered, or sealed to a key this account no longer holds: never shown, not kept.
        await store.remove(id);
        return null;
      }
    }),
    keepDraft: fromPromise<void, DraftEffectInput>(async ({ input }) => {
      if (!input.keys || !input.value) return;
      const id = await draftId(input);
      // Text cleared by hand: nothing to keep, and nothing left behind.
      if (String(input.value.text ?? '').trim() === '') return store.remove(id);
      await store.put({ id, handlerId: input.handlerId, sealed: await sealDraft(input.keys.publicKey, input, input.value) });
    }),
    dropDraft: fromPromise<void, DraftEffectInput>(async ({ input }) => store.remove(await draftId(input))),
  };
}
