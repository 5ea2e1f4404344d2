/**
 * Model-test harness: the `MachineModel` contract (docs/architecture.md, "Model tests
 * and coverage"), the paths every model test walks, and the coverage the table prints.
 *
 * Why not plain `createTestModel`: @xstate/graph 3 refuses machines that `invoke` or
 * use `after` ("Invocations on test machines are not supported"), and most of our
 * machines do both. The traversal here is the same @xstate/graph algorithm
 * (`getAdjacencyMap` over `machine.transition`, which never starts invoked actors nor
 * runs actions), with two additions:
 *
 * - delayed (`xstate.after.*`) and actor (`xstate.done.actor.*`, `xstate.error.actor.*`)
 *   events are sent like user events, so timers and invoked actors are walked too;
 *   `xstate.done.state.*` is never sent by hand: XState raises it when a final state
 *   is reached, so only real completions count;
 * - a path ends on every edge of the state graph (the shortest path to a snapshot, then
 *   one event), so the paths take every reachable transition, not just reach every state.
 *
 * Which transition candidate a step took is read from XState's own inspection events
 * (`@xstate.microstep` carries `_transitions`), never guessed from state values.
 */
import type {
  AnyMachineSnapshot,
  AnyStateMachine,
  AnyStateNode,
  EventObject,
  TransitionDefinition,
} from 'xstate';
import { createEmptyActor } from 'xstate';
import { TestModel, getAdjacencyMap, type StatePath } from 'xstate/graph';

export interface MachineModel {
  name: string; // the key in machines/index.ts
  machine: AnyStateMachine; // the machine, .provide()d with test actors where needed
  /** Sample events to traverse with: every event type, with payloads that take every guarded branch. */
  events: EventObject[] | ((snapshot: AnyMachineSnapshot) => EventObject[]);
  /** Optional: how to collapse context so the state space stays finite. */
  serializeState?: (snapshot: AnyMachineSnapshot) => string;
  /** Optional: the machine's input, when it needs one to start. */
  input?: unknown;
  /** Optional: which sample events to take in a snapshot (after the harness picks them), when the product of parallel regions is too large to walk whole. */
  filter?: (event: EventObject, snapshot: AnyMachineSnapshot) => boolean;
}

export type ModelPath = StatePath<AnyMachineSnapshot, EventObject>;

type AnyTransition = TransitionDefinition<any, any>;

/** Safety net against an unbounded state space (collapse context with serializeState). */
const TRAVERSAL_LIMIT = 200_000;

// ---------------------------------------------------------------------------------
// The machine definition: every state node and every transition candidate.
// ---------------------------------------------------------------------------------

export interface TransitionInfo {
  /** Stable id: `#source.id event[index]`, `#source.id always[index]`. */
  id: string;
  source: string;
  /** The event descriptor; `always` for eventless transitions. */
  event: string;
  /** Position among the candidates of this event on this state node (guard order). */
  index: number;
  guard?: string;
  targets: string[];
  /** For `after` transitions: the delay (number in ms, or a named delay). */
  delay?: number | string;
}

export function allStateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const walk = (node: AnyStateNode) => {
    out.push(node);
    for (const child of Object.values(node.states) as AnyStateNode[]) walk(child);
  };
  walk(machine.root);
  return out;
}

export function guardName(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    // Built-in higher-order guards (and/or/not) carry `guards` and a `check`.
    const g = guard as unknown as { name?: string; guards?: unknown[] };
    if (Array.isArray(g.guards)) {
      const kind = g.name && g.name !== 'guard' ? g.name : 'guard';
      return `${kind}(${g.guards.map((x) => guardName(x) ?? '?').join(', ')})`;
    }
    // An inline arrow gets its name from the `guard:` key it was written under.
    return g.name && g.name !== 'guard' ? g.name : 'inline';
  }
  if (typeof guard === 'object') {
    const g = guard as { type?: string };
    return g.type ?? 'inline';
  }
  return String(guard);
}

function isInert(t: AnyTransition): boolean {
  return !t.target && !t.actions.length && !t.reenter;
}

