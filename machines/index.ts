/**
 * Every machine of the product, for the diagram generator and the model-coverage
 * table. A new machine is added here with one line saying what it models.
 */
import type { AnyStateMachine } from 'xstate';
import { lookAndFeelMachine } from './lookAndFeel.ts';
import { sessionMachine } from './session.ts';

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
  session: { machine: sessionMachine, summary: 'The reporter\'s private-area session: sign-in, token verification, 60 s refresh with 70 s validity, expiry that keeps drafts, log-out and 401/403 exits.' },
};
