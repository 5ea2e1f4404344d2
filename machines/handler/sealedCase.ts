/**
 * A sealed case in the handler's workspace (issue 37; docs/decisions/blind-server.md
 * "Handler pages and grants"): the server holds only envelopes and wraps, so the page
 * opens the case in the browser with the handler's unlocked keys, seals what she
 * writes, and re-wraps the case's key to a colleague (a grant).
 *
 * Invariants:
 * - Nothing is fetched or opened while the keys are locked (`keysLocked`): the unlock
 *   form above every page opens them, and `keys.change` brings them here; keys that go
 *   return the chart to `keysLocked` and drop the opened case and its data key.
 * - No wrap for this account is `noKey`: a plain message, never an error; a wrap that
 *   does not open with this account's key is `keyRefused`. Neither holds a data key.
 * - `opened` holds the case's data key and the opened parts; a part that could not be
 *   opened is null (the whistleblower: `unopened`) beside the parts that opened.
 * - The composer sends only non-empty text or at least one attachment (at most
 *   LIMITS.maxFiles); on a failure the text and the attachments stay.
 * - A grant is made only from `confirmingGrant`, to a colleague the verified key log
 *   lists (the effect lists only those), and only while the data key is held.
 * - A status is changed only after `confirmingStatus`, only to a settable status other
 *   than the current one; the answer (the sealed view with its audit trail) replaces the
 *   view, so the trail shown includes the change.
 * - `epochKeys` holds every epoch's key this account's wrap reaches (after a revocation
 *   the older content stays under older keys): each file's name and bytes open with the
 *   key of the file's own epoch; what this browser writes is sealed under the newest
 *   (`dataKey`, `epoch`), and sent with that epoch.
 * - A file is saved only when its name opened, one at a time, and only where it can
 *   be written without holding it whole (`canStream`, the File System Access API) or
 *   is at most MEMORY_SAVE_MAX bytes. Each file's outcome (saved with the browser's
 *   content and metadata check, not saved and why) is kept beside the others.
 * - A revocation is made only from `confirmingRevoke`, of a colleague who holds the
 *   current epoch, while the data key is held; once the server took the next epoch the
 *   case is read and opened again (the new key comes with this account's new wrap),
 *   and the name of whom it was revoked from stays in `revoked` until the next choice.
 * - An account whose key was revoked from the case (403) is `revoked`: nothing opened.
 * - The composer's draft kept on this device (machines/handler/draft.ts, as the usual
 *   composer's): every change is noted (`noteDraft`), Send seals it at once (`flushDraft`),
 *   a sent message drops it (`dropDraft`). A kept draft (`draft.restore`) may arrive before
 *   the case opened (the draft opens with the handler's keys, the case after its load): it
 *   is taken in any state and the composer opens in `editing.restored`, which says so.
 *   Attachments are not kept.
 */
import type { SealedCaseAnswer } from '../../core/crypto/case.ts';
import type { OpenedRecordVersion } from '../../core/crypto/record.ts';
import { keyForEpoch, type EpochKeys } from '../../core/crypto/epochs.ts';
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { LIMITS, type CaseStatus, type MessageType } from '../schema.ts';
import type { OpenedKeys } from './session.ts';
import { SETTABLE_STATUSES } from './case.ts';

/** As the usual composer's limit (machines/handler/composer.ts). */
export const SEALED_MESSAGE_MAX = LIMITS.commentMax;

/**
 * The largest file a browser without the File System Access API opens in memory to save
 * (docs/decisions/sealed-workspace.md "Files in the workspace"): larger ones it cannot save.
 */
export const MEMORY_SAVE_MAX = 100_000_000;

/** One entry of the case's audit trail, as the server wrote it in clear (ids and enums, no content). */
export interface SealedAuditEntry {
  at: string;
  handlerId: string | null;
  handlerName: string | null;
  action: string;
  detail: Record<string, string | number | boolean>;
}

/** An entry written while the case was server-keyed (before `retire-master` sealed it): sealed under the data key (base64). */
export interface SealedAuditEnvelope {
  at: string;
  sealed: string;
}
/** An entry as the page shows it: opened, or `unopened` (a sealed one that did not open). */
export type OpenedAuditEntry = SealedAuditEntry | { at: string; unopened: true };

