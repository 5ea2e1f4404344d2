/**
 * Every machine of the product, for the diagram generator and the model-coverage
 * table. A new machine is added here with one line saying what it models.
 */
import type { AnyStateMachine } from 'xstate';

export interface MachineEntry {
  machine: AnyStateMachine;
  /** One line for auditors: what this machine models. */
  summary: string;
}

export const machines: Record<string, MachineEntry> = {};
