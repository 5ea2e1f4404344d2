/** Model of the key-log page: every load answer (verified, refused, no anchor), making the anchor, certifying with its confirmation. */
import type { EventObject } from 'xstate';
import { keyLogMachine, type KeyLogView } from '../../machines/handler/keyLog.ts';
import type { MachineModel } from './harness.ts';

const colleague = { id: 'h2', name: 'Otto', email: 'otto@example.org', fingerprint: '0123 4567 89ab cdef 0123 4567 89ab cdef' };
const certified: KeyLogView = { anchorFingerprint: 'aaaa bbbb', headSeq: 1, mine: { fingerprint: 'cccc dddd', certified: true }, pending: [colleague], closed: [] };
const pendingMine: KeyLogView = { ...certified, mine: { fingerprint: 'cccc dddd', certified: false } };
const noAnchor: KeyLogView = { anchorFingerprint: null, headSeq: 0, mine: { fingerprint: 'cccc dddd', certified: false }, pending: [], closed: [] };

export const keyLogEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadKeyLog', output: { status: 'ok', view: certified } },
  { type: 'xstate.done.actor.loadKeyLog', output: { status: 'ok', view: pendingMine } },
  { type: 'xstate.done.actor.loadKeyLog', output: { status: 'ok', view: noAnchor } },
  { type: 'xstate.done.actor.loadKeyLog', output: { status: 'refused', reason: 'fork' } },
  { type: 'xstate.error.actor.loadKeyLog', error: 'network' },
  { type: 'retry' },
  { type: 'anchor.make' },
  { type: 'xstate.done.actor.makeAnchor', output: { status: 201, recoveryKey: 'eyJ2IjoxfQ==' } },
  { type: 'xstate.done.actor.makeAnchor', output: { status: 409 } },
  { type: 'xstate.error.actor.makeAnchor', error: 'network' },
  { type: 'anchor.printed' },
  { type: 'certify', handlerId: 'h2' },
  { type: 'certify', handlerId: 'nobody' },
  { type: 'certify.cancel' },
  { type: 'certify.confirm' },
  { type: 'xstate.done.actor.certifyColleague', output: { status: 201 } },
  { type: 'xstate.done.actor.certifyColleague', output: { status: 409 } },
  { type: 'xstate.error.actor.certifyColleague', error: 'network' },
];

export default {
  name: 'handlerKeyLog',
  machine: keyLogMachine,
  events: keyLogEvents,
} satisfies MachineModel;