/** What GET /api/handler/cases/:n/sealed answers: the sealed case (one type with the server's and scripted clients'), its audit trail and status history. */
export type SealedView = SealedCaseAnswer & {
  audit: (SealedAuditEntry | SealedAuditEnvelope)[];
  /** The status history (clear data the server has anyway); for the export. */
  caseStatusHistory?: { status: string; dateTime: string }[];
};

export interface OpenedFile {
  id: string;
  messageId: string | null;
  created: string;
  /** The stored (padded, sealed) size. */
  sealedSize: number;
  /** null: the name could not be opened (the file is named by its date and not offered). */
  name: string | null;
  /** The true size from the sealed name; null for a file sealed without one. */
  size: number | null;
  /** The key epoch it was sealed under (absent: the first). */
  epoch?: number;
}

/** The browser's check of a file it opened: does the content fit the name, and what hidden data is in it. */
export interface FileCheckResult {
  /** `fits`; `notAllowed`: a type the portal does not take. */
  content: 'fits' | 'notAllowed';
  /** The kinds of hidden data found ([] none); `notChecked`: a type or size the check does not read; `couldNotCheck`: it hit a limit (inflation, or its worker's time) or its worker failed. */
  metadata: string[] | 'notChecked' | 'couldNotCheck';
}

/**
 * How saving one file ended: `saved` with the check; `mismatch`: the content does not fit
 * the name, so nothing was kept; `unopened`: a part did not open (nothing kept);
 * `cancelled`: the handler closed the save dialog; `failed`: the download broke.
 */
export type FileSaveAnswer =
  | { outcome: 'saved'; check: FileCheckResult }
  | { outcome: 'mismatch' | 'unopened' | 'cancelled' | 'failed' | 'unauthorized' };
export type FileOutcome = Exclude<FileSaveAnswer, { outcome: 'unauthorized' }> | { outcome: 'saving' };

export interface FileSaveInput {
  caseNumber: string;
  caseId: string;
  dataKey: Uint8Array;
  file: OpenedFile & { name: string };
  /** Write to disk as the file is opened (File System Access API), else in memory. */
  toDisk: boolean;
}

export interface StatusAnswer {
  status: number;
  view?: SealedView;
  /** The answer's audit trail, its sealed entries opened. */
  audit?: OpenedAuditEntry[];
}

export interface SealedDetails {
  description?: string | null;
  violation?: string | null;
  whistleblowerRelation?: string;
  reportedPersons?: { name?: string; jobTitle?: string; phoneOrEmail?: string }[];
  reportedUnit?: string | null;
  [k: string]: unknown;
}
export interface SealedIdentity {
  name?: string;
  email?: string;
  phone?: string | null;
  [k: string]: unknown;
}
export interface OpenedMessage {
  id: string;
  type: string;
  time: string;
  createdByUserId: string;
  answerWanted: boolean;
  /** null: this message could not be opened. */
  text: string | null;
}
export interface OpenedSealedCase {
  /** null: the report could not be opened. */
  details: SealedDetails | null;
  /** null: none was given; `unopened`: it could not be opened. */
  whistleblower: SealedIdentity | null | 'unopened';
  messages: OpenedMessage[];
  files: OpenedFile[];
  /** The audit trail with its sealed entries opened (replaced by a status change's answer). */
  audit: OpenedAuditEntry[];
  /** Handlers' names by account id, for the thread's senders (clear data the server has anyway). */
  senders: Record<string, string>;
  /** The record of a phone or meeting report: each version opened and its hash checked here, and the reporter's comments (`text` null: not opened). */
  record: { versions: OpenedRecordVersion[]; comments: { id: string; created: string; text: string | null }[] };
  /** The transcripts of voice files (issue 40), opened and checked the same way, each bound to its file; absent: none read. */
  transcripts?: { fileId: string; versions: OpenedRecordVersion[]; comments: { id: string; created: string; text: string | null }[] }[];
  /** Handlers' names by the keyId of their ECDH key, for the audit's grants. */
  keyHolders: Record<string, string>;
}