/** Every transition candidate of the definition, keyed by object identity. */
export function transitionCatalogue(machine: AnyStateMachine): Map<AnyTransition, TransitionInfo> {
  const map = new Map<AnyTransition, TransitionInfo>();
  for (const node of allStateNodes(machine)) {
    for (const [descriptor, list] of node.transitions as Map<string, AnyTransition[]>) {
      list.forEach((t, index) => {
        if (isInert(t)) return; // a forbidden transition does nothing: nothing to take
        map.set(t, describe(node, t, descriptor, index));
      });
    }
    (node.always ?? []).forEach((t: AnyTransition, index: number) => {
      map.set(t, describe(node, t, 'always', index));
    });
  }
  return map;
}

function describe(node: AnyStateNode, t: AnyTransition, event: string, index: number): TransitionInfo {
  const info: TransitionInfo = {
    id: `#${node.id} ${event}[${index}]`,
    source: node.id,
    event,
    index,
    targets: (t.target ?? []).map((n: AnyStateNode) => n.id),
  };
  const g = guardName(t.guard);
  if (g) info.guard = g;
  const delay = (t as { delay?: number | string }).delay;
  if (delay !== undefined) info.delay = delay;
  return info;
}

// ---------------------------------------------------------------------------------
// Stepping with inspection: which transitions a macrostep took, which states it entered.
// ---------------------------------------------------------------------------------

interface StepTrace {
  snapshot: AnyMachineSnapshot;
  transitions: AnyTransition[];
  /** Ids of every state node active in any microstep (transient states included). */
  states: Set<string>;
}

/** An actor scope for pure `machine.transition` calls, whose `trace` records every microstep. */
export function createTracingScope() {
  const self = createEmptyActor();
  let sink: { transitions: AnyTransition[]; snapshots: AnyMachineSnapshot[] } | undefined;
  self.system.inspect((ev: any) => {
    if (sink && ev.type === '@xstate.microstep' && ev.actorRef === self) {
      sink.transitions.push(...(ev._transitions ?? []));
      sink.snapshots.push(ev.snapshot);
    }
  });
  const scope = {
    self,
    logger: () => {},
    id: '',
    sessionId: 'model',
    defer: () => {},
    system: self.system,
    stopChild: () => {},
    emit: () => {},
    actionExecutor: () => {},
  };
  const trace = (run: () => AnyMachineSnapshot): StepTrace => {
    sink = { transitions: [], snapshots: [] };
    try {
      const snapshot = run();
      const states = new Set<string>();
      for (const s of [...sink.snapshots, snapshot]) for (const n of s._nodes) states.add(n.id);
      for (const t of sink.transitions) {
        states.add(t.source.id);
        // History pseudo-states never sit in a configuration: reaching one means targeting it.
        for (const target of t.target ?? []) if (target.type === 'history') states.add(target.id);
      }
      return { snapshot, transitions: sink.transitions, states };
    } finally {
      sink = undefined;
    }
  };
  return { scope: scope as any, trace };
}

export function initialTrace(model: MachineModel): StepTrace {
  const { scope, trace } = createTracingScope();
  return trace(() => model.machine.getInitialSnapshot(scope, model.input));
}

export function traceStep(model: MachineModel, from: AnyMachineSnapshot, event: EventObject): StepTrace {
  const { scope, trace } = createTracingScope();
  return trace(() => model.machine.transition(from, event, scope));
}

// ---------------------------------------------------------------------------------
// Traversal.
// ---------------------------------------------------------------------------------

function matchesDescriptor(type: string, descriptor: string): boolean {
  if (descriptor === type || descriptor === '*') return true;
  if (descriptor.endsWith('.*')) return type.startsWith(descriptor.slice(0, -1));
  return false;
}

/**
 * The events to try in a snapshot: every event the active states handle, with the
 * model's sample payloads where it has some (`{ type }` alone otherwise), like
 * `createTestModel` does. `xstate.done.state.*` is left to XState.
 */
export function eventsFor(model: MachineModel, snapshot: AnyMachineSnapshot): EventObject[] {
  const samples = typeof model.events === 'function' ? model.events(snapshot) : model.events;
  const descriptors = new Set<string>();
  for (const node of snapshot._nodes as AnyStateNode[]) for (const d of node.ownEvents) descriptors.add(d);
  const out: EventObject[] = [];
  const seen = new Set<string>();
  const push = (e: EventObject) => {
    const key = JSON.stringify(e);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(e);
    }
  };
  for (const d of [...descriptors].sort()) {
    if (d.startsWith('xstate.done.state.')) continue;
    const matching = samples.filter((e) => matchesDescriptor(e.type, d));
    if (matching.length) matching.forEach(push);
    else if (!d.includes('*')) push({ type: d });
  }
  return out;
}

