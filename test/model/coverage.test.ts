/**
 * The coverage table: every machine of machines/index.ts walked through its model
 * (test/model/<name>.model.ts), one row per machine. Below 100 % of states or of
 * transitions (each guarded branch, `always` and `after` counted separately) fails
 * and names what was missed. See docs/testing.md.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { EventObject } from 'xstate';
import { machines } from '../../machines/index.ts';
import { coverageOf, coverageTable, type Coverage, type MachineModel } from './harness.ts';

// A model file may also export `variants`: the same machine started with another
// input (e.g. the session with the case already in hand). A machine's row counts
// what the model and its variants reach and take together.
const modules = import.meta.glob<{ default: MachineModel; variants?: MachineModel[] }>('./*.model.ts', { eager: true });

const models = new Map<string, MachineModel>();
const variants = new Map<string, MachineModel[]>();
for (const [file, mod] of Object.entries(modules)) {
  const model = mod.default;
  if (!model || typeof model !== 'object' || !model.machine) {
    throw new Error(`${file} has no default export satisfying MachineModel`);
  }
  models.set(model.name, model);
  for (const v of mod.variants ?? []) {
    if (v.machine.id !== model.machine.id) throw new Error(`${file}: variant "${v.name}" walks another machine`);
  }
  variants.set(model.name, mod.variants ?? []);
}

/** One row for a machine walked from several starts: missed only if every start missed it. */
function together(name: string, rows: Coverage[]): Coverage {
  const [first, ...rest] = rows;
  const states = first!.states.missed.filter((x) => rest.every((r) => r.states.missed.includes(x)));
  const transitions = first!.transitions.missed.filter((x) => rest.every((r) => r.transitions.missed.includes(x)));
  return {
    name,
    states: { total: first!.states.total, reached: first!.states.total - states.length, missed: states },
    transitions: { total: first!.transitions.total, taken: first!.transitions.total - transitions.length, missed: transitions },
    paths: rows.reduce((n, r) => n + r.paths, 0),
  };
}

const rows: Coverage[] = [];

afterAll(() => {
  if (!rows.length) return;
  rows.sort((a, b) => a.name.localeCompare(b.name));
  console.log(`\nModel coverage (states reached, transitions taken, paths walked)\n${coverageTable(rows)}\n`);
});

describe('model coverage', () => {
  it('every registered machine has a model file', () => {
    const missing = Object.keys(machines).filter((name) => !models.has(name));
    expect(missing, `machines without test/model/<name>.model.ts: ${missing.join(', ')}`).toEqual([]);
  });

  it('every model names a registered machine, and is that machine', () => {
    for (const [name, model] of models) {
      const entry = machines[name];
      expect(entry, `test/model model "${name}" is not a key of machines/index.ts`).toBeDefined();
      // A model may .provide() test actors, which yields a new machine object with the same definition.
      expect(model.machine.id, `model "${name}" walks another machine`).toBe(entry!.machine.id);
      expect(JSON.stringify(model.machine.root.definition), `model "${name}" walks another definition`).toBe(
        JSON.stringify(entry!.machine.root.definition),
      );
    }
  });

  for (const name of Object.keys(machines).sort()) {
    it(`${name}: 100 % of states and transitions`, { timeout: 60_000 }, () => {
      const model = models.get(name);
      if (!model) throw new Error(`no model for machine "${name}": add test/model/${name}.model.ts`);
      const row = together(name, [coverageOf(model), ...(variants.get(name) ?? []).map((v) => coverageOf(v))]);
      rows.push(row);
      const missed = [
        ...row.states.missed.map((s) => `state #${s}`),
        ...row.transitions.missed.map((t) => `transition ${t}`),
      ];
      expect(missed, `${name} misses:\n  ${missed.join('\n  ')}`).toEqual([]);
    });
  }
});