/** The next version of a sealed case's record, sealed and hashed in this browser (core/crypto/record.ts). */
export interface SealedRecordInput {
  caseNumber: string;
  caseId: string;
  dataKey: Uint8Array;
  version: number;
  text: string;
  /** The voice file whose transcript this is (issue 40); absent: the oral report's record. */
  fileId?: string;
}

export interface SealedLoadAnswer {
  status: number;
  view?: SealedView;
}
/** `keys`: every epoch's key this account's wrap reaches; its newest (`keys.dataKey`, `keys.epoch`) is what new content is sealed under. */
export type SealedOpenAnswer = { outcome: 'opened'; keys: EpochKeys; opened: OpenedSealedCase } | { outcome: 'refused' };

export interface GrantCandidate {
  handlerId: string;
  name: string;
  email: string | null;
  /** keyId of the colleague's ECDH key and its SPKI (base64), both from the key log this browser verified. */
  recipientKeyId: string;
  ecdhSpki: string;
}
/** `holders`: colleagues holding the current epoch (this account left out), whom a revocation can name. */
export type CandidatesAnswer = { status: 'ok'; candidates: GrantCandidate[]; holders: GrantCandidate[] } | { status: 'refused'; reason: string };

export interface RevokeInput {
  caseNumber: string;
  caseId: string;
  epoch: number;
  dataKey: Uint8Array;
  holder: GrantCandidate;
}

/** A file the handler attaches (a browser `File` satisfies it); sealed and uploaded only on send. */
export interface SealedAttachment {
  name: string;
  size: number;
}

export interface SealedSendInput {
  caseNumber: string;
  caseId: string;
  dataKey: Uint8Array;
  epoch: number;
  text: string;
  type: MessageType;
  answerWanted: boolean;
  attachments: SealedAttachment[];
}
export interface SealedSendAnswer {
  status: number;
  message?: { id: string; time: string; files?: { id: string; size: number }[] };
}

export interface SealedCaseContext {
  caseNumber: string;
  handlerId: string;
  /** This browser writes files to disk as they open (File System Access API). */
  canStream: boolean;
  nextStatus: CaseStatus | null;
  saving: string | null;
  fileOutcomes: Record<string, FileOutcome>;
  keys: OpenedKeys | null;
  view: SealedView | null;
  /** The newest key (`epochKeys.dataKey`): what this browser seals under. */
  dataKey: Uint8Array | null;
  /** The epoch of `dataKey`. */
  epoch: number;
  /** Every epoch's key reached; each file opens with its own epoch's. */
  epochKeys: EpochKeys | null;
  opened: OpenedSealedCase | null;
  text: string;
  type: MessageType;
  answerWanted: boolean;
  attachments: SealedAttachment[];
  candidates: GrantCandidate[];
  chosen: GrantCandidate | null;
  granted: string;
  holders: GrantCandidate[];
  revoking: GrantCandidate | null;
  revoked: string;
  reason: string;
  /** The composer's text is a draft kept on this device from an earlier sitting, not yet changed. */
  restored: boolean;
}

export type SealedCaseEvent =
  | { type: 'keys.change'; keys: OpenedKeys | null }
  | { type: 'reload' }
  | { type: 'text.change'; value: string }
  | { type: 'type.change'; value: MessageType }
  | { type: 'answer.toggle' }
  | { type: 'attachments.add'; files: SealedAttachment[] }
  | { type: 'attachment.remove'; index: number }
  | { type: 'send' }
  | { type: 'grants.retry' }
  | { type: 'grant.choose'; handlerId: string }
  | { type: 'grant.confirm' }
  | { type: 'grant.cancel' }
  | { type: 'status.choose'; status: CaseStatus }
  | { type: 'status.confirm' }
  | { type: 'status.cancel' }
  | { type: 'file.save'; fileId: string }
  | { type: 'revoke.choose'; handlerId: string }
  | { type: 'revoke.confirm' }
  | { type: 'revoke.cancel' }
  /** A draft kept on this device from an earlier sitting (attachments are not kept). */
  | { type: 'draft.restore'; text: string; messageType: MessageType; answerWanted: boolean };

const noted = ({ context }: { context: SealedCaseContext }) => ({ text: context.text, type: context.type, answerWanted: context.answerWanted });

