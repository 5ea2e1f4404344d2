/** Assertions over model coverage, for the machines' model tests (the harness stays free of vitest, for scripts/diagrams.ts). */
import { expect } from 'vitest';
import { coverageOf, modelPaths, type MachineModel, type ModelPath } from './harness.ts';

/** Fails, naming them, when the paths leave a state or a transition of the model unwalked. */
export function expectFullCoverage(model: MachineModel, paths: ModelPath[] = modelPaths(model)): void {
  const row = coverageOf(model, paths);
  expect(row.states.missed).toEqual([]);
  expect(row.transitions.missed).toEqual([]);
}
