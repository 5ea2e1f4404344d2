/**
 * Comment on and approve the handler's record of a phone or meeting report
 * (spec §4 Modification by reporter, §5 Comment, §9 dialog widths).
 *
 * Invariants:
 * - Offered only while the submission is not ONLINE_FORM and approvedAt is empty;
 *   otherwise the chart starts, and stays, `locked`.
 * - An empty (or blank) comment shows the error state and sends nothing.
 * - Approving is a confirmation substate (an AlertDialog); confirming calls the
 *   server with the SHA-256 of the version shown (docs/decisions/record-versions.md)
 *   and, on 200, reloads the case and ends `approved`.
 * - A new version of the record (the handler edited it: approvedAt empty again)
 *   offers review again, even after an approval; the hash is kept up to date in
 *   every reviewing state, so an approval never names a version the reporter no
 *   longer sees (the server refuses a stale one with 409).
 * - Approval is offered only once the handler's record exists (a hash to name):
 *   approving nothing would freeze an empty record for good (the server refuses
 *   it too, NO_RECORD_YET). Comments are welcome before that.
 * - On a sealed case the page opens the record and checks its hash itself
 *   (core/crypto/record.ts): a version that did not open or whose hash does not match
 *   its text (`verified: false`) is never offered for approval, since the hash would
 *   name a text the reporter did not read; comments stay open to say so.
 * - The same chart reviews the transcript of a voice message (`transcript`, issue 40;
 *   docs/decisions/voice-messages.md "Transcript"): offered whatever the case's channel
 *   (a voice message is mostly an online report), `approvedAt` being the transcript's
 *   latest version's approval, not the case's.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import type { SubmissionType } from './schema.ts';

export interface ReportReviewInput {
  submissionType: SubmissionType;
  approvedAt: string | null;
  /** SHA-256 of the record version shown; null while the handler has not written the record yet. */
  sha256: string | null;
  /** false: the page could not open this version, or its hash does not match the opened text (a sealed case); absent: the server vouches (a server-keyed case). */
  verified?: boolean;
  /** The subject is the transcript of a voice file, not the oral report's record: reviewable on any channel. */
  transcript?: boolean;
}

export interface ReportReviewContext extends ReportReviewInput {
  comment: string;
}

export type ReportReviewEvent =
  | { type: 'comment.open' }
  | { type: 'comment.change'; value: string }
  | { type: 'comment.submit' }
  | { type: 'comment.cancel' }
  | { type: 'approval.open' }
  | { type: 'approval.confirm' }
  | { type: 'approval.cancel' }
  /** The case was read again: re-decide whether review is still offered. */
  | { type: 'case.change'; submissionType: SubmissionType; approvedAt: string | null; sha256: string | null; verified?: boolean };

export interface CallResult {
  status: number;
}

const status = (event: unknown) => (event as DoneActorEvent<CallResult>).output.status;
/** An oral report's record, or any transcript, is reviewed; an online report's text is not. */
const reviewable = (context: { transcript?: boolean }, submissionType: SubmissionType) => context.transcript === true || submissionType !== 'ONLINE_FORM';