const loaded = (e: unknown) => (e as DoneActorEvent<SealedLoadAnswer>).output;
const openedAnswer = (e: unknown) => (e as DoneActorEvent<SealedOpenAnswer>).output;
const sent = (e: unknown) => (e as DoneActorEvent<SealedSendAnswer>).output;
const listed = (e: unknown) => (e as DoneActorEvent<CandidatesAnswer>).output;
const grantedAnswer = (e: unknown) => (e as DoneActorEvent<{ status: number; code?: string }>).output;
const statusAnswer = (e: unknown) => (e as DoneActorEvent<StatusAnswer>).output;
const savedAnswer = (e: unknown) => (e as DoneActorEvent<FileSaveAnswer>).output;

/** Whether `file` may be saved in a browser that does (`toDisk`) or does not write to disk as it opens. */
export function isSaveable(file: OpenedFile, toDisk: boolean): boolean {
  return file.name !== null && (toDisk || (file.size ?? file.sealedSize) <= MEMORY_SAVE_MAX);
}
const revokedAnswer = (e: unknown) => (e as DoneActorEvent<{ status: number; code?: string }>).output;

export const sealedCaseMachine = setup({
  types: {} as { context: SealedCaseContext; events: SealedCaseEvent; input: { caseNumber: string; handlerId: string; keys: OpenedKeys | null; canStream?: boolean } },
  actors: {
    loadSealed: fromPromise<SealedLoadAnswer, { caseNumber: string }>(async () => {
      throw new Error('loadSealed not provided');
    }),
    openCase: fromPromise<SealedOpenAnswer, { view: SealedView; keys: OpenedKeys }>(async () => {
      throw new Error('openCase not provided');
    }),
    sendSealed: fromPromise<SealedSendAnswer, SealedSendInput>(async () => {
      throw new Error('sendSealed not provided');
    }),
    loadCandidates: fromPromise<CandidatesAnswer, { caseNumber: string; officerId: string; handlerId: string }>(async () => {
      throw new Error('loadCandidates not provided');
    }),
    grantKey: fromPromise<{ status: number; code?: string }, { caseNumber: string; caseId: string; epoch: number; dataKey: Uint8Array; candidate: GrantCandidate }>(async () => {
      throw new Error('grantKey not provided');
    }),
    changeStatus: fromPromise<StatusAnswer, { caseNumber: string; caseId: string; keys: EpochKeys; status: CaseStatus }>(async () => {
      throw new Error('changeStatus not provided');
    }),
    saveFile: fromPromise<FileSaveAnswer, FileSaveInput>(async () => {
      throw new Error('saveFile not provided');
    }),
    revokeKey: fromPromise<{ status: number; code?: string }, RevokeInput>(async () => {
      throw new Error('revokeKey not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    noteDraft: (_, _draft: { text: string; type: MessageType; answerWanted: boolean }) => {},
    flushDraft: () => {},
    dropDraft: () => {},
    assignRestored: assign(({ event, context }) =>
      event.type === 'draft.restore' ? { text: event.text.slice(0, SEALED_MESSAGE_MAX), type: event.messageType, answerWanted: event.answerWanted, restored: true } : { restored: context.restored }),
    forgetRestored: assign({ restored: false }),
    assignKeys: assign({ keys: ({ event, context }) => (event.type === 'keys.change' ? event.keys : context.keys) }),
    assignView: assign({ view: ({ event }) => loaded(event).view ?? null }),
    assignOpened: assign(({ event }) => {
      const a = openedAnswer(event);
      return a.outcome === 'opened' ? { dataKey: a.keys.dataKey, epoch: a.keys.epoch, epochKeys: a.keys, opened: a.opened } : {};
    }),
    forgetOpened: assign({ dataKey: null, epochKeys: null, opened: null, candidates: [], chosen: null, holders: [], revoking: null, nextStatus: null, saving: null, fileOutcomes: {} }),
    assignText: assign({ text: ({ event, context }) => (event.type === 'text.change' ? event.value.slice(0, SEALED_MESSAGE_MAX) : context.text) }),
    assignType: assign({ type: ({ event, context }) => (event.type === 'type.change' ? event.value : context.type) }),
    toggleAnswer: assign({ answerWanted: ({ context }) => !context.answerWanted }),
    addAttachments: assign({ attachments: ({ event, context }) => (event.type === 'attachments.add' ? [...context.attachments, ...event.files].slice(0, LIMITS.maxFiles) : context.attachments) }),
    removeAttachment: assign({ attachments: ({ event, context }) => (event.type === 'attachment.remove' ? context.attachments.filter((_, i) => i !== event.index) : context.attachments) }),
    // The message the server took joins the thread as written here: no reload, no second open.
    appendSent: assign(({ event, context }) => {
      const m = sent(event).message!;
      const message: OpenedMessage = { id: m.id, type: context.type, time: m.time, createdByUserId: context.handlerId, answerWanted: context.answerWanted, text: context.text.trim() };
      // The files the server took, in the order sent, listed under the names written here.
      const files: OpenedFile[] = (m.files ?? []).map((f, i) => ({ id: f.id, messageId: m.id, created: m.time, sealedSize: f.size, name: context.attachments[i]?.name ?? null, size: context.attachments[i]?.size ?? null, epoch: context.epoch }));
      return { opened: context.opened ? { ...context.opened, messages: [...context.opened.messages, message], files: [...context.opened.files, ...files] } : null, text: '', answerWanted: false, attachments: [], restored: false };
    }),
    assignCandidates: assign(({ event }) => {
      const a = listed(event);
      return a.status === 'ok' ? { candidates: a.candidates, holders: a.holders, reason: '' } : { candidates: [], holders: [], reason: '' };
    }),
    // An error event has no output: the log could not be read at all.
    assignReason: assign({ reason: ({ event }) => { const a = listed(event) as CandidatesAnswer | undefined; return a?.status === 'refused' ? a.reason : 'unreachable'; }, candidates: [], holders: [] }),
    choose: assign({ chosen: ({ event, context }) => (event.type === 'grant.choose' ? (context.candidates.find((c) => c.handlerId === event.handlerId) ?? null) : null), revoked: '' }),
    chooseRevoke: assign({ revoking: ({ event, context }) => (event.type === 'revoke.choose' ? (context.holders.find((c) => c.handlerId === event.handlerId) ?? null) : null), revoked: '', granted: '' }),
    forgetRevoking: assign({ revoking: null }),
    markRevoked: assign(({ context }) => ({ revoked: context.revoking?.name ?? '', revoking: null })),
    forgetChosen: assign({ chosen: null }),
    markGranted: assign(({ context }) => ({ granted: context.chosen?.name ?? '', candidates: context.candidates.filter((c) => c.handlerId !== context.chosen?.handlerId), chosen: null })),
    forgetGranted: assign({ granted: '' }),
    assignNextStatus: assign({ nextStatus: ({ event, context }) => (event.type === 'status.choose' ? event.status : context.nextStatus) }),
    clearNextStatus: assign({ nextStatus: null }),
    // The answer is the whole sealed view: its status and audit replace the old ones; the opened parts stay.
    assignStatusView: assign(({ event, context }) => {
      const a = statusAnswer(event);
      return { view: a.view ?? context.view, opened: context.opened && a.audit ? { ...context.opened, audit: a.audit } : context.opened, nextStatus: null };
    }),
    startSaving: assign(({ event, context }) => (event.type === 'file.save' ? { saving: event.fileId, fileOutcomes: { ...context.fileOutcomes, [event.fileId]: { outcome: 'saving' as const } } } : {})),
    assignSaved: assign(({ event, context }) => {
      const a = savedAnswer(event);
      const outcome: FileOutcome = a.outcome === 'unauthorized' ? { outcome: 'failed' } : a;
      return { saving: null, fileOutcomes: { ...context.fileOutcomes, [context.saving!]: outcome } };
    }),
    assignSaveFailed: assign(({ context }) => ({ saving: null, fileOutcomes: { ...context.fileOutcomes, [context.saving!]: { outcome: 'failed' as const } } })),
  },
  guards: {
    hasKeys: ({ context }) => context.keys !== null,
    isRestored: ({ context }) => context.restored,
    isKeysGiven: ({ event }) => event.type === 'keys.change' && event.keys !== null,
    isOk: ({ event }) => loaded(event).status === 200 && !!loaded(event).view,
    hasNoWrap: ({ event }) => loaded(event).status === 200 && !!loaded(event).view && loaded(event).view!.wrap === null,
    isNotFound: ({ event }) => loaded(event).status === 404,
    isUnauthorizedAnswer: ({ event }) => loaded(event).status === 401,
    isRevokedAnswer: ({ event }) => loaded(event).status === 403,
    isOpened: ({ event }) => openedAnswer(event).outcome === 'opened',
    hasContent: ({ context }) => context.text.trim() !== '' || context.attachments.length > 0,
    hasRoom: ({ context, event }) => event.type === 'attachments.add' && event.files.length > 0 && context.attachments.length + event.files.length <= LIMITS.maxFiles,
    isSent: ({ event }) => sent(event).status === 201 && !!sent(event).message,
    isSendUnauthorized: ({ event }) => sent(event).status === 401,
    isListed: ({ event }) => listed(event).status === 'ok',
    canGrant: ({ context, event }) => event.type === 'grant.choose' && context.dataKey !== null && context.candidates.some((c) => c.handlerId === event.handlerId),
    // A wrap already there (a resend after a lost answer) is as good as a new one.
    isGranted: ({ event }) => grantedAnswer(event).status === 201 || (grantedAnswer(event).status === 409 && grantedAnswer(event).code === 'WRAP_EXISTS'),
    isGrantUnauthorized: ({ event }) => grantedAnswer(event).status === 401,
    isNewStatus: ({ context, event }) => event.type === 'status.choose' && SETTABLE_STATUSES.includes(event.status) && event.status !== context.view?.status,
    isStatusChanged: ({ event }) => statusAnswer(event).status === 200 && !!statusAnswer(event).view,
    isStatusUnauthorized: ({ event }) => statusAnswer(event).status === 401,
    canSave: ({ context, event }) => {
      if (event.type !== 'file.save' || context.epochKeys === null) return false;
      const file = context.opened?.files.find((f) => f.id === event.fileId);
      return !!file && keyForEpoch(context.epochKeys, file.epoch) !== null && isSaveable(file, context.canStream);
    },
    isSaveUnauthorized: ({ event }) => savedAnswer(event).outcome === 'unauthorized',
    canRevoke: ({ context, event }) => event.type === 'revoke.choose' && context.dataKey !== null && context.holders.some((c) => c.handlerId === event.handlerId),
    isRevoked: ({ event }) => revokedAnswer(event).status === 201,
    isRevokeUnauthorized: ({ event }) => revokedAnswer(event).status === 401,
  },
}).createMachine({
  id: 'sealedCase',
  initial: 'keysLocked',
  context: ({ input }) => ({
    caseNumber: input.caseNumber,
    handlerId: input.handlerId,
    canStream: input.canStream ?? false,
    nextStatus: null,
    saving: null,
    fileOutcomes: {},
    keys: input.keys,
    view: null,
    dataKey: null,
    epoch: 1,
    epochKeys: null,
    opened: null,
    text: '',
    type: 'STANDARD',
    answerWanted: false,
    attachments: [],
    candidates: [],
    chosen: null,
    granted: '',
    holders: [],
    revoking: null,
    revoked: '',
    reason: '',
    restored: false,
  }),
  on: {
    // Keys that go (the session locked or ended) take the opened case with them.
    'keys.change': [{ guard: 'isKeysGiven', actions: 'assignKeys' }, { target: '.keysLocked', actions: 'assignKeys' }],
    // A kept draft opened before the case did: the composer shows it once the case opens.
    'draft.restore': { actions: 'assignRestored' },
  },
  states: {
    /** The page points to the unlock form; the keys arrive by `keys.change` (or were there from the start). */
    keysLocked: { entry: 'forgetOpened', always: { guard: 'hasKeys', target: 'loading' } },
    loading: {
      entry: 'forgetOpened',
      invoke: {
        id: 'loadSealed',
        src: 'loadSealed',
        input: ({ context }) => ({ caseNumber: context.caseNumber }),
        onDone: [
          { guard: 'hasNoWrap', target: 'noKey', actions: 'assignView' },
          { guard: 'isOk', target: 'opening', actions: 'assignView' },
          { guard: 'isNotFound', target: 'notFound' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { guard: 'isRevokedAnswer', target: 'revoked' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    /** A colleague revoked this account's access to the case's key: nothing of it is fetched. */
    revoked: { on: { reload: 'loading' } },
    opening: {
      invoke: {
        id: 'openCase',
        src: 'openCase',
        input: ({ context }) => ({ view: context.view!, keys: context.keys! }),
        onDone: [{ guard: 'isOpened', target: 'opened', actions: 'assignOpened' }, { target: 'keyRefused' }],
        onError: 'keyRefused',
      },
    },
    /** No key for this case is wrapped to this account: a colleague who holds it can grant it. */
    noKey: { on: { reload: 'loading' } },
    /** This account's wrap did not open with its key. */
    keyRefused: { on: { reload: 'loading' } },
    notFound: {},
    failed: { on: { reload: 'loading' } },
    opened: {
      type: 'parallel',
      on: { reload: 'loading' },
      states: {
        composer: {
          initial: 'editing',
          states: {
            editing: {
              initial: 'choosing',
              on: {
                'text.change': { target: '.idle', actions: ['assignText', 'forgetRestored', { type: 'noteDraft', params: noted }] },
                'type.change': { actions: ['assignType', { type: 'noteDraft', params: noted }] },
                'answer.toggle': { actions: ['toggleAnswer', { type: 'noteDraft', params: noted }] },
                'attachments.add': [{ guard: 'hasRoom', target: '.idle', actions: 'addAttachments' }, { target: '.tooMany' }],
                'attachment.remove': { target: '.idle', actions: 'removeAttachment' },
                send: [{ guard: 'hasContent', target: 'sending', actions: ['forgetRestored', 'flushDraft'] }, { target: '.empty' }],
                'draft.restore': { target: '.restored', actions: 'assignRestored' },
              },
              states: {
                choosing: { always: [{ guard: 'isRestored', target: 'restored' }, { target: 'idle' }] },
                idle: {},
                empty: {},
                tooMany: {},
                sent: {},
                failed: {},
                /** The text is a draft kept on this device from an earlier sitting. */
                restored: {},
              },
            },
            sending: {
              invoke: {
                id: 'sendSealed',
                src: 'sendSealed',
                input: ({ context }) => ({ caseNumber: context.caseNumber, caseId: context.view!.caseId, dataKey: context.dataKey!, epoch: context.epoch, text: context.text.trim(), type: context.type, answerWanted: context.answerWanted, attachments: context.attachments }),
                onDone: [
                  { guard: 'isSent', target: 'editing.sent', actions: ['appendSent', 'dropDraft'] },
                  { guard: 'isSendUnauthorized', target: 'editing.failed', actions: 'reportUnauthorized' },
                  { target: 'editing.failed' },
                ],
                onError: 'editing.failed',
              },
            },
          },
        },
        grants: {
          initial: 'loadingCandidates',
          states: {
            loadingCandidates: {
              invoke: {
                id: 'loadCandidates',
                src: 'loadCandidates',
                input: ({ context }) => ({ caseNumber: context.caseNumber, officerId: context.view!.protectionOfficerId, handlerId: context.handlerId }),
                onDone: [{ guard: 'isListed', target: 'listing', actions: 'assignCandidates' }, { target: 'unavailable', actions: 'assignReason' }],
                onError: { target: 'unavailable', actions: 'assignReason' },
              },
            },
            /** The key log did not verify here, or could not be read: nobody is offered. */
            unavailable: { on: { 'grants.retry': 'loadingCandidates' } },
            listing: {
              initial: 'idle',
              on: {
                'grant.choose': { guard: 'canGrant', target: 'confirmingGrant', actions: ['forgetGranted', 'choose'] },
                'revoke.choose': { guard: 'canRevoke', target: 'confirmingRevoke', actions: 'chooseRevoke' },
              },
              states: { idle: {}, granted: {}, failed: {}, revokeFailed: {} },
            },
            /** "Revoke <name>'s access?": an alert dialog; the case gets a new key. */
            confirmingRevoke: {
              on: { 'revoke.confirm': 'revoking', 'revoke.cancel': { target: 'listing', actions: 'forgetRevoking' } },
            },
            revoking: {
              invoke: {
                id: 'revokeKey',
                src: 'revokeKey',
                input: ({ context }) => ({ caseNumber: context.caseNumber, caseId: context.view!.caseId, epoch: context.epoch, dataKey: context.dataKey!, holder: context.revoking! }),
                onDone: [
                  // The next epoch is the server's now: read and open the case again with this account's new wrap.
                  { guard: 'isRevoked', target: '#sealedCase.loading', actions: 'markRevoked' },
                  { guard: 'isRevokeUnauthorized', target: 'listing.revokeFailed', actions: ['forgetRevoking', 'reportUnauthorized'] },
                  { target: 'listing.revokeFailed', actions: 'forgetRevoking' },
                ],
                onError: { target: 'listing.revokeFailed', actions: 'forgetRevoking' },
              },
            },
            /** "Give <name> access to this case?": an alert dialog. */
            confirmingGrant: {
              on: { 'grant.confirm': 'granting', 'grant.cancel': { target: 'listing', actions: 'forgetChosen' } },
            },
            granting: {
              invoke: {
                id: 'grantKey',
                src: 'grantKey',
                input: ({ context }) => ({ caseNumber: context.caseNumber, caseId: context.view!.caseId, epoch: context.epoch, dataKey: context.dataKey!, candidate: context.chosen! }),
                onDone: [
                  { guard: 'isGranted', target: 'listing.granted', actions: 'markGranted' },
                  { guard: 'isGrantUnauthorized', target: 'listing.failed', actions: ['forgetChosen', 'reportUnauthorized'] },
                  { target: 'listing.failed', actions: 'forgetChosen' },
                ],
                onError: { target: 'listing.failed', actions: 'forgetChosen' },
              },
            },
          },
        },
        status: {
          initial: 'idle',
          states: {
            idle: {
              initial: 'shown',
              on: { 'status.choose': { guard: 'isNewStatus', target: 'confirmingStatus', actions: 'assignNextStatus' } },
              states: { shown: {}, changed: {}, failed: {} },
            },
            /** "Change the status to …?": an alert dialog. */
            confirmingStatus: { on: { 'status.confirm': 'changingStatus', 'status.cancel': { target: 'idle', actions: 'clearNextStatus' } } },
            changingStatus: {
              invoke: {
                id: 'changeStatus',
                src: 'changeStatus',
                input: ({ context }) => ({ caseNumber: context.caseNumber, caseId: context.view!.caseId, keys: context.epochKeys!, status: context.nextStatus! }),
                onDone: [
                  { guard: 'isStatusChanged', target: 'idle.changed', actions: 'assignStatusView' },
                  { guard: 'isStatusUnauthorized', target: 'idle.failed', actions: ['clearNextStatus', 'reportUnauthorized'] },
                  { target: 'idle.failed', actions: 'clearNextStatus' },
                ],
                onError: { target: 'idle.failed', actions: 'clearNextStatus' },
              },
            },
          },
        },
        files: {
          initial: 'idle',
          states: {
            idle: { on: { 'file.save': { guard: 'canSave', target: 'saving', actions: 'startSaving' } } },
            /** One file at a time is opened and written (to disk, or in memory up to MEMORY_SAVE_MAX). */
            saving: {
              invoke: {
                id: 'saveFile',
                src: 'saveFile',
                input: ({ context }) => {
                  const file = context.opened!.files.find((f) => f.id === context.saving) as OpenedFile & { name: string };
                  // The file's own epoch's key (canSave made sure this browser holds it).
                  return { caseNumber: context.caseNumber, caseId: context.view!.caseId, dataKey: keyForEpoch(context.epochKeys!, file.epoch)!, file, toDisk: context.canStream };
                },
                onDone: [
                  { guard: 'isSaveUnauthorized', target: 'idle', actions: ['assignSaved', 'reportUnauthorized'] },
                  { target: 'idle', actions: 'assignSaved' },
                ],
                onError: { target: 'idle', actions: 'assignSaveFailed' },
              },
            },
          },
        },
      },
    },
  },
});
