/**
 * Walks every transition of the look-and-feel machine (harness paths, executed
 * through the TestModel that `createTestModel` builds) on a real running actor whose
 * fetches are deferred promises the test settles, and checks spec §7/§8 along the way.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, type AnyMachineSnapshot, type EventObject } from 'xstate';
import { DEFAULT_LOOK_AND_FEEL, lookAndFeelMachine, type CompanyInfo, type LookAndFeel } from '../../machines/lookAndFeel.ts';
import type { Language } from '../../machines/schema.ts';
import model from './lookAndFeel.model.ts';
import { createModelTestModel, describePath, modelPaths } from './harness.ts';
import { expectFullCoverage } from './expect.ts';

interface Deferred<T> {
  input: unknown;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

function harness(input: { language: Language }) {
  const lafCalls: Array<Deferred<LookAndFeel>> = [];
  const infoCalls: Array<Deferred<CompanyInfo>> = [];
  const stored: Language[] = [];
  const machine = lookAndFeelMachine.provide({
    actors: {
      fetchLookAndFeel: fromPromise<LookAndFeel, { language: Language; orDefault: boolean }>(
        ({ input }) => new Promise((resolve, reject) => lafCalls.push({ input, resolve, reject })),
      ),
      fetchCompanyInfo: fromPromise<CompanyInfo, void>(
        () => new Promise((resolve, reject) => infoCalls.push({ input: undefined, resolve, reject })),
      ),
    },
    actions: { storeLanguage: (_, params) => void stored.push(params.language) },
  });
  const actor = createActor(machine, { input }).start();
  return { actor, lafCalls, infoCalls, stored };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

const paths = modelPaths(model);
const testModel = createModelTestModel(model);

describe('look-and-feel machine model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    const h = harness(model.input as { language: Language });
    let prev = h.actor.getSnapshot() as AnyMachineSnapshot;
    const settle = async (step: { event: EventObject }) => {
      const e = step.event as EventObject & { output?: unknown; error?: unknown; language?: Language };
      prev = h.actor.getSnapshot();
      if (e.type === 'xstate.done.actor.fetchLookAndFeel') h.lafCalls.at(-1)!.resolve(e.output as LookAndFeel);
      else if (e.type === 'xstate.error.actor.fetchLookAndFeel') h.lafCalls.at(-1)!.reject(e.error);
      else if (e.type === 'xstate.done.actor.fetchCompanyInfo') h.infoCalls.at(-1)!.resolve(e.output as CompanyInfo);
      else if (e.type === 'xstate.error.actor.fetchCompanyInfo') h.infoCalls.at(-1)!.reject(e.error);
      else h.actor.send(e as never);
      await flush();
    };
    const check = (expected: AnyMachineSnapshot) => {
      const s = h.actor.getSnapshot();
      expect(s.value).toEqual(expected.value);
    };
    const events: Record<string, (step: { event: EventObject }) => Promise<void>> = {};
    for (const e of model.events as EventObject[]) events[e.type] = settle;

    // Walk the path: each step's event is executed on the running actor, then the
    // reached state is compared with the model's and the spec's rules are checked.
    for (const step of path.steps) {
      if (step.event.type === 'xstate.init') {
        check(step.state);
        expect(h.lafCalls.map((c) => c.input)).toEqual([{ language: 'de', orDefault: true }]);
        continue;
      }
      await events[step.event.type]!(step);
      check(step.state);
      const s = h.actor.getSnapshot();
      const e = step.event as EventObject & { output?: LookAndFeel; error?: { status: number | string }; language?: Language };
      switch (e.type) {
        case 'language.change':
          expect(h.stored.at(-1)).toBe(e.language);
          expect(s.matches('loadingLookAndFeel')).toBe(true);
          expect(h.lafCalls.at(-1)!.input).toEqual({ language: e.language, orDefault: false });
          break;
        case 'retry':
          expect(s.matches('loadingLookAndFeel')).toBe(true);
          break;
        case 'xstate.done.actor.fetchLookAndFeel':
          // a 200 sets the display language
          expect(s.context.language).toBe(e.output!.languageCode);
          expect(s.context.lookAndFeel).toBe(e.output);
          expect(s.context.usingDefaults).toBe(false);
          expect(s.matches(prev.context.companyInfo ? 'ready' : 'loadingCompanyInfo')).toBe(true);
          break;
        case 'xstate.error.actor.fetchLookAndFeel':
          if (e.error!.status === 'no status') {
            expect(s.hasTag('failed')).toBe(true);
          } else {
            // built-in defaults of spec §3
            expect(s.hasTag('failed')).toBe(false);
            expect(s.context.usingDefaults).toBe(true);
            expect(s.context.language).toBe('da');
            expect(s.context.lookAndFeel!.siteFrontPage.showVerbalOption).toBe(true);
            expect(s.context.lookAndFeel!.siteFrontPage.showBookingOption).toBe(true);
            expect(s.context.lookAndFeel!.siteColors).toEqual({ primaryColorCode: '#172a55', secondaryColorCode: '#ecf1f5', infoColorCode: '#ffffff' });
          }
          break;
        case 'xstate.done.actor.fetchCompanyInfo':
          expect(s.matches('ready')).toBe(true);
          expect(s.context.companyInfo).toBe(e.output);
          break;
        case 'xstate.error.actor.fetchCompanyInfo': {
          const fatal = e.error!.status === 'no status' || e.error!.status === 404 || e.error!.status === 500;
          expect(s.hasTag('failed')).toBe(fatal);
          if (!fatal) expect(s.context.companyInfo).toEqual({ protectionOfficers: [], subsidiaries: [] });
          break;
        }
      }
    }
    // The same path through the TestModel API (createTestModel's `testPath`):
    // every state it reaches satisfies the tag invariants.
    let checked = 0;
    const tagsAre = (tags: string[]) => (snap: AnyMachineSnapshot) => {
      checked++;
      expect([...snap.tags].sort()).toEqual(tags);
    };
    await testModel.testPath(path, {
      states: {
        loadingLookAndFeel: tagsAre(['loading']),
        loadingCompanyInfo: tagsAre(['loading', 'themed']),
        ready: tagsAre(['themed']),
        failed: tagsAre(['failed']),
      },
    });
    expect(checked).toBe(path.steps.length); // every state along the path was checked
    h.actor.stop();
  });

  it('company info is loaded once: a language change only reloads the look and feel', async () => {
    const h = harness({ language: 'da' });
    h.lafCalls[0]!.resolve({ ...DEFAULT_LOOK_AND_FEEL, languageCode: 'da' });
    await flush();
    h.infoCalls[0]!.resolve({ protectionOfficers: [], subsidiaries: [] });
    await flush();
    h.actor.send({ type: 'language.change', language: 'pl' });
    h.lafCalls[1]!.resolve({ ...DEFAULT_LOOK_AND_FEEL, languageCode: 'pl' });
    await flush();
    expect(h.actor.getSnapshot().value).toBe('ready');
    expect(h.actor.getSnapshot().context.language).toBe('pl');
    expect(h.infoCalls).toHaveLength(1);
    expect(h.lafCalls).toHaveLength(2);
    h.actor.stop();
  });

  it('first visit in a language the company does not offer: the company default language (spec §1)', async () => {
    const h = harness({ language: 'pl' });
    // The first request lets the company answer in its default language…
    expect(h.lafCalls[0]!.input).toEqual({ language: 'pl', orDefault: true });
    h.lafCalls[0]!.resolve({ ...DEFAULT_LOOK_AND_FEEL, languageCode: 'en', defaultLanguage: 'en' });
    await flush();
    // …and that answer sets the display language, not the built-in da.
    expect(h.actor.getSnapshot().context.language).toBe('en');
    expect(h.actor.getSnapshot().context.requested).toBe('en');
    expect(h.actor.getSnapshot().context.usingDefaults).toBe(false);
    // A language the reporter picks is asked for as it is.
    h.actor.send({ type: 'language.change', language: 'da' });
    expect(h.lafCalls[1]!.input).toEqual({ language: 'da', orDefault: false });
    h.actor.stop();
  });

  it('keeps the previous display language until the new look and feel answers', async () => {
    const h = harness({ language: 'da' });
    h.lafCalls[0]!.resolve({ ...DEFAULT_LOOK_AND_FEEL, languageCode: 'da' });
    await flush();
    h.actor.send({ type: 'language.change', language: 'se' });
    expect(h.actor.getSnapshot().context.language).toBe('da');
    expect(h.actor.getSnapshot().context.requested).toBe('se');
    h.actor.stop();
  });
});
