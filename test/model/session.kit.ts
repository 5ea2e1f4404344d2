/**
 * Replays model paths (test/model/harness.ts walks the chart purely, sending
 * `xstate.done.actor.*` and `xstate.after.*` like user events) on a *running* actor:
 * real invokes, real delays on a `SimulatedClock`. Each invoked actor is a
 * controllable promise settled with the path's done/error event, each
 * `xstate.after.*` advances the clock by the named delay, user events are sent as
 * they are; after every step the running actor's state value must equal the path's,
 * and the caller's checks run on the running actor's own snapshot. This proves the pure walk matches what the app runs.
 *
 * Used by session, chat, identityForm and reportReview models.
 */
import {
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  SimulatedClock,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
} from 'xstate';
import { expect } from 'vitest';

type Config = Record<string, unknown>;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  input: unknown;
}

export interface ReplayHarness {
  actor: AnyActorRef;
  clock: SimulatedClock;
  /** Input each invoked actor was started with, by invoke id, in order. */
  inputs: Map<string, unknown[]>;
  /** Names of provided actions in the order they ran. */
  actionLog: string[];
}

/**
 * Provides every actor named in `actorNames` as a controllable promise (or callback,
 * for `callbackActors`), and every action in `recordActions` as a recorder.
 */
export function createReplayHarness(
  machine: AnyStateMachine,
  opts: { promiseActors: string[]; callbackActors?: string[]; callbackEvents?: string[]; recordActions?: string[]; input?: unknown },
) {
  const callbackEvents = new Set(opts.callbackEvents ?? []);
  const pending = new Map<string, Pending>();
  const senders = new Map<string, (e: EventObject) => void>();
  const inputs = new Map<string, unknown[]>();
  const actionLog: string[] = [];
  const note = (id: string, input: unknown) => inputs.set(id, [...(inputs.get(id) ?? []), input]);
  const actors: Record<string, unknown> = {};
  for (const name of opts.promiseActors) {
    actors[name] = fromPromise(({ input, self }) => {
      note(self.id, input);
      return new Promise((resolve, reject) => pending.set(self.id, { resolve, reject, input }));
    });
  }
  for (const name of opts.callbackActors ?? []) {
    actors[name] = fromCallback(({ input, self, sendBack }) => {
      note(self.id, input);
      senders.set(self.id, sendBack as (e: EventObject) => void);
      return () => senders.delete(self.id);
    });
  }
  const actions: Record<string, () => void> = {};
  for (const name of opts.recordActions ?? []) actions[name] = () => void actionLog.push(name);
  const real = machine.provide({ actors, actions } as never);
  const clock = new SimulatedClock();
  const actor = createActor(real, { clock, input: opts.input as never });
  actor.start();

  const delays = ((machine.implementations as unknown as Config).delays ?? {}) as Record<string, number>;

  async function step(event: EventObject) {
    const done = /^xstate\.done\.actor\.(.+)$/.exec(event.type);
    const error = /^xstate\.error\.actor\.(.+)$/.exec(event.type);
    const after = /^xstate\.after\.([^.]+)\./.exec(event.type);
    if (done || error) {
      const id = (done ?? error)![1]!;
      const p = pending.get(id);
      if (!p) throw new Error(`no running actor "${id}" to settle with ${event.type}`);
      pending.delete(id);
      if (done) p.resolve((event as EventObject & { output?: unknown }).output);
      else p.reject((event as EventObject & { error?: unknown }).error ?? new Error('failed'));
    } else if (after) {
      const key = after[1]!;
      const ms = /^\d+$/.test(key) ? Number(key) : delays[key];
      if (typeof ms !== 'number') throw new Error(`unknown delay ${key}`);
      clock.increment(ms);
    } else if (callbackEvents.has(event.type) && senders.size) {
      // events a callback actor reports (upload progress, done) come through its sendBack
      [...senders.values()].at(-1)!(event);
    } else {
      actor.send(event);
    }
    // Let promise settlements reach the actor: a macrotask runs only once every queued
    // microtask (each settlement's chain) has. setImmediate, not setTimeout(0): a timer
    // waits at least 1 ms, which over the ~150,000 steps of the model suites was most of
    // its wall time while the CPU sat idle; nothing here waits on a real timer (delays
    // run on the SimulatedClock).
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await new Promise((r) => setImmediate(r));
  }
  return { actor, clock, inputs, actionLog, step, pending } satisfies ReplayHarness & Record<string, unknown>;
}

/** Strips non-serialisable parts so two contexts can be compared. */
export function plainContext(snapshot: AnyMachineSnapshot) {
  return JSON.parse(JSON.stringify(snapshot.context ?? {}, (_k, v) => (v instanceof Blob ? { blob: (v as File).name ?? 'blob' } : v)));
}

/**
 * Replays a model path on the real machine and checks, step by step, that the real
 * actor is where the model says it is.
 */
export async function replayPath(
  machine: AnyStateMachine,
  path: { steps: { event: EventObject; state: AnyMachineSnapshot }[] },
  opts: Parameters<typeof createReplayHarness>[1],
  each?: (
    h: ReturnType<typeof createReplayHarness>,
    step: { event: EventObject; state: AnyMachineSnapshot },
    before: AnyMachineSnapshot,
  ) => void,
) {
  const h = createReplayHarness(machine, opts);
  for (const s of path.steps) {
    if (s.event.type === 'xstate.init') continue;
    const before = h.actor.getSnapshot() as AnyMachineSnapshot;
    await h.step(s.event);
    const snap = h.actor.getSnapshot() as AnyMachineSnapshot;
    expect(snap.value, `after ${s.event.type}`).toEqual(s.state.value);
    // Context is not compared: a model may collapse it (serializeState), so a path's
    // snapshots can be representatives reached another way. Checks use the real one.
    each?.(h, { event: s.event, state: snap }, before);
  }
  h.actor.stop();
  return h;
}

