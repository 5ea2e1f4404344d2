/**
 * The diagram generator on a fixture machine with every feature an auditor must see:
 * nested, parallel and final states, guards, delays, `always`, invoked actors.
 */
import { describe, expect, it } from 'vitest';
import { fixtureMachine } from '../fixtures/fixtureMachine.ts';
import { edgesOf, generateStatecharts, machinePage, toDot, toMermaid } from '../../scripts/lib/statechart.ts';
import { transitionCatalogue } from '../model/harness.ts';

describe('Mermaid statechart', () => {
  const mermaid = toMermaid(fixtureMachine);
  const lines = mermaid.split('\n').map((l) => l.trim());

  it('is a stateDiagram-v2 with the initial state', () => {
    expect(lines[0]).toBe('stateDiagram-v2');
    expect(lines).toContain('[*] --> editing');
  });

  it('nests compound states and separates parallel regions with --', () => {
    const start = lines.indexOf('state editing {');
    const form = lines.indexOf('state editing_form {');
    const separator = lines.indexOf('--', form);
    const help = lines.indexOf('state editing_help {');
    expect(start).toBeGreaterThan(-1);
    expect(form).toBeGreaterThan(start);
    expect(separator).toBeGreaterThan(form);
    expect(help).toBeGreaterThan(separator);
    expect(lines).toContain('state "describing" as editing_form_describing');
    expect(lines).toContain('[*] --> editing_form_describing');
    expect(lines).toContain('state sent {');
  });

  it('marks final states, at the top level and nested', () => {
    expect(lines).toContain('discarded --> [*]');
    expect(lines).toContain('givingUp --> [*]');
    expect(lines).toContain('sent_done --> [*]');
    expect(lines).not.toContain('confirmingDiscard --> [*]');
  });

  it('names guards, shows every guarded branch, delays, always and onDone', () => {
    expect(lines).toContain('editing_form_describing --> editing_form_reviewing : step.next [isTextValid]');
    expect(lines).toContain('editing_form_describing --> editing_form_invalid : step.next');
    expect(lines).toContain('editing_form_invalid --> editing_form_describing : after 1s');
    expect(lines).toContain('sent_thanking --> sent_done : after 60s');
    expect(lines).toContain('editing_help_shown --> editing_help_hidden : after idleTimeout (60s)');
    expect(lines).toContain('failed --> givingUp : always [hasTooManyAttempts]');
    expect(lines).toContain('sent --> finished : onDone');
    expect(lines).toContain('editing_form_describing --> editing_form_describing : text.change (stays)');
  });

  it('shows history states and the transitions into them', () => {
    expect(lines).toContain('state "history (shallow)" as editing_form_previousStep');
    expect(lines).toContain('confirmingDiscard --> editing_form_previousStep : discard.cancel');
  });

  it('shows invoked actors and their outcomes', () => {
    expect(lines).toContain('sending : invoke submitReport');
    expect(lines).toContain('sending --> sent : done submitReport');
    expect(lines).toContain('sending --> failed : error submitReport');
  });

  it('draws one edge per transition the coverage table counts', () => {
    const edges = mermaid.split('\n').filter((l) => / --> /.test(l) && !l.includes('[*]'));
    expect(edges.length).toBe(edgesOf(fixtureMachine).length);
    expect(edgesOf(fixtureMachine).length).toBe(transitionCatalogue(fixtureMachine).size);
  });

  it('declares states only in the forms Mermaid 11 parses (`state "x" as id`, `state id {`)', () => {
    // A bare `state id` line followed by `state other {` fails to parse in Mermaid 11.
    const declarations = lines.filter((l) => l.startsWith('state '));
    expect(declarations.length).toBeGreaterThan(10);
    for (const l of declarations) expect(l).toMatch(/^state ("[^"]+" as [A-Za-z]\w*|[A-Za-z]\w* \{)$/);
  });

  it('is stable', () => {
    expect(toMermaid(fixtureMachine)).toBe(mermaid);
  });
});

describe('Graphviz statechart', () => {
  const dot = toDot(fixtureMachine);

  it('draws compound and parallel states as clusters, finals with a double border', () => {
    expect(dot).toContain('subgraph "cluster_fixture.editing" {');
    expect(dot).toContain('label="editing\n(parallel)"; style="rounded,dashed";');
    expect(dot).toContain('subgraph "cluster_fixture.editing.form" {');
    expect(dot).toContain('"fixture.discarded" [label="discarded", peripheries=2];');
    expect(dot).toContain('"fixture.sending" [label="sending\ninvoke submitReport"];');
    expect(dot).toContain('[label="always [hasTooManyAttempts]", style=dashed]');
    expect(dot).toContain('"fixture.editing.form.previousStep" [shape=circle, label="H"];');
  });

  it('renders to SVG with every state and label in it, the same twice', async () => {
    const files = await generateStatecharts({ fixture: { machine: fixtureMachine, summary: 'Fixture.' } });
    const svg = files.get('fixture.svg')!;
    expect(svg).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\s*$/);
    for (const text of ['describing', 'step.next [isTextValid]', 'after 60s', 'invoke submitReport', 'editing', '(parallel)']) {
      expect(svg).toContain(text);
    }
    const again = await generateStatecharts({ fixture: { machine: fixtureMachine, summary: 'Fixture.' } });
    expect(again.get('fixture.svg')).toBe(svg);
    expect(files.get('README.md')).toContain('- **[fixture](fixture.md)** ([SVG](fixture.svg)): Fixture.');
  });
});

describe('machine page', () => {
  it('lists every state and transition for auditors', () => {
    const page = machinePage('fixture', 'Fixture.', fixtureMachine);
    expect(page).toContain('```mermaid\nstateDiagram-v2');
    expect(page).toContain('| `editing.form.describing` | step.next | isTextValid | `editing.form.reviewing` |');
    expect(page).toContain('| `sending` | atomic | submitReport |');
    expect(page).toContain('## Transitions (18, each guarded branch counted separately)');
  });
});

describe('guard names', () => {
  it('names built-in, parameterised, combined and inline guards', async () => {
    const { and, not, setup } = await import('xstate');
    const m = setup({ guards: { isA: () => true, isB: () => true, hasC: (_, p: { n: number }) => p.n > 0 } }).createMachine({
      id: 'g',
      initial: 'a',
      states: {
        a: {
          on: {
            go: [
              { guard: and(['isA', not('isB')]), target: 'b' },
              { guard: { type: 'hasC', params: { n: 1 } }, target: 'b' },
              { guard: ({ event }) => event.type === 'go', target: 'b' },
              { target: 'b' },
            ],
          },
        },
        b: {},
      },
    });
    const labels = edgesOf(m).map((e) => e.label);
    expect(labels).toEqual(['go [and(isA, not(isB))]', 'go [hasC]', 'go [inline]', 'go']);
  });
});