function historyKey(snapshot: AnyMachineSnapshot): string {
  const history = (snapshot as { historyValue?: Record<string, Array<{ id: string }>> }).historyValue ?? {};
  const entries = Object.keys(history)
    .sort()
    .map((k) => `${k}=${history[k]!.map((n) => n.id).join('+')}`);
  return entries.length ? ` history ${entries.join(' ')}` : '';
}

export function defaultSerialize(snapshot: AnyMachineSnapshot): string {
  const context = snapshot.context && Object.keys(snapshot.context).length ? snapshot.context : undefined;
  return JSON.stringify({ value: snapshot.value, context, status: snapshot.status });
}

/**
 * The paths a model is walked along: for every edge of the state graph (a snapshot,
 * an event, the next snapshot) the shortest path to that snapshot followed by that
 * event, so every reachable transition is taken, not just every state reached.
 * Paths that are the beginning of a longer path are dropped. Each path's `steps[0]`
 * is the initial snapshot (event `xstate.init`); `steps[i].state` is the snapshot
 * after `steps[i].event`. The graph is @xstate/graph's `getAdjacencyMap`.
 */
export interface PathOptions {
  /** Leaves out events the walk may not send in a snapshot (e.g. what a browser cannot do there). */
  filter?: (event: EventObject, snapshot: AnyMachineSnapshot) => boolean;
}

export function modelPaths(model: MachineModel, options: PathOptions = {}): ModelPath[] {
  const filter = options.filter ?? model.filter;
  // History is part of where the machine is, whatever the model's serializeState keeps.
  // Each snapshot's key is computed once: the adjacency map and the walk below both ask
  // for it, and for the larger machines (a sealed case's context) the JSON is most of
  // the cost of finding the paths.
  const keys = new WeakMap<AnyMachineSnapshot, string>();
  const serialize = (s: AnyMachineSnapshot) => {
    let key = keys.get(s);
    if (key === undefined) {
      key = `${(model.serializeState ?? defaultSerialize)(s)}${historyKey(s)}`;
      keys.set(s, key);
    }
    return key;
  };
  const { scope } = createTracingScope();
  const fromState = model.machine.getInitialSnapshot(scope, model.input);
  const adjacency = getAdjacencyMap(model.machine, {
    fromState,
    input: model.input,
    events: (s: AnyMachineSnapshot) => {
      const events = eventsFor(model, s);
      return filter ? events.filter((e) => filter(e, s)) : events;
    },
    serializeState: (s: AnyMachineSnapshot) => serialize(s),
    serializeEvent: (e: EventObject) => JSON.stringify(e),
    limit: TRAVERSAL_LIMIT,
  } as any) as Record<string, { state: AnyMachineSnapshot; transitions: Record<string, { event: EventObject; state: AnyMachineSnapshot }> }>;

  // Breadth-first: the shortest event sequence to every vertex.
  type Step = ModelPath['steps'][number];
  const start = serialize(fromState);
  const shortest = new Map<string, Step[]>([[start, [{ state: fromState, event: { type: 'xstate.init' } }]]]);
  const queue = [start];
  const edges: Step[][] = [];
  for (let next = 0; next < queue.length; next++) {
    const key = queue[next]!;
    const head = shortest.get(key)!;
    for (const { event, state } of Object.values(adjacency[key]?.transitions ?? {})) {
      const steps = [...head, { state, event }];
      edges.push(steps);
      const next = serialize(state);
      if (!shortest.has(next)) {
        shortest.set(next, steps);
        queue.push(next);
      }
    }
  }
  const paths: ModelPath[] = edges.map((steps) => ({ state: steps.at(-1)!.state, steps, weight: steps.length - 1 }));
  if (!paths.length) paths.push({ state: fromState, steps: shortest.get(start)!, weight: 0 });
  return dropPrefixes(paths);
}

/**
 * An event's JSON, once per event object: paths share their steps' events, and some
 * (a sealed case's keys, as plain objects) are long to write out.
 */
