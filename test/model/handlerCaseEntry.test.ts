/**
 * The report entry's chart (machines/handler/caseEntry.ts): every model path replayed on a
 * running actor, its invariants checked at each step.
 */
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import model, { TODAY } from './handlerCaseEntry.model.ts';
import { draftIssues, emptyDraft, reportOf } from '../../machines/handler/caseEntry.ts';
import { enteredReportSchema } from '../../machines/schema.ts';

describe('handlerCaseEntry model', () => {
  const paths = modelPaths(model);
  it('walks every state and every transition', () => expectFullCoverage(model, paths));
  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(model.machine, path, { promiseActors: ['loadChoices', 'enterCase'], recordActions: ['reportUnauthorized', 'printSlip'], input: model.input }, (h, step, before) => {
      const s = step.state;
      const e = step.event as { type: string; output?: { status: number } };
      // The form opens only with an officer to enter for.
      if (s.matches('editing')) expect(s.context.choices.officers.length).toBeGreaterThan(0);
      // Sent only what the shared rules take, and only from the editing form.
      if (s.matches('entering')) {
        expect(before.matches('editing')).toBe(true);
        expect(v.safeParse(enteredReportSchema, reportOf(s.context.draft)).success).toBe(true);
        expect(h.inputs.get('enterCase')?.at(-1)).toEqual(v.parse(enteredReportSchema, reportOf(s.context.draft)));
      }
      // A refused submit names what is wrong and stays.
      if (e.type === 'entry.submit' && before.matches('editing') && s.matches('editing')) expect(Object.keys(s.context.issues).length).toBeGreaterThan(0);
      // The password lives only on the slip; a followed case's slip has one.
      if (s.matches('entered')) {
        expect(s.context.slip?.caseNumber).toBe('1234567812345678');
        if (s.context.draft.follow) expect(typeof s.context.slip?.password).toBe('string');
      } else expect(s.context.slip).toBeNull();
      if (s.matches('done')) expect(s.context.caseNumber).toBe('1234567812345678');
      // A refusal keeps the draft as typed.
      if (s.matches('failed')) {
        expect(s.context.failure).not.toBeNull();
        expect(s.context.draft).toEqual(before.context.draft);
      }
      if (e.type === 'xstate.done.actor.enterCase' && e.output?.status === 401) expect(h.actionLog.at(-1)).toBe('reportUnauthorized');
      if (e.type === 'slip.print') expect(h.actionLog.at(-1)).toBe('printSlip');
    });
  });

  it('refuses a received day in the future, one more than a year back and an impossible date, and names the fields the form needs', () => {
    const d = emptyDraft({ receivedOn: TODAY, officerId: 'o' });
    expect(draftIssues(d)).toMatchObject({ relation: 'validation.required', description: 'validation.required', repeated: 'validation.required' });
    const filled = { ...d, relation: 'Supplier', description: 'x', repeated: 'no' as const, unit: 'Fleet' };
    expect(draftIssues(filled)).toEqual({});
    expect(draftIssues({ ...filled, receivedOn: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10) })).toEqual({ receivedOn: 'entry.receivedFuture' });
    expect(draftIssues({ ...filled, receivedOn: new Date(Date.now() - 400 * 86_400_000).toISOString().slice(0, 10) })).toEqual({ receivedOn: 'entry.receivedTooOld' });
    expect(draftIssues({ ...filled, receivedOn: '2026-02-30' })).toEqual({ receivedOn: 'validation.invalid' });
    expect(draftIssues({ ...filled, unit: '' })).toEqual({ reportedPersons: 'validation.reportRelated' });
    expect(draftIssues({ ...filled, identified: true })).toMatchObject({ name: 'validation.required' });
    expect(draftIssues({ ...filled, personName: 'Per' })).toMatchObject({ personJobTitle: 'validation.required' });
  });
});
