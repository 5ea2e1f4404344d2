/**
 * Statechart diagrams from XState v5 machines, for auditors: Mermaid stateDiagram-v2
 * (rendered by the code host) and Graphviz DOT (rendered to SVG with WASM, no browser).
 *
 * No npm package draws XState v5 machines, so this walks `machine.root` (`states`,
 * `initial`, `transitions`, `always`, `invoke`). Transitions are taken from the same
 * catalogue the coverage table counts (test/model/harness.ts), so every guarded branch
 * the table counts is one edge here. Output depends only on the machine definition, in
 * definition order, so committed files can be diffed against the code.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { allStateNodes, transitionCatalogue, type TransitionInfo } from '../../test/model/harness.ts';

export interface Edge extends TransitionInfo {
  /** The state the edge is drawn to: the target, or the source itself for a targetless transition. */
  to: string;
  label: string;
  /** Targetless: actions only, the state is not left. */
  internal: boolean;
}

export function formatDelay(delay: number | string, machine: AnyStateMachine): string {
  if (typeof delay === 'string') {
    const impl = (machine.implementations.delays as Record<string, unknown> | undefined)?.[delay];
    return typeof impl === 'number' ? `${delay} (${formatMs(impl)})` : delay;
  }
  return formatMs(delay);
}

function formatMs(ms: number): string {
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

export function eventLabel(t: TransitionInfo, machine: AnyStateMachine): string {
  const e = t.event;
  if (e === 'always') return 'always';
  if (e.startsWith('xstate.after.')) return `after ${formatDelay(t.delay ?? e.split('.')[2]!, machine)}`;
  if (e.startsWith('xstate.done.actor.')) return `done ${e.slice('xstate.done.actor.'.length)}`;
  if (e.startsWith('xstate.error.actor.')) return `error ${e.slice('xstate.error.actor.'.length)}`;
  if (e.startsWith('xstate.snapshot.')) return `snapshot ${e.slice('xstate.snapshot.'.length)}`;
  if (e.startsWith('xstate.done.state.')) return 'onDone';
  return e;
}

export function edgesOf(machine: AnyStateMachine): Edge[] {
  const edges: Edge[] = [];
  for (const t of transitionCatalogue(machine).values()) {
    const label = eventLabel(t, machine) + (t.guard ? ` [${t.guard}]` : '');
    if (t.targets.length === 0) edges.push({ ...t, to: t.source, label, internal: true });
    else for (const to of t.targets) edges.push({ ...t, to, label, internal: false });
  }
  return edges;
}

export function invokesOf(node: AnyStateNode): string[] {
  return (node.invoke as Array<{ src: string; id: string }>).map((inv) =>
    inv.src.startsWith('xstate.invoke.') ? `invoke ${inv.id}` : `invoke ${inv.src}`,
  );
}

const isContainer = (n: AnyStateNode) => n.type === 'compound' || n.type === 'parallel';

function isAncestor(a: AnyStateNode, b: AnyStateNode): boolean {
  for (let p = b.parent; p; p = p.parent) if (p === a) return true;
  return false;
}

/** The block an edge is written in: the deepest common proper ancestor that is not a parallel node. */
function edgeScope(from: AnyStateNode, to: AnyStateNode): AnyStateNode {
  let scope: AnyStateNode | undefined = from.parent;
  // A transition from a state into itself or its own descendants is written outside it.
  while (scope && !isAncestor(scope, to)) scope = scope.parent;
  scope = scope ?? from.machine.root;
  while (scope!.type === 'parallel' && scope!.parent) scope = scope!.parent;
  return scope!;
}

// ---------------------------------------------------------------------------------
// Mermaid
// ---------------------------------------------------------------------------------

const MERMAID_RESERVED = new Set(['state', 'note', 'end', 'direction', 'class', 'classDef', 'style', 'as', 'left', 'right', 'of', 'root']);

function mermaidIds(machine: AnyStateMachine, wrapRoot: boolean): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const node of allStateNodes(machine)) {
    if (node === machine.root && !wrapRoot) continue;
    let id = (node === machine.root ? [machine.id] : node.path).join('_').replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z]/.test(id) || MERMAID_RESERVED.has(id)) id = `s_${id}`;
    while (used.has(id)) id = `${id}_`;
    used.add(id);
    ids.set(node.id, id);
  }
  return ids;
}

