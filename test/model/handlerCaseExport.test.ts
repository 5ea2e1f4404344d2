/**
 * The case export's chart (machines/handler/caseExport.ts): every model path replayed on a
 * running actor, its invariants checked at each step.
 */
import { describe, expect, it } from 'vitest';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import model from './handlerCaseExport.model.ts';
import { DEFAULT_PARTS } from '../../machines/handler/caseExport.ts';

describe('handlerCaseExport model', () => {
  const paths = modelPaths(model);
  it('walks every state and every transition', () => expectFullCoverage(model, paths));
  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(model.machine, path, { promiseActors: ['recordExport', 'makeExport'], recordActions: ['reportUnauthorized', 'releaseExport'] }, (h, step, before) => {
      const s = step.state;
      const e = step.event as { type: string; output?: { status: number } };
      // Made only after the server recorded it; recorded only with a part.
      if (s.matches('making')) expect(before.matches('recording') || before.matches('making')).toBe(true);
      if (s.matches('recording') && !before.matches('recording')) expect(before.context.parts.length).toBeGreaterThan(0);
      if (e.type === 'xstate.done.actor.recordExport' && e.output?.status !== 201) expect(s.matches('failed')).toBe(true);
      if (e.type === 'xstate.done.actor.recordExport' && e.output?.status === 401) expect(h.actionLog.at(-1)).toBe('reportUnauthorized');
      // Every opening starts without the identity and without terms.
      if (e.type === 'dialog.open' && s.matches('choosing')) {
        expect(s.context.parts).toEqual(DEFAULT_PARTS);
        expect(s.context.parts).not.toContain('identity');
        expect(s.context.parts).not.toContain('notes');
        expect(s.context.terms).toEqual([]);
      }
      // Terms are clean and unique.
      const lower = s.context.terms.map((t: string) => t.toLocaleLowerCase());
      expect(new Set(lower).size).toBe(lower.length);
      for (const t of s.context.terms) expect(t).toBe(t.trim());
      for (const t of s.context.terms) expect(t).not.toBe('');
      if (s.matches('done')) expect(s.context.made).not.toBeNull();
      else expect(s.context.made).toBeNull();
      if (s.matches('failed')) expect(s.context.failure).not.toBeNull();
      // Leaving a made export releases its links.
      if (before.matches('done') && !s.matches('done')) expect(h.actionLog).toContain('releaseExport');
    });
  });
});