const eventKeys = new WeakMap<EventObject, string>();
function eventKey(event: EventObject): string {
  let key = eventKeys.get(event);
  if (key === undefined) {
    key = JSON.stringify(event);
    eventKeys.set(event, key);
  }
  return key;
}

function dropPrefixes(paths: ModelPath[]): ModelPath[] {
  const keyed = paths
    .map((p) => {
      const seq = p.steps.map((s) => eventKey(s.event));
      return { p, seq, joined: seq.join('\n') };
    })
    .sort((a, b) => b.seq.length - a.seq.length || a.joined.localeCompare(b.joined));
  // Longest first: a path is dropped when it is the beginning of (or equal to) one kept
  // before it. Every beginning of a kept path is in `covered`, so that is one look-up
  // instead of a comparison with every kept path.
  const covered = new Set<string>();
  const kept: typeof keyed = [];
  for (const cand of keyed) {
    if (covered.has(cand.joined)) continue;
    kept.push(cand);
    let prefix = '';
    cand.seq.forEach((e, i) => {
      prefix = i === 0 ? e : `${prefix}\n${e}`;
      covered.add(prefix);
    });
  }
  return kept.map((k) => k.p);
}

/** The events of a path, without the leading `xstate.init`. */
export function pathEvents(path: ModelPath): EventObject[] {
  return path.steps.slice(1).map((s) => s.event);
}

/** A readable one-liner for test names: `a.b → c (payload)`. */
export function describePath(path: ModelPath): string {
  const events = pathEvents(path).map((e) => {
    const { type, ...rest } = e;
    return Object.keys(rest).length ? `${type} ${JSON.stringify(rest)}` : type;
  });
  return `${events.length ? events.join(' → ') : '(initial)'} ⇒ ${JSON.stringify(path.state.value)}`;
}

/**
 * A `TestModel` (the object `createTestModel` returns) over this model, without the
 * invoke/after refusal, for tests that prefer `testModel.getShortestPaths()` and
 * `path.test({ states, events })`.
 */
export function createModelTestModel(model: MachineModel): TestModel<AnyMachineSnapshot, EventObject, unknown> {
  const { scope } = createTracingScope();
  return new TestModel(model.machine as any, {
    fromState: model.machine.getInitialSnapshot(scope, model.input),
    events: (s: AnyMachineSnapshot) => eventsFor(model, s),
    serializeState: (s: AnyMachineSnapshot) => (model.serializeState ?? defaultSerialize)(s),
    serializeEvent: (e: EventObject) => JSON.stringify(e),
    stateMatcher: (s: AnyMachineSnapshot, key: string) =>
      key.startsWith('#') ? s._nodes.includes(model.machine.getStateNodeById(key)) : s.matches(key as any),
    limit: TRAVERSAL_LIMIT,
  } as any);
}

// ---------------------------------------------------------------------------------
// Coverage.
// ---------------------------------------------------------------------------------

const catalogues = new WeakMap<AnyStateMachine, Map<AnyTransition, TransitionInfo>>();
function catalogueOf(machine: AnyStateMachine) {
  let c = catalogues.get(machine);
  if (!c) {
    c = transitionCatalogue(machine);
    catalogues.set(machine, c);
  }
  return c;
}

export interface Coverage {
  name: string;
  states: { reached: number; total: number; missed: string[] };
  transitions: { taken: number; total: number; missed: string[] };
  paths: number;
}

interface PathTrace {
  states: Set<string>;
  transitions: Set<string>;
}

/**
 * Replays each path from the start, event by event, with inspection: what counts is
 * what really happens. A prefix shared by several paths is replayed once.
 */
