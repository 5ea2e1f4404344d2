/** Walks every transition of comment-and-approve and replays each path on a running actor. */
import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { reportReviewMachine } from '../../machines/reportReview.ts';
import model from './reportReview.model.ts';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage, expectInvariantOnShortestPaths } from './expect.ts';

const paths = modelPaths(model);
const replayOptions = {
  promiseActors: ['sendComment', 'approveCase'],
  recordActions: ['reloadCase', 'reportUnauthorized'],
  input: model.input,
};

describe('report review model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it('holds its invariants on every createTestModel path', async () => {
    await expectInvariantOnShortestPaths(model, (s) => {
      if (s.matches({ reviewing: 'sendingComment' })) expect(s.context.comment.trim()).not.toBe('');
      if (s.matches('reviewing')) expect(s.context.submissionType === 'ONLINE_FORM' || !!s.context.approvedAt).toBe(false);
    });
  });

  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(reportReviewMachine, path, replayOptions, (h, step, prev) => {
      const s = step.state as AnyMachineSnapshot;
      if (step.event.type === 'comment.submit') {
        const hasText = prev.context.comment.trim() !== '';
        expect(s.matches({ reviewing: 'sendingComment' })).toBe(hasText);
        expect(s.matches({ reviewing: { commenting: 'invalid' } })).toBe(!hasText);
        const sent = h.inputs.get('sendComment') ?? [];
        if (hasText) expect(sent.at(-1)).toEqual({ comment: prev.context.comment.trim() });
      }
      if (s.matches('approved')) expect(h.actionLog.at(-1)).toBe('reloadCase');
      // The approval names the version shown by its hash.
      if (step.event.type === 'approval.confirm' && s.matches({ reviewing: 'approving' })) {
        expect(h.inputs.get('approveCase')?.at(-1)).toEqual({ sha256: prev.context.sha256 });
      }
      // After an approval, a new version awaiting approval offers review again.
      if (prev.matches('approved') && step.event.type === 'case.change' && !(step.event as any).approvedAt && (step.event as any).submissionType !== 'ONLINE_FORM') {
        expect(s.matches('reviewing')).toBe(true);
        expect(s.context.sha256).toBe((step.event as any).sha256);
      }
      if (s.matches({ reviewing: 'confirmingApproval' })) {
        expect(s.context.sha256).not.toBeNull();
        expect(s.context.verified).not.toBe(false);
      }
      // review is offered only for non-online reports not yet approved
      if (s.matches('reviewing')) {
        expect(s.context.submissionType).not.toBe('ONLINE_FORM');
        expect(s.context.approvedAt).toBeNull();
      }
    });
  });

  it('is locked for an online-form report and for an approved record', () => {
    const online = createActor(reportReviewMachine, { input: { submissionType: 'ONLINE_FORM', approvedAt: null, sha256: null } }).start();
    expect(online.getSnapshot().value).toBe('locked');
    expect(online.getSnapshot().can({ type: 'approval.open' })).toBe(false);
    const approved = createActor(reportReviewMachine, { input: { submissionType: 'PHONE', approvedAt: '2026-11-02T09:00:00Z', sha256: 'a'.repeat(64) } }).start();
    expect(approved.getSnapshot().value).toBe('locked');
    const phone = createActor(reportReviewMachine, { input: { submissionType: 'MEETING', approvedAt: null, sha256: 'b'.repeat(64) } }).start();
    expect(phone.getSnapshot().can({ type: 'approval.open' })).toBe(true);
  });

  it('does not offer approval of a version whose hash did not match here, and leaves a confirmation when one arrives', () => {
    const sealed = createActor(reportReviewMachine, { input: { submissionType: 'PHONE', approvedAt: null, sha256: 'c'.repeat(64), verified: false } }).start();
    expect(sealed.getSnapshot().matches('reviewing')).toBe(true);
    expect(sealed.getSnapshot().can({ type: 'approval.open' })).toBe(false);
    expect(sealed.getSnapshot().can({ type: 'comment.open' })).toBe(true);
    sealed.send({ type: 'case.change', submissionType: 'PHONE', approvedAt: null, sha256: 'd'.repeat(64), verified: true });
    sealed.send({ type: 'approval.open' });
    expect(sealed.getSnapshot().matches({ reviewing: 'confirmingApproval' })).toBe(true);
    sealed.send({ type: 'case.change', submissionType: 'PHONE', approvedAt: null, sha256: 'e'.repeat(64), verified: false });
    expect(sealed.getSnapshot().matches({ reviewing: 'idle' })).toBe(true);
    expect(sealed.getSnapshot().can({ type: 'approval.open' })).toBe(false);
  });

  it('does not offer approval of a record that does not exist yet, but takes comments', () => {
    const early = createActor(reportReviewMachine, { input: { submissionType: 'PHONE', approvedAt: null, sha256: null } }).start();
    expect(early.getSnapshot().matches('reviewing')).toBe(true);
    expect(early.getSnapshot().can({ type: 'approval.open' })).toBe(false);
    early.send({ type: 'approval.open' });
    expect(early.getSnapshot().matches({ reviewing: 'confirmingApproval' })).toBe(false);
    expect(early.getSnapshot().can({ type: 'comment.open' })).toBe(true);
    // The handler writes the record: the case is read again and approval opens.
    early.send({ type: 'case.change', submissionType: 'PHONE', approvedAt: null, sha256: 'c'.repeat(64) });
    expect(early.getSnapshot().can({ type: 'approval.open' })).toBe(true);
  });

  it('reviews the transcript of a voice message on an online report, and locks once the transcript is approved (issue 40)', () => {
    const t = createActor(reportReviewMachine, { input: { submissionType: 'ONLINE_FORM', approvedAt: null, sha256: 'f'.repeat(64), transcript: true } }).start();
    expect(t.getSnapshot().matches('reviewing')).toBe(true);
    expect(t.getSnapshot().can({ type: 'approval.open' })).toBe(true);
    // A reading whose hash no longer checks withdraws a confirmation, as for the record.
    t.send({ type: 'approval.open' });
    t.send({ type: 'case.change', submissionType: 'ONLINE_FORM', approvedAt: null, sha256: 'f'.repeat(64), verified: false });
    expect(t.getSnapshot().matches({ reviewing: 'idle' })).toBe(true);
    t.send({ type: 'case.change', submissionType: 'ONLINE_FORM', approvedAt: '2026-12-02T10:00:00Z', sha256: 'f'.repeat(64) });
    expect(t.getSnapshot().value).toBe('locked');
    // A new version after the approval: review again.
    t.send({ type: 'case.change', submissionType: 'ONLINE_FORM', approvedAt: null, sha256: 'e'.repeat(64) });
    expect(t.getSnapshot().matches('reviewing')).toBe(true);
    // Without the flag the same case is an online report's text: locked.
    const plain = createActor(reportReviewMachine, { input: { submissionType: 'ONLINE_FORM', approvedAt: null, sha256: 'f'.repeat(64) } }).start();
    expect(plain.getSnapshot().value).toBe('locked');
  });
});