export const reportReviewMachine = setup({
  types: {} as { context: ReportReviewContext; events: ReportReviewEvent; input: ReportReviewInput },
  actors: {
    sendComment: fromPromise<CallResult, { comment: string }>(async () => {
      throw new Error('sendComment not provided');
    }),
    approveCase: fromPromise<CallResult, { sha256: string | null }>(async () => {
      throw new Error('approveCase not provided');
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    assignComment: assign({ comment: ({ event, context }) => (event.type === 'comment.change' ? event.value : context.comment) }),
    clearComment: assign({ comment: '' }),
    assignCase: assign(({ event, context }) =>
      event.type === 'case.change' ? { submissionType: event.submissionType, approvedAt: event.approvedAt, sha256: event.sha256, verified: event.verified } : context,
    ),
  },
  guards: {
    isModifiable: ({ context }) => reviewable(context, context.submissionType) && !context.approvedAt,
    /** The case read again awaits approval (after an approval: a new version of the record). */
    isAwaitingApproval: ({ context, event }) => event.type === 'case.change' && reviewable(context, event.submissionType) && !event.approvedAt,
    isRecordWithdrawn: ({ context, event }) =>
      event.type === 'case.change' && reviewable(context, event.submissionType) && !event.approvedAt && (event.sha256 === null || event.verified === false),
    hasComment: ({ context }) => context.comment.trim().length > 0,
    /** The record of the call or meeting exists (a version to approve), and its hash names the text shown. */
    hasVerifiedRecord: ({ context }) => context.sha256 !== null && context.verified !== false,
    isOk: ({ event }) => status(event) >= 200 && status(event) < 300,
    isUnauthorizedAnswer: ({ event }) => [401, 403].includes(status(event)),
  },
}).createMachine({
  id: 'reportReview',
  initial: 'deciding',
  context: ({ input }) => ({ ...input, comment: '' }),
  states: {
    deciding: {
      always: [{ guard: 'isModifiable', target: 'reviewing' }, { target: 'locked' }],
    },
    /** An online-form report, or one already approved: read-only. */
    locked: {
      on: { 'case.change': { target: 'deciding', actions: 'assignCase' } },
    },
    reviewing: {
      initial: 'idle',
      // Outside `idle` (a dialog open, a call under way) the hash follows a new version.
      on: { 'case.change': { guard: 'isAwaitingApproval', actions: 'assignCase' } },
      states: {
        idle: {
          initial: 'ready',
          on: {
            'comment.open': 'commenting',
            'approval.open': { guard: 'hasVerifiedRecord', target: 'confirmingApproval' },
            'case.change': { target: '#reportReview.deciding', actions: 'assignCase' },
          },
          states: { ready: {}, commentSent: {}, approvalFailed: {} },
        },
        commenting: {
          initial: 'editing',
          on: {
            'comment.change': { target: '.editing', actions: 'assignComment' },
            'comment.submit': [{ guard: 'hasComment', target: 'sendingComment' }, { target: '.invalid' }],
            'comment.cancel': { target: 'idle', actions: 'clearComment' },
          },
          states: {
            editing: {},
            /** The comment is required: error state shown, nothing sent. */
            invalid: {},
            failed: {},
          },
        },
        sendingComment: {
          invoke: {
            id: 'sendComment',
            src: 'sendComment',
            input: ({ context }) => ({ comment: context.comment.trim() }),
            onDone: [
              { guard: 'isOk', target: 'idle.commentSent', actions: ['clearComment', 'reloadCase'] },
              { guard: 'isUnauthorizedAnswer', target: 'commenting.failed', actions: 'reportUnauthorized' },
              { target: 'commenting.failed' },
            ],
            onError: 'commenting.failed',
          },
        },
        confirmingApproval: {
          on: {
            'approval.confirm': 'approving',
            'approval.cancel': 'idle',
            // The case read again has no record to name, or one whose hash fails here: nothing left to confirm.
            'case.change': { guard: 'isRecordWithdrawn', target: 'idle', actions: 'assignCase' },
          },
        },
        approving: {
          invoke: {
            id: 'approveCase',
            src: 'approveCase',
            input: ({ context }) => ({ sha256: context.sha256 }),
            onDone: [
              { guard: 'isOk', target: '#reportReview.approved', actions: 'reloadCase' },
              { guard: 'isUnauthorizedAnswer', target: 'idle.approvalFailed', actions: 'reportUnauthorized' },
              { target: 'idle.approvalFailed' },
            ],
            onError: 'idle.approvalFailed',
          },
        },
      },
    },
    approved: {
      on: { 'case.change': { guard: 'isAwaitingApproval', target: 'deciding', actions: 'assignCase' } },
    },
  },
});
