/**
 * Reply templates' machines (issue 38 Build 7): every model path of the composer's
 * template picker and of the administrator's screen replayed on a running actor with
 * simulated actors, each machine's invariants checked at every step.
 */
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths, type MachineModel } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import picker from './handlerTemplatePicker.model.ts';
import admin from './adminTemplates.model.ts';
import { chosenText, pickerLanguage } from '../../machines/handler/templatePicker.ts';
import { draftIssues } from '../../machines/admin/templates.ts';
import { replyTemplateIssues, templateLanguage } from '../../machines/schema.ts';

/** `actions`: the recorded actions this step ran (not the whole path's). */
type Check = (s: AnyMachineSnapshot, event: { type: string }, before: AnyMachineSnapshot, actions: string[]) => void;

const suites: [MachineModel, string[], string[], Check][] = [
  [
    picker,
    ['loadTemplates'],
    ['insertText', 'reportUnauthorized'],
    (s, e, before, actions) => {
      const inserted = actions.includes('insertText');
      // Typed text is only ever replaced or added to from the confirmation.
      if (inserted && e.type !== 'template.insert') expect(before.matches({ ready: 'confirming' })).toBe(true);
      if (inserted && e.type === 'template.insert') expect((e as unknown as { text: string }).text.trim()).toBe('');
      if (s.matches({ ready: 'confirming' })) expect(s.context.typed.trim()).not.toBe('');
      if (inserted) {
        expect(s.context.inserted.endsWith(chosenText(s.context))).toBe(true);
        expect(s.context.inserted.length).toBeLessThanOrEqual(e.type === 'insert.append' ? s.context.max : Infinity);
        // The reporter writes Polish and the company offers it: the Polish text goes in.
        expect(pickerLanguage(s.context)).toBe('pl');
        if (e.type === 'insert.append') expect(s.context.inserted.startsWith(s.context.typed.trimEnd())).toBe(true);
        else expect(s.context.inserted).toBe(chosenText(s.context));
      }
      if (e.type === 'xstate.done.actor.loadTemplates' && (e as unknown as { output: { status: number } }).output.status === 401) expect(actions).toEqual(['reportUnauthorized']);
    },
  ],
  [
    admin,
    ['loadTemplates', 'saveTemplate', 'deleteTemplate'],
    ['reportUnauthorized'],
    (s, e, before, actions) => {
      if (s.matches('saving') && !before.matches('saving')) {
        expect(before.matches('editing')).toBe(true);
        expect(draftIssues(before.context)).toEqual([]);
      }
      if (s.matches('deleting') && !before.matches('deleting')) expect(before.matches('confirmingDelete')).toBe(true);
      if (s.matches('confirmingDelete') || s.matches('deleting')) expect(s.context.templates.map((t: { id: string }) => t.id)).toContain(s.context.deletingId);
      // A refused or failed save keeps the draft.
      if (e.type.endsWith('actor.saveTemplate') && s.matches('editing')) expect(s.context.draft).toBe(before.context.draft);
      if (s.matches('failed') && e.type.startsWith('xstate.done.actor.') && (e as unknown as { output: { status: number } }).output.status === 401) expect(actions).toContain('reportUnauthorized');
    },
  ],
];

for (const [model, promiseActors, recordActions, check] of suites) {
  describe(`${model.name} model`, () => {
    const paths = modelPaths(model);
    it('walks every state and every transition', () => expectFullCoverage(model, paths));
    it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
      let seen = 0;
      await replayPath(model.machine, path, { promiseActors, recordActions, input: model.input }, (h, step, before) => {
        const actions = h.actionLog.slice(seen);
        seen = h.actionLog.length;
        check(step.state, step.event, before, actions);
      });
    });
  });
}

describe('reply template rules', () => {
  it("inserts in the reporter's language when the company offers it, else in the default", () => {
    expect(templateLanguage('pl', ['da', 'pl'], 'da')).toBe('pl');
    expect(templateLanguage('de', ['da', 'pl'], 'da')).toBe('da');
    expect(templateLanguage(null, ['da', 'pl'], 'da')).toBe('da');
    expect(templateLanguage('toString', ['da'], 'da')).toBe('da');
  });

  it('asks for a name and exactly one text per company language, within the limits', () => {
    const langs = ['da', 'en'] as const;
    expect(replyTemplateIssues({ name: 'Receipt', texts: { da: 'Tak', en: 'Thanks' } }, langs)).toEqual([]);
    expect(replyTemplateIssues({ name: ' ', texts: { da: 'Tak' } }, langs)).toEqual([
      { field: 'name', rule: 'validation.required' },
      { field: 'texts.en', rule: 'validation.required' },
    ]);
    expect(replyTemplateIssues({ name: 'x', texts: { da: 'Tak', en: 'x'.repeat(5001) } }, langs)).toEqual([{ field: 'texts.en', rule: 'validation.tooLong' }]);
    expect(replyTemplateIssues({ name: 'x', texts: { da: 'Tak', en: 'Hi', pl: 'Cześć' } }, langs).map((i) => i.field)).toEqual(['texts.pl']);
  });
});
