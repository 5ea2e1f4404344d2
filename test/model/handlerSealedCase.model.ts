/**
 * Model of a sealed case in the handler's workspace: locked keys, every load and open
 * answer (a wrap, none, a wrap that does not open), the sealing composer, and a grant
 * with its confirmation, a revocation with its own (keys given at the start take the
 * same `always` as keys that arrive later), and an account whose key was revoked; the
 * status change with its confirmation and the saving of files (every answer). The case
 * opens after a revocation (its keys reach two epochs; a file of the older one is
 * saved with its own key). The opened case's regions are walked one at a time (the
 * others at rest), so every transition of each is taken without their product.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { sealedCaseMachine, type SealedView } from '../../machines/handler/sealedCase.ts';
import type { MachineModel } from './harness.ts';

const keys = { ecdh: {}, ecdsa: {}, ecdhSpki: new Uint8Array(91), ecdsaSpki: new Uint8Array(91) };
const view: SealedView = {
  caseNumber: '1111222233334444', caseId: '00000000-0000-4000-8000-000000000001', status: 'RECEIVED', created: '2026-12-01T10:00:00.000Z', protectionOfficerId: 'o1', subsidiaryId: null, epoch: 1, files: [],
  envelopes: { details: 'AQ==', whistleblower: null }, wrap: { recipientKeyId: 'a'.repeat(64), kind: 'handler', wrap: 'Ag==' }, messages: [], audit: [],
};
const files = [
  { id: 'f1', messageId: null, created: '2026-12-01T10:00:00.000Z', sealedSize: 70_000, name: 'a.pdf', size: 65_000 },
  { id: 'f2', messageId: null, created: '2026-12-01T10:00:00.000Z', sealedSize: 300_000_000, name: 'film.mp4', size: 290_000_000 },
  { id: 'f3', messageId: null, created: '2026-12-01T10:00:00.000Z', sealedSize: 70_000, name: null, size: null },
  // Sealed under the second epoch's key (after a revocation); f5 under a third this browser does not reach.
  { id: 'f4', messageId: null, created: '2026-12-01T11:00:00.000Z', sealedSize: 70_000, name: 'b.pdf', size: 65_000, epoch: 2 },
  { id: 'f5', messageId: null, created: '2026-12-01T11:00:00.000Z', sealedSize: 70_000, name: 'c.pdf', size: 65_000, epoch: 3 },
];
/** Two epochs' keys: the first (a revocation since) and the newest, what new content is sealed under. */
const epochKeys = { epoch: 2, dataKey: new Uint8Array(32).fill(2), byEpoch: new Map([[1, new Uint8Array(32).fill(1)], [2, new Uint8Array(32).fill(2)]]) };
const moved = { ...view, status: 'BEING_INVESTIGATED', audit: [{ at: '2026-12-01T12:00:00.000Z', handlerId: 'h1', handlerName: 'Hanne', action: 'STATUS_CHANGED', detail: { from: 'RECEIVED', to: 'BEING_INVESTIGATED' } }] };
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
  { type: 'xstate.done.actor.openCase', output: { outcome: 'opened', keys: epochKeys, opened: { details: null, whistleblower: 'unopened', messages: [], files, audit: [], senders: {}, keyHolders: {} } } },
  { type: 'xstate.done.actor.openCase', output: { outcome: 'refused' } },
  { type: 'xstate.error.actor.openCase', error: 'crypto' },
  { type: 'reload' },
  { type: 'text.change', value: 'Please tell us more' },
  { type: 'text.change', value: '  ' },
  { type: 'type.change', value: 'FEEDBACK' },
  { type: 'answer.toggle' },
  { type: 'attachments.add', files: [{ name: 'Fragen.pdf', size: 2_000 }] },
  { type: 'attachments.add', files: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.pdf`, size: 1 })) },
  { type: 'attachment.remove', index: 0 },
  { type: 'send' },
  { type: 'xstate.done.actor.sendSealed', output: { status: 201, message: { id: 'm1', time: '2026-12-01T11:00:00.000Z', files: [{ id: 'f9', size: 70_000 }] } } },
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
  // A draft kept on this device, opened before or after the case did (issue 38).
  { type: 'draft.restore', text: 'Kept from before the sign-out.', messageType: 'FEEDBACK', answerWanted: true },
];

/** The status and files regions' events. */
export const sealedWorkEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'status.choose', status: 'BEING_INVESTIGATED' },
  { type: 'status.choose', status: 'RECEIVED' },
  { type: 'status.choose', status: 'PENDING_WHISTLEBLOWER_CONTACT' },
  { type: 'status.cancel' },
  { type: 'status.confirm' },
  { type: 'xstate.done.actor.changeStatus', output: { status: 200, view: moved, audit: moved.audit } },
  { type: 'xstate.done.actor.changeStatus', output: { status: 401 } },
  { type: 'xstate.done.actor.changeStatus', output: { status: 409 } },
  { type: 'xstate.error.actor.changeStatus', error: 'network' },
  { type: 'file.save', fileId: 'f1' },
  { type: 'file.save', fileId: 'f4' },
  // Too large for memory in a browser that cannot write to disk; a name that did not open; an epoch this browser has no key for; no such file.
  { type: 'file.save', fileId: 'f2' },
  { type: 'file.save', fileId: 'f3' },
  { type: 'file.save', fileId: 'f5' },
  { type: 'file.save', fileId: 'nope' },
  { type: 'xstate.done.actor.saveFile', output: { outcome: 'saved', check: { content: 'fits', metadata: [] } } },
  { type: 'xstate.done.actor.saveFile', output: { outcome: 'mismatch' } },
  { type: 'xstate.done.actor.saveFile', output: { outcome: 'unauthorized' } },
  { type: 'xstate.error.actor.saveFile', error: 'network' },
];

type Regions = { matches(v: unknown): boolean; context: { text: string; type: string; answerWanted: boolean; attachments: unknown[]; fileOutcomes: Record<string, unknown>; nextStatus: unknown } };
/** The composer and grants at rest (as the case opened). */
const othersAtRest = (s: Regions) =>
  s.matches({ opened: { composer: { editing: 'idle' } } }) && s.context.text === '' && s.context.type === 'STANDARD' && !s.context.answerWanted && s.context.attachments.length === 0 && s.matches({ opened: { grants: 'loadingCandidates' } });
/** The status and files regions at rest. */
const workAtRest = (s: Regions) => s.matches({ opened: { status: { idle: 'shown' } } }) && s.matches({ opened: { files: 'idle' } }) && Object.keys(s.context.fileOutcomes).length === 0;
const workTypes = new Set(sealedWorkEvents.map((e) => e.type));
/** The composer as the case opened. */
const composerAtRest = (s: Regions) => s.matches({ opened: { composer: { editing: 'idle' } } }) && s.context.text === '' && s.context.type === 'STANDARD' && !s.context.answerWanted && s.context.attachments.length === 0;
const isGrantsEvent = (type: string) => /^(grants?|revoke)\.|actor\.(loadCandidates|grantKey|revokeKey)$/.test(type);
/**
 * Within the opened case: the status and files regions' events only while the composer
 * and grants rest, theirs only while status and files rest; and the composer's and the
 * grants' (revocation included) only while the other rests, so each region's transitions
 * are all taken without the product of the four.
 */
export const sealedCaseFilter = (event: EventObject, snapshot: AnyMachineSnapshot): boolean => {
  const s = snapshot as unknown as Regions & { context: { view: { status: string } | null } };
  // The draft chart hands a kept draft over only when nothing was typed in this sitting, once.
  if (event.type === 'draft.restore') return s.context.text === '' && !(s.context as { restored?: boolean }).restored;
  if (!s.matches('opened') || event.type === 'keys.change' || event.type === 'reload') return true;
  if (workTypes.has(event.type)) return othersAtRest(s);
  if (!(workAtRest(s) && s.context.view?.status === 'RECEIVED')) return false;
  if (isGrantsEvent(event.type)) return composerAtRest(s);
  if (!s.matches({ opened: { grants: 'loadingCandidates' } })) return false;
  // Attachments are walked on a composer with no text, type or answer changed, and those without attachments.
  if (event.type.startsWith('attachment')) return s.context.text === '' && s.context.type === 'STANDARD' && !s.context.answerWanted;
  if (event.type === 'text.change' || event.type === 'type.change' || event.type === 'answer.toggle') return s.context.attachments.length === 0;
  return true;
};

type Snap = {
  value: unknown;
  context: {
    keys: unknown; text: string; type: string; answerWanted: boolean; attachments: unknown[]; dataKey: unknown; opened: { messages: unknown[] } | null; candidates: unknown[]; chosen: unknown; granted: string;
    holders: unknown[]; revoking: unknown; revoked: string; view: { status: string } | null; nextStatus: unknown; saving: unknown; fileOutcomes: Record<string, { outcome: string }>;
    restored: boolean;
  };
};
const serializeState = ((s: Snap) =>
  JSON.stringify([
    s.value, !!s.context.keys, s.context.text.trim() !== '', s.context.type, s.context.answerWanted, s.context.attachments.length > 0, !!s.context.dataKey, Math.min(s.context.opened?.messages.length ?? 0, 1), s.context.candidates.length, !!s.context.chosen, s.context.granted !== '',
    s.context.holders.length, !!s.context.revoking, s.context.revoked !== '',
    s.context.view?.status ?? null, s.context.nextStatus ?? null, s.context.saving ?? null, Object.keys(s.context.fileOutcomes).length > 0, s.context.restored,
  ])) as never;

export default {
  name: 'handlerSealedCase',
  machine: sealedCaseMachine,
  input: { caseNumber: '1111222233334444', handlerId: 'h1', keys: null },
  events: [...sealedCaseEvents, ...sealedWorkEvents],
  // Every walk of this model (test/model/handler.test.ts, coverage.test.ts) takes the regions one at a time.
  filter: sealedCaseFilter,
  serializeState,
} satisfies MachineModel;
