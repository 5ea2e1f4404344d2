/** Model of comment-and-approve: offered and locked cases, blank and real comments, every call outcome. */
import type { EventObject } from 'xstate';
import { reportReviewMachine } from '../../machines/reportReview.ts';
import type { MachineModel } from './harness.ts';

export const reportReviewEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'case.change', submissionType: 'ONLINE_FORM', approvedAt: null, sha256: null },
  { type: 'case.change', submissionType: 'PHONE', approvedAt: '2026-11-02T09:00:00.000Z', sha256: 'a'.repeat(64) },
  { type: 'case.change', submissionType: 'MEETING', approvedAt: null, sha256: 'b'.repeat(64) },
  // A phone or meeting case whose record the handler has not written yet: nothing to approve.
  { type: 'case.change', submissionType: 'PHONE', approvedAt: null, sha256: null },
  // A sealed case's version whose hash did not match the text the page opened: not approvable.
  { type: 'case.change', submissionType: 'PHONE', approvedAt: null, sha256: 'c'.repeat(64), verified: false },
  { type: 'comment.open' },
  { type: 'comment.change', value: '   ' },
  { type: 'comment.change', value: 'The date of the second call is wrong.' },
  { type: 'comment.submit' },
  { type: 'comment.cancel' },
  { type: 'xstate.done.actor.sendComment', output: { status: 201 } },
  { type: 'xstate.done.actor.sendComment', output: { status: 401 } },
  { type: 'xstate.done.actor.sendComment', output: { status: 500 } },
  { type: 'xstate.error.actor.sendComment', error: 'network' },
  { type: 'approval.open' },
  { type: 'approval.confirm' },
  { type: 'approval.cancel' },
  { type: 'xstate.done.actor.approveCase', output: { status: 200 } },
  { type: 'xstate.done.actor.approveCase', output: { status: 403 } },
  { type: 'xstate.done.actor.approveCase', output: { status: 409 } },
  { type: 'xstate.error.actor.approveCase', error: 'network' },
];

export default {
  name: 'reportReview',
  machine: reportReviewMachine,
  input: { submissionType: 'PHONE', approvedAt: null, sha256: 'a'.repeat(64) },
  events: reportReviewEvents,
} satisfies MachineModel;