const mermaidText = (s: string) => s.replace(/[;:"\n]/g, ' ').replace(/\s+/g, ' ').trim();

export function toMermaid(machine: AnyStateMachine): string {
  const root = machine.root;
  const edges = edgesOf(machine);
  const rootHasEdges = edges.some((e) => e.source === root.id);
  const wrapRoot = root.type === 'parallel' || rootHasEdges || invokesOf(root).length > 0;
  const ids = mermaidIds(machine, wrapRoot);
  const node = (id: string) => machine.getStateNodeById(`#${id}`) as AnyStateNode;
  const scoped = new Map<string, Edge[]>();
  for (const e of edges) {
    const from = node(e.source);
    const scope = from === root ? root : edgeScope(from, node(e.to));
    // '' is the top level: edges from the (wrapped) root itself, or between top-level states when unwrapped.
    const key = from === root || (scope === root && !wrapRoot) ? '' : scope.id;
    if (!scoped.has(key)) scoped.set(key, []);
    scoped.get(key)!.push(e);
  }
  const lines: string[] = ['stateDiagram-v2'];
  const edgeLine = (indent: string, e: Edge) =>
    `${indent}${ids.get(e.source)} --> ${ids.get(e.to)} : ${mermaidText(e.label)}${e.internal ? ' (stays)' : ''}`;

  const emitState = (n: AnyStateNode, indent: string) => {
    const id = ids.get(n.id)!;
    const label = n === root ? machine.id : n.type === 'history' ? `history (${n.history || 'shallow'})` : n.key;
    // Always the `state "label" as id` form: a bare `state id` line before a block does not parse.
    if (label !== id || !isContainer(n)) lines.push(`${indent}state "${mermaidText(label)}" as ${id}`);
    if (isContainer(n)) {
      lines.push(`${indent}state ${id} {`);
      emitChildren(n, `${indent}  `);
      lines.push(`${indent}}`);
    }
    for (const inv of invokesOf(n)) lines.push(`${indent}${id} : ${mermaidText(inv)}`);
  };
  const emitChildren = (n: AnyStateNode, indent: string) => {
    const children = Object.values(n.states) as AnyStateNode[];
    if (n.type === 'parallel') {
      children.forEach((c, i) => {
        if (i > 0) lines.push(`${indent}--`);
        emitState(c, indent);
      });
      return;
    }
    const initial = n.initial?.target?.[0] as AnyStateNode | undefined;
    if (initial) lines.push(`${indent}[*] --> ${ids.get(initial.id)}`);
    for (const c of children) emitState(c, indent);
    for (const c of children) if (c.type === 'final') lines.push(`${indent}${ids.get(c.id)} --> [*]`);
    for (const e of scoped.get(n === root && !wrapRoot ? '' : n.id) ?? []) lines.push(edgeLine(indent, e));
  };

  if (wrapRoot) {
    emitState(root, '  ');
    lines.push(`  [*] --> ${ids.get(root.id)}`);
    for (const e of scoped.get('') ?? []) lines.push(edgeLine('  ', e));
  } else {
    emitChildren(root, '  ');
  }
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------
// Graphviz DOT
// ---------------------------------------------------------------------------------

const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

export function toDot(machine: AnyStateMachine): string {
  const root = machine.root;
  const edges = edgesOf(machine);
  const node = (id: string) => machine.getStateNodeById(`#${id}`) as AnyStateNode;
  const wrapRoot = edges.some((e) => e.source === root.id) || invokesOf(root).length > 0 || root.type === 'parallel';
  const anchor = (n: AnyStateNode) => `${n.id}#anchor`;
  // A container's transition into itself or its own states is drawn from an "any state"
  // mark inside it: it applies whatever state inside is active.
  const anyMark = (n: AnyStateNode) => `${n.id}#any`;
  const isBox = (n: AnyStateNode) => isContainer(n) || (n === root && wrapRoot);
  const withAnyMark = new Set(
    edges.filter((e) => isBox(node(e.source)) && (e.source === e.to || isAncestor(node(e.source), node(e.to)))).map((e) => e.source),
  );
  const lines: string[] = [
    `digraph ${q(machine.id)} {`,
    '  graph [compound=true, fontname="Helvetica", fontsize=12, nodesep=0.4, ranksep=0.45, labeljust=l];',
    '  node [shape=box, style=rounded, fontname="Helvetica", fontsize=11, height=0.35];',
    '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
  ];
  const emit = (n: AnyStateNode, indent: string) => {
    const invokes = invokesOf(n);
    const label = [n === root ? machine.id : n.key, ...invokes].join('\n');
    if (isContainer(n) || n === root) {
      lines.push(`${indent}subgraph ${q(`cluster_${n.id}`)} {`);
      const style = n.type === 'parallel' ? 'rounded,dashed' : 'rounded';
      lines.push(`${indent}  label=${q(n.type === 'parallel' ? `${label}\n(parallel)` : label)}; style=${q(style)};`);
      const initial = n.initial?.target?.[0] as AnyStateNode | undefined;
      if (n.type !== 'parallel' && initial) {
        lines.push(`${indent}  ${q(anchor(n))} [shape=point, width=0.12, label=""];`);
      } else {
        lines.push(`${indent}  ${q(anchor(n))} [shape=point, style=invis, width=0.01, label=""];`);
      }
      if (withAnyMark.has(n.id)) {
        lines.push(`${indent}  ${q(anyMark(n))} [shape=plaintext, label="any state", fontsize=9, fontcolor="#555555"];`);
      }
      for (const c of Object.values(n.states) as AnyStateNode[]) emit(c, `${indent}  `);
      if (n.type !== 'parallel' && initial) {
        const head = isContainer(initial) ? `${q(anchor(initial))} [lhead=${q(`cluster_${initial.id}`)}]` : q(initial.id);
        lines.push(`${indent}  ${q(anchor(n))} -> ${head};`);
      }
      lines.push(`${indent}}`);
    } else if (n.type === 'history') {
      lines.push(`${indent}${q(n.id)} [shape=circle, label=${q(n.history === 'deep' ? 'H*' : 'H')}];`);
    } else if (n.type === 'final') {
      lines.push(`${indent}${q(n.id)} [label=${q(label)}, peripheries=2];`);
    } else {
      lines.push(`${indent}${q(n.id)} [label=${q(label)}];`);
    }
  };
  if (wrapRoot) {
    lines.push(`  ${q('#start')} [shape=point, width=0.12, label=""];`);
    emit(root, '  ');
    lines.push(`  ${q('#start')} -> ${q(anchor(root))} [lhead=${q(`cluster_${root.id}`)}];`);
  } else {
    const initial = root.initial?.target?.[0] as AnyStateNode | undefined;
    lines.push(`  ${q(anchor(root))} [shape=point, width=0.12, label=""];`);
    for (const c of Object.values(root.states) as AnyStateNode[]) emit(c, '  ');
    if (initial) {
      const head = isContainer(initial) ? `${q(anchor(initial))} [lhead=${q(`cluster_${initial.id}`)}]` : q(initial.id);
      lines.push(`  ${q(anchor(root))} -> ${head};`);
    }
  }
  // Parallel arrows between the same two boxes are drawn once, with one label line each.
  const grouped = new Map<string, { tail: string; head: string; attrs: string[]; labels: string[] }>();
  for (const e of edges) {
    const from = node(e.source);
    const to = node(e.to);
    const attrs: string[] = [];
    if (e.event === 'always') attrs.push('style=dashed');
    let tail = from.id;
    let head = to.id;
    if (isBox(from)) {
      if (withAnyMark.has(from.id) && (from === to || isAncestor(from, to))) tail = anyMark(from);
      else {
        tail = anchor(from);
        attrs.push(`ltail=${q(`cluster_${from.id}`)}`);
      }
    }
    if (isBox(to)) {
      head = anchor(to);
      if (from !== to && !isAncestor(to, from)) attrs.push(`lhead=${q(`cluster_${to.id}`)}`);
    }
    const key = JSON.stringify([tail, head, attrs]);
    const label = e.label + (e.internal ? ' (stays)' : '');
    const g = grouped.get(key);
    if (g) g.labels.push(label);
    else grouped.set(key, { tail, head, attrs, labels: [label] });
  }
  for (const { tail, head, attrs, labels } of grouped.values()) {
    lines.push(`  ${q(tail)} -> ${q(head)} [${[`label=${q(labels.join('\n'))}`, ...attrs].join(', ')}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------

const GENERATED = 'Generated by `npm run diagrams` from `machines/index.ts`; do not edit by hand.';
const mdCell = (s: string) => s.replace(/\|/g, '\\|');

export function machinePage(name: string, summary: string, machine: AnyStateMachine): string {
  const states = allStateNodes(machine).filter((n) => n !== machine.root);
  const out = [
    `# ${name}`,
    '',
    summary,
    '',
    `<!-- ${GENERATED} -->`,
    `${GENERATED} How to read it: [docs/testing.md](../testing.md#reading-the-diagrams).`,
    `Rendered with Graphviz: [${name}.svg](${name}.svg).`,
    '',
    '```mermaid',
    toMermaid(machine).trimEnd(),
    '```',
    '',
    `## States (${states.length})`,
    '',
    '| state | kind | invokes |',
    '|---|---|---|',
    ...states.map(
      (n) => `| \`${n.path.join('.')}\` | ${n.type}${n.type === 'history' ? ` (${n.history || 'shallow'})` : ''} | ${mdCell(invokesOf(n).map((i) => i.replace(/^invoke /, '')).join(', '))} |`,
    ),
    '',
    `## Transitions (${[...transitionCatalogue(machine).values()].length}, each guarded branch counted separately)`,
    '',
    '| from | event | guard | to |',
    '|---|---|---|---|',
    ...[...transitionCatalogue(machine).values()].map((t) => {
      const from = machine.getStateNodeById(`#${t.source}`) as AnyStateNode;
      const path = (id: string) => {
        const n = machine.getStateNodeById(`#${id}`) as AnyStateNode;
        return n === machine.root ? `(${machine.id})` : n.path.join('.');
      };
      const to = t.targets.length ? t.targets.map((id) => `\`${path(id)}\``).join(', ') : '(stays)';
      const fromLabel = from === machine.root ? `any state of ${machine.id}` : `\`${path(t.source)}\``;
      return `| ${fromLabel} | ${mdCell(eventLabel(t, machine))} | ${mdCell(t.guard ?? '')} | ${to} |`;
    }),
    '',
  ];
  return out.join('\n');
}

export function indexPage(entries: Array<{ name: string; summary: string }>): string {
  return [
    '# Statecharts',
    '',
    `${GENERATED} How to read them: [docs/testing.md](../testing.md#reading-the-diagrams).`,
    '',
    ...entries.map((e) => `- **[${e.name}](${e.name}.md)** ([SVG](${e.name}.svg)): ${e.summary}`),
    '',
  ].join('\n');
}

let graphviz: Promise<{ dot: (src: string, format?: 'svg') => string }> | undefined;

export async function renderSvg(dot: string): Promise<string> {
  if (!graphviz) graphviz = import('@hpcc-js/wasm-graphviz').then((m) => m.Graphviz.load()) as any;
  return (await graphviz!).dot(dot, 'svg');
}

/** Every file of docs/statecharts/, by file name, in memory. */
export async function generateStatecharts(
  registry: Record<string, { machine: AnyStateMachine; summary: string }>,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const names = Object.keys(registry).sort();
  for (const name of names) {
    const { machine, summary } = registry[name]!;
    files.set(`${name}.md`, machinePage(name, summary, machine));
    files.set(`${name}.svg`, await renderSvg(toDot(machine)));
  }
  files.set('README.md', indexPage(names.map((name) => ({ name, summary: registry[name]!.summary }))));
  return files;
}
