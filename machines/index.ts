/**
 * Every machine of the product, for the diagram generator and the model-coverage
 * table. A new machine is added here with one line saying what it models.
 */
import type { AnyStateMachine } from 'xstate';
import { lookAndFeelMachine } from './lookAndFeel.ts';

export interface MachineEntry {
  machine: AnyStateMachine;
  /** One line for auditors: what this machine models. */
  summary: string;
}

export const machines: Record<string, MachineEntry> = {
  lookAndFeel: {
    machine: lookAndFeelMachine,
    summary: 'Loads the company look and feel for the display language and the company info; §8 failures go to the error page or the built-in defaults.',
  },
};