// The harness itself, on a fixture machine with every feature (test/fixtures/).
describe('coverage harness (fixture machine)', async () => {
  const { default: fixtureModel } = await import('../fixtures/fixture.model.ts');
  const { modelPaths, transitionCatalogue, allStateNodes } = await import('./harness.ts');

  it('counts every state node (nested, parallel, final) and every guarded/always/after candidate', () => {
    const states = allStateNodes(fixtureModel.machine).map((n) => n.id);
    expect(states).toContain('fixture.editing.form.describing');
    expect(states).toContain('fixture.editing.help.shown');
    expect(states).toContain('fixture.sent.done');
    expect(states).toContain('fixture.editing.form.previousStep');
    const ids = [...transitionCatalogue(fixtureModel.machine).values()].map((t) => t.id);
    expect(ids).toContain('#fixture.editing.form.describing step.next[0]');
    expect(ids).toContain('#fixture.editing.form.describing step.next[1]');
    expect(ids).toContain('#fixture.failed always[0]');
    expect(ids).toContain('#fixture.editing.help.shown xstate.after.idleTimeout.fixture.editing.help.shown[0]');
    expect(ids).toContain('#fixture.sending xstate.error.actor.submitReport[0]');
    expect(ids).toContain('#fixture.sent xstate.done.state.fixture.sent[0]');
  });

  it('reaches 100 % with payloads for every guarded branch', () => {
    const row = coverageOf(fixtureModel);
    expect(row.states.missed).toEqual([]);
    expect(row.transitions.missed).toEqual([]);
    expect(row.states.reached).toBe(row.states.total);
    expect(row.paths).toBeGreaterThan(1);
  });

  it('counts a history state as reached when a transition targets it, and it restores the step', () => {
    const paths = modelPaths(fixtureModel);
    // Every cancel of a discard asked for from reviewing lands back on reviewing.
    const cancels = paths.flatMap((p) =>
      p.steps
        .map((s, i) => ({ s, i }))
        .filter(({ s, i }) => s.event.type === 'discard.cancel' && p.steps[i - 2]?.state.matches({ editing: { form: 'reviewing' } }))
        .map(({ s }) => s.state),
    );
    expect(cancels.length, 'no path cancels a discard from reviewing').toBeGreaterThan(0);
    for (const after of cancels) expect(after.matches({ editing: { form: 'reviewing' } })).toBe(true);
    const onlyForward = coverageOf(fixtureModel, paths.filter((p) => !p.steps.some((s) => s.event.type === 'discard.cancel')));
    expect(onlyForward.states.missed).toEqual(['fixture.editing.form.previousStep']);
  });

  it('names the branch and the states missed when a payload is missing', () => {
    const row = coverageOf({ ...fixtureModel, events: [{ type: 'text.change', value: 'ab' } as EventObject] });
    expect(row.transitions.missed).toContain('#fixture.editing.form.describing step.next[0]');
    expect(row.transitions.missed).not.toContain('#fixture.editing.form.describing step.next[1]');
    expect(row.states.missed).toContain('fixture.editing.form.reviewing');
    expect(row.states.missed).toContain('fixture.sending');
  });

  it('gives createTestModel-style paths that run with path.test()', async () => {
    const { createModelTestModel } = await import('./harness.ts');
    const testModel = createModelTestModel(fixtureModel);
    const paths = testModel.getShortestPaths();
    expect(paths.length).toBeGreaterThan(5);
    const seen: string[] = [];
    for (const path of paths) {
      await path.test({ states: { '*': (s) => void seen.push(JSON.stringify(s.value)) } });
    }
    expect(seen).toContain('"discarded"');
    expect(seen).toContain('"finished"');
  });

  it('picks a few covering paths (for browser journeys) that still take everything', async () => {
    const { coveringPaths } = await import('./harness.ts');
    const all = modelPaths(fixtureModel);
    const few = coveringPaths(fixtureModel, all);
    expect(few.length).toBeLessThan(all.length / 3);
    const row = coverageOf(fixtureModel, few);
    expect(row.states.missed).toEqual([]);
    expect(row.transitions.missed).toEqual([]);
    // Dropping any one chosen path loses something: none is redundant.
    const necessary = few.map((p) => {
      const rest = coverageOf(fixtureModel, few.filter((q) => q !== p));
      return rest.states.missed.length + rest.transitions.missed.length > 0;
    });
    expect(necessary.filter(Boolean).length).toBeGreaterThan(0);
  });

  it('walks a path that only reaches a final state through onDone raised by XState', () => {
    const paths = modelPaths(fixtureModel);
    const finished = paths.find((p) => p.state.value === 'finished');
    expect(finished, 'no path ends in finished').toBeDefined();
    expect(finished!.steps.some((s) => s.event.type.startsWith('xstate.done.state.'))).toBe(false);
    expect(finished!.state.status).toBe('done');
  });
});
