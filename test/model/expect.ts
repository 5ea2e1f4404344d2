/** Assertions over model coverage, for the machines' model tests (the harness stays free of vitest, for scripts/diagrams.ts). */
import { expect } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import { coverageOf, createModelTestModel, modelPaths, type MachineModel, type ModelPath } from './harness.ts';

/** Fails, naming them, when the paths leave a state or a transition of the model unwalked. */
export function expectFullCoverage(model: MachineModel, paths: ModelPath[] = modelPaths(model)): void {
  const row = coverageOf(model, paths);
  expect(row.states.missed).toEqual([]);
  expect(row.transitions.missed).toEqual([]);
}

/**
 * Checks `invariant` at every state of every shortest path that xstate/graph's
 * TestModel finds through the model; returns how many paths were walked.
 */
export async function expectInvariantOnShortestPaths(model: MachineModel, invariant: (s: AnyMachineSnapshot) => void): Promise<number> {
  const paths = createModelTestModel(model).getShortestPaths();
  expect(paths.length, 'no path to check the invariant on').toBeGreaterThan(1);
  for (const p of paths) await p.test({ states: { '*': invariant } });
  return paths.length;
}