function replayPaths(model: MachineModel, paths: ModelPath[]): { start: PathTrace; perPath: PathTrace[] } {
  const catalogue = catalogueOf(model.machine);
  const collect = (trace: StepTrace, into: PathTrace) => {
    trace.states.forEach((st) => into.states.add(st));
    for (const t of trace.transitions) {
      const info = catalogue.get(t);
      if (info) into.transitions.add(info.id);
    }
  };
  const first = initialTrace(model);
  const start: PathTrace = { states: new Set(), transitions: new Set() };
  collect(first, start);
  // The replayed prefixes as a tree: one node per event sequence from the start.
  interface Replayed {
    snapshot: AnyMachineSnapshot;
    trace?: StepTrace;
    next: Map<string, Replayed>;
  }
  const root: Replayed = { snapshot: first.snapshot, next: new Map() };
  const perPath = paths.map((path) => {
    const acc: PathTrace = { states: new Set(start.states), transitions: new Set(start.transitions) };
    let at = root;
    for (let i = 1; i < path.steps.length; i++) {
      const step = path.steps[i]!;
      const snapshot = at.snapshot;
      let known = at.next.get(eventKey(step.event));
      if (!known) {
        const trace = traceStep(model, snapshot, step.event);
        if (JSON.stringify(trace.snapshot.value) !== JSON.stringify(step.state.value)) {
          throw new Error(
            `${model.name}: replaying ${describePath(path)} reached ${JSON.stringify(trace.snapshot.value)} at step ${i}, ` +
              `not ${JSON.stringify(step.state.value)}: serializeState merges snapshots that behave differently`,
          );
        }
        known = { snapshot: trace.snapshot, trace, next: new Map() };
        at.next.set(eventKey(step.event), known);
      }
      collect(known.trace!, acc);
      at = known;
    }
    return acc;
  });
  return { start, perPath };
}

/** Replays every path with inspection and counts what was reached and taken. */
export function coverageOf(model: MachineModel, paths: ModelPath[] = modelPaths(model)): Coverage {
  const { start, perPath } = replayPaths(model, paths);
  const reached = new Set(start.states);
  const taken = new Set(start.transitions);
  for (const p of perPath) {
    p.states.forEach((x) => reached.add(x));
    p.transitions.forEach((x) => taken.add(x));
  }
  const allStates = allStateNodes(model.machine).map((n) => n.id);
  const allTransitions = [...catalogueOf(model.machine).values()].map((t) => t.id);
  return {
    name: model.name,
    states: {
      reached: allStates.filter((x) => reached.has(x)).length,
      total: allStates.length,
      missed: allStates.filter((x) => !reached.has(x)),
    },
    transitions: {
      taken: allTransitions.filter((x) => taken.has(x)).length,
      total: allTransitions.length,
      missed: allTransitions.filter((x) => !taken.has(x)),
    },
    paths: paths.length,
  };
}

/**
 * A small subset of `paths` that still reaches every state and takes every transition
 * they reach and take (greedy set cover, deterministic). For expensive walks such as
 * browser journeys, where one path per graph edge would be far too many.
 */
export function coveringPaths(model: MachineModel, paths: ModelPath[] = modelPaths(model)): ModelPath[] {
  const { start, perPath } = replayPaths(model, paths);
  const goals = (p: PathTrace) => [...[...p.states].map((x) => `s ${x}`), ...[...p.transitions].map((x) => `t ${x}`)];
  const covered = new Set(goals(start));
  const remaining = perPath.map((p, i) => ({ i, goals: goals(p) }));
  const chosen: number[] = [];
  for (;;) {
    let best: { i: number; gain: number } | undefined;
    for (const r of remaining) {
      const gain = r.goals.filter((g) => !covered.has(g)).length;
      if (!gain) continue;
      const better =
        !best ||
        gain > best.gain ||
        (gain === best.gain && paths[r.i]!.steps.length < paths[best.i]!.steps.length);
      if (better) best = { i: r.i, gain };
    }
    if (!best) break;
    chosen.push(best.i);
    for (const g of remaining[best.i]!.goals) covered.add(g);
  }
  if (!chosen.length && paths.length) chosen.push(0);
  return chosen.sort((a, b) => a - b).map((i) => paths[i]!);
}

/** `states | transitions | paths` as a plain-text table. */
export function coverageTable(rows: Coverage[]): string {
  const pct = (a: number, b: number) => (b === 0 ? '100' : ((100 * a) / b).toFixed(0));
  const cells = [
    ['machine', 'states', 'transitions', 'paths'],
    ...rows.map((r) => [
      r.name,
      `${r.states.reached}/${r.states.total} (${pct(r.states.reached, r.states.total)} %)`,
      `${r.transitions.taken}/${r.transitions.total} (${pct(r.transitions.taken, r.transitions.total)} %)`,
      String(r.paths),
    ]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(cells[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)].join(
    '\n',
  );
}
