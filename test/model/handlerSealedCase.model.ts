/**
 * Model of a sealed case in the handler's workspace: locked keys, every load and open
 * answer (a wrap, none, a wrap that does not open), the sealing composer, and a grant
 * with its confirmation, a revocation with its own (keys given at the start take the
 * same `always` as keys that arrive later), and an account whose key was revoked.
 */
import type { EventObject } from 'xstate';
import { sealedCaseMachine, type SealedView } from '../../machines/handler/sealedCase.ts';
import type { MachineModel } from './harness.ts';

const keys = { ecdh: {}, ecdsa: {}, ecdhSpki: new Uint8Array(91), ecdsaSpki: new Uint8Array(91) };
const view: SealedView = {
  caseNumber: '1111222233334444', caseId: '00000000-0000-4000-8000-000000000001', status: 'RECEIVED', created: '2026-12-01T10:00:00.000Z', protectionOfficerId: 'o1', subsidiaryId: null, epoch: 1, files: [],
  envelopes: { details: 'AQ==', whistleblower: null }, wrap: { recipientKeyId: 'a'.repeat(64), kind: 'handler', wrap: 'Ag==' }, messages: [],
};
const colleague = { handlerId: 'h2', name: 'Greta', email: 'greta@example.org', recipientKeyId: 'b'.repeat(64), ecdhSpki: 'BA==' };
const holder = { handlerId: 'h3', name: 'Ida', email: null, recipientKeyId: 'c'.repeat(64), ecdhSpki: 'BA==' };

export const sealedCaseEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'keys.change', keys },
  { type: 'keys.change', keys: null },
  { type: 'xstate.done.actor.loadSealed', output: { status: 200, view } },
  { type: 'xstate.done.actor.loadSealed', output: { status: 200, view: { ...view, wrap: null } } },
  { type: 'xstate.done.actor.loadSealed', output: { status: 404 } },
  { type: 'xstate.done.actor.loadSealed', output: { status: 401 } },
  { type: 'xstate.done.actor.loadSealed', output: { status: 403 } },
  { type: 'xstate.done.actor.loadSealed', output: { status: 500 } },
  { type: 'xstate.error.actor.loadSealed', error: 'network' },
  { type: 'xstate.done.actor.openCase', output: { outcome: 'opened', dataKey: new Uint8Array(32), epoch: 1, opened: { details: null, whistleblower: 'unopened', messages: [], senders: {} } } },
  { type: 'xstate.done.actor.openCase', output: { outcome: 'refused' } },
  { type: 'xstate.error.actor.openCase', error: 'crypto' },
  { type: 'reload' },
  { type: 'text.change', value: 'Please tell us more' },
  { type: 'text.change', value: '  ' },
  { type: 'type.change', value: 'FEEDBACK' },
  { type: 'answer.toggle' },
  { type: 'send' },
  { type: 'xstate.done.actor.sendSealed', output: { status: 201, message: { id: 'm1', time: '2026-12-01T11:00:00.000Z' } } },
  { type: 'xstate.done.actor.sendSealed', output: { status: 401 } },
  { type: 'xstate.done.actor.sendSealed', output: { status: 400 } },
  { type: 'xstate.error.actor.sendSealed', error: 'network' },
  { type: 'xstate.done.actor.loadCandidates', output: { status: 'ok', candidates: [colleague], holders: [holder] } },
  { type: 'xstate.done.actor.loadCandidates', output: { status: 'refused', reason: 'fork' } },
  { type: 'xstate.error.actor.loadCandidates', error: 'network' },
  { type: 'grants.retry' },
  { type: 'grant.choose', handlerId: 'h2' },
  { type: 'grant.choose', handlerId: 'nobody' },
  { type: 'grant.cancel' },
  { type: 'grant.confirm' },
  { type: 'xstate.done.actor.grantKey', output: { status: 201 } },
  { type: 'xstate.done.actor.grantKey', output: { status: 409, code: 'WRAP_EXISTS' } },
  { type: 'xstate.done.actor.grantKey', output: { status: 401 } },
  { type: 'xstate.done.actor.grantKey', output: { status: 400, code: 'WRAP_NOT_ENTITLED' } },
  { type: 'xstate.error.actor.grantKey', error: 'network' },
  { type: 'revoke.choose', handlerId: 'h3' },
  { type: 'revoke.choose', handlerId: 'nobody' },
  { type: 'revoke.cancel' },
  { type: 'revoke.confirm' },
  { type: 'xstate.done.actor.revokeKey', output: { status: 201 } },
  { type: 'xstate.done.actor.revokeKey', output: { status: 401 } },
  { type: 'xstate.done.actor.revokeKey', output: { status: 409, code: 'EPOCH_STALE' } },
  { type: 'xstate.error.actor.revokeKey', error: 'network' },
];

type Snap = { value: unknown; context: { keys: unknown; text: string; type: string; answerWanted: boolean; dataKey: unknown; opened: { messages: unknown[] } | null; candidates: unknown[]; chosen: unknown; granted: string; holders: unknown[]; revoking: unknown; revoked: string } };
const serializeState = ((s: Snap) =>
  JSON.stringify([s.value, !!s.context.keys, s.context.text.trim() !== '', s.context.type, s.context.answerWanted, !!s.context.dataKey, Math.min(s.context.opened?.messages.length ?? 0, 1), s.context.candidates.length, !!s.context.chosen, s.context.granted !== '', s.context.holders.length, !!s.context.revoking, s.context.revoked !== ''])) as never;

export default {
  name: 'handlerSealedCase',
  machine: sealedCaseMachine,
  input: { caseNumber: '1111222233334444', handlerId: 'h1', keys: null },
  events: sealedCaseEvents,
  serializeState,
} satisfies MachineModel;
