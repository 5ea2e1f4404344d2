/**
 * The company editor's chart: every model path replayed on a running actor, with its
 * invariants checked at every step (machines/admin/companyEditor.ts), and the draft
 * helpers the form is drawn from.
 */
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import model, { companyFile } from './companyEditor.model.ts';
import type { EditorContext } from '../../machines/admin/companyEditor.ts';
import { addLanguage, kindAt, removeLanguage, sameDraft, setAt, templateAt, textRows } from '../../machines/admin/companyDraft.ts';
import { companyIssues, colourProblem, type CompanyFile } from '../../machines/companyFile.ts';

const ACTORS = ['loadEditor', 'saveDraft', 'createPreview', 'uploadImage', 'loadVersions', 'revertVersion', 'importBundle'];

describe('companyEditor model', () => {
  const paths = modelPaths(model);
  it('walks every state and every transition', () => expectFullCoverage(model, paths));
  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(model.machine, path, { promiseActors: ACTORS, recordActions: ['reportUnauthorized'], input: model.input }, (h, step, before) => {
      const s = step.state as AnyMachineSnapshot;
      const c = s.context as EditorContext;
      const b = before.context as EditorContext;
      if (s.matches('previewing') && !before.matches('previewing')) expect(b.issues).toEqual([]);
      if (s.matches('confirmingSave')) {
        expect(c.issues).toEqual([]);
        expect(sameDraft(c.draft!, c.saved!)).toBe(false);
      }
      if (c.draft && !c.canEditHosts) expect(c.draft.file.hosts).toEqual(c.saved!.file.hosts);
      // A refused or failed save keeps the draft as it was.
      if (before.matches('saving') && (s.matches({ editing: 'refused' }) || s.matches({ editing: 'failed' }) || s.matches({ editing: 'conflict' }))) expect(c.draft).toEqual(b.draft);
      if (s.matches({ editing: 'saved' })) expect(sameDraft(c.draft!, c.saved!)).toBe(true);
      if (step.event.type.startsWith('xstate.done.actor.') && (step.event as unknown as { output: { status: number } }).output.status === 401) expect(h.actionLog.at(-1)).toBe('reportUnauthorized');
      if (s.matches({ versions: 'confirmingRevert' })) expect(c.revertTo).not.toBe(c.version);
    });
  });
});

describe('the draft helpers', () => {
  const file = companyFile as unknown as CompanyFile;

  it('read the form off the schema', () => {
    expect(kindAt(['name'])).toBe('text');
    expect(kindAt(['contactDetails'])).toBe('paragraph');
    expect(kindAt(['siteColors', 'primaryColorCode'])).toBe('colour');
    expect(kindAt(['lookAndFeel', 'en', 'siteFrontPage', 'showVerbalOption'])).toBe('boolean');
    expect(kindAt(['lookAndFeel', 'en', 'siteFrontPage', 'backgroundImageColor'])).toBe('choice');
    expect(kindAt(['protectionOfficers'])).toBe('list');
    expect(kindAt(['retention', 'closedCaseMonths'])).toBe('number');
    expect(kindAt(['nonsense'])).toBe('other');
    expect(templateAt(['subsidiaries'], 'x')).toEqual({ id: 'x', name: '' });
    expect(templateAt(['protectionOfficers'], 'u')).toMatchObject({ id: 'u', name: '', customerRelation: 'INTERNAL' });
  });

  it('lists every text side by side and marks the missing ones', () => {
    const rows = textRows(file);
    expect(rows.find((r) => r.path.join('.') === 'siteFrontPage.heading')).toMatchObject({ kind: 'text', missing: [] });
    const blank = setAt(file, ['lookAndFeel', 'en', 'siteFrontPage', 'heading'], ' ');
    expect(textRows(blank).find((r) => r.path.join('.') === 'siteFrontPage.heading')!.missing).toEqual(['en']);
    const longer = setAt(file, ['lookAndFeel', 'da', 'siteFAQPage', 'faqs', 1], { heading: 'Q2', paragraph: 'A2' });
    expect(textRows(longer).find((r) => r.path.join('.') === 'siteFAQPage.faqs.1.heading')!.missing).toEqual(['en']);
    expect(companyIssues(longer)).toEqual([]);
    // An optional per-language text (the contact override) is never missing.
    expect(rows.find((r) => r.path.join('.') === 'contactPerson')!.missing).toEqual([]);
  });

  it('adds and removes a language with its texts and phone code, never the default one', () => {
    const added = addLanguage(file, 'de', 'Deutsch');
    expect(added.languages).toEqual(['da', 'en', 'de']);
    expect(added.lookAndFeel.de!.languageName).toBe('Deutsch');
    expect(companyIssues(added)).toEqual([]);
    expect(removeLanguage(added, 'de')).toEqual({ ...file, lookAndFeel: file.lookAndFeel, phoneCodes: file.phoneCodes });
    expect(removeLanguage(file, 'da')).toBe(file);
  });

  it('the form and the file refuse an unreadable colour pair by the same rule', () => {
    expect(colourProblem({ primaryColorCode: '#f0f0f0', secondaryColorCode: '#ecf1f5' })).toMatchObject({ field: 'siteColors.primaryColorCode', rule: 'contrast' });
    expect(colourProblem({ primaryColorCode: '#172a55', secondaryColorCode: '#333333' })).toMatchObject({ field: 'siteColors.secondaryColorCode', rule: 'contrast' });
    expect(companyIssues(setAt(file, ['siteColors', 'primaryColorCode'], '#f0f0f0'))).toMatchObject([{ field: 'siteColors.primaryColorCode', rule: 'contrast' }]);
    expect(companyIssues(setAt(file, ['name'], ''))).toMatchObject([{ field: 'name', rule: 'required' }]);
  });
});
