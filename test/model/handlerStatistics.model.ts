/**
 * Model of the statistics page: every load answer (counted, with or without a colleague to
 * give to and the right to rotate; no key with or without the right to publish; not a
 * holder, with or without colleagues who can give it; refused; unreachable), publishing,
 * giving to a colleague certified later and rotating, each through its confirmation.
 */
import type { EventObject } from 'xstate';
import { statisticsMachine, type StatisticsColleague, type StatisticsCounts } from '../../machines/handler/statistics.ts';
import type { MachineModel } from './harness.ts';

const counts: StatisticsCounts = { violation: { FRAUD: 2, none: 1 }, channel: { ONLINE_FORM: 2, PHONE: 1 }, unopened: 0, total: 3, notHeld: 1 };
export const bente: StatisticsColleague = { handlerId: 'h-bente', name: 'Bente', recipientKeyId: 'b'.repeat(64) };

export const statisticsEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'counted', counts, colleagues: [bente], canRotate: true } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'counted', counts, colleagues: [], canRotate: false } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'none', canPublish: true } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'none', canPublish: false } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'notHolder', holders: ['Anna'], certified: true } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'notHolder', holders: [], certified: true } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'notHolder', holders: ['Anna'], certified: false } },
  { type: 'xstate.done.actor.loadStatistics', output: { status: 'refused', reason: 'statistics-key' } },
  { type: 'xstate.error.actor.loadStatistics', error: 'network' },
  { type: 'retry' },
  { type: 'key.publish' },
  { type: 'publish.cancel' },
  { type: 'publish.confirm' },
  { type: 'xstate.done.actor.publishKey', output: { status: 201 } },
  { type: 'xstate.done.actor.publishKey', output: { status: 409 } },
  { type: 'xstate.error.actor.publishKey', error: 'network' },
  { type: 'key.give', recipientKeyId: bente.recipientKeyId },
  // Not offered by the load: refused by the guard.
  { type: 'key.give', recipientKeyId: 'c'.repeat(64) },
  { type: 'give.cancel' },
  { type: 'give.confirm' },
  { type: 'xstate.done.actor.giveKey', output: { status: 201 } },
  { type: 'xstate.done.actor.giveKey', output: { status: 400 } },
  { type: 'xstate.error.actor.giveKey', error: 'network' },
  { type: 'key.rotate' },
  { type: 'rotate.cancel' },
  { type: 'rotate.confirm' },
  { type: 'xstate.done.actor.rotateKey', output: { status: 201 } },
  { type: 'xstate.done.actor.rotateKey', output: { status: 409 } },
  { type: 'xstate.error.actor.rotateKey', error: 'network' },
];

export default {
  name: 'handlerStatistics',
  machine: statisticsMachine,
  events: statisticsEvents,
} satisfies MachineModel;
