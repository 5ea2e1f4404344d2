/** Model of the statistics page: every load answer (counted, no key with or without the right to publish, not a holder, refused, unreachable), publishing through its confirmation. */
import type { EventObject } from 'xstate';
import { statisticsMachine, type StatisticsCounts } from '../../machines/handler/statistics.ts';
import type { MachineModel } from './harness.ts';

const counts: StatisticsCounts = { violation: { FRAUD: 2, none: 1 }, channel: { ONLINE_FORM: 2, PHONE: 1 }, unopened: 0, total: 3 };

export const statisticsEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'counted', counts } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'none', canPublish: true } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'none', canPublish: false } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'notHolder' } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'refused', reason: 'statistics-key' } },
  { type: 'xstate.error.actor.loadStatistics', error: 'network' },
  { type: 'retry' },
  { type: 'key.publish' },
  { type: 'publish.cancel' },
  { type: 'publish.confirm' },
  { type: 'xstate.done.actor.publishKey', output: { status: 201 } },
  { type: 'xstate.done.actor.publishKey', output: { status: 409 } },
  { type: 'xstate.error.actor.publishKey', error: 'network' },
];

export default {
  name: 'handlerStatistics',
  machine: statisticsMachine,
  events: statisticsEvents,
} satisfies MachineModel;
