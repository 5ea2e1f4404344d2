/** Walks every transition of the identity form and replays each path on a running actor. */
import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { identityErrors, identityFormMachine, type WhistleblowerDto } from '../../machines/identityForm.ts';
import model from './identityForm.model.ts';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage, expectInvariantOnShortestPaths } from './expect.ts';

const paths = modelPaths(model);
const replayOptions = {
  promiseActors: ['updateWhistleblower', 'requestPasswordUpdate'],
  recordActions: ['reloadCase', 'reportUnauthorized', 'logOut'],
  input: model.input,
};

describe('identity form model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it('holds its invariants on every createTestModel path', async () => {
    await expectInvariantOnShortestPaths(model, (s) => {
      // Only a valid form is ever being saved.
      if (s.matches({ form: 'saving' })) expect(identityErrors(s.context)).toEqual([]);
    });
  });

  it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
    await replayPath(identityFormMachine, path, replayOptions, (h, step, prev) => {
      const s = step.state as AnyMachineSnapshot;
      if (step.event.type === 'identity.save') {
        const valid = identityErrors(prev.context).length === 0;
        expect(s.matches({ form: 'saving' })).toBe(valid);
        expect(s.matches({ form: { editing: 'invalid' } })).toBe(!valid);
        const sent = h.inputs.get('updateWhistleblower') ?? [];
        if (valid) expect((sent.at(-1) as WhistleblowerDto).name).toBe(prev.context.name.trim());
      }
      if (s.matches({ password: 'requested' })) {
        expect(h.actionLog.filter((a) => a === 'logOut')).toHaveLength(1);
        if (step.event.type === 'xstate.done.actor.requestPasswordUpdate') expect(h.actionLog.at(-1)).toBe('logOut');
      } else expect(h.actionLog).not.toContain('logOut');
    });
  });

  it('applies the spec §5 validity table', () => {
    const base = { name: 'Ada', email: '', phone: '', phoneCountryCode: 'dk', phoneValid: false, notification: false, nameLocked: false };
    expect(identityErrors(base)).toEqual([]);
    expect(identityErrors({ ...base, name: '  ' })).toEqual(['name']);
    expect(identityErrors({ ...base, email: 'a@b.dk' })).toEqual([]);
    expect(identityErrors({ ...base, email: 'a@' })).toEqual(['email']);
    expect(identityErrors({ ...base, phone: '+4512345678', phoneValid: true })).toEqual([]);
    expect(identityErrors({ ...base, phone: '+4512345678', phoneValid: false })).toEqual(['phone']);
    expect(identityErrors({ ...base, phone: '+4512345678', phoneValid: true, email: 'x' })).toEqual(['email']);
    expect(identityErrors({ ...base, phone: '+45', phoneValid: true, email: 'a@b.dk' })).toEqual(['phone']);
  });

  it('keeps an existing name: name.change is refused once a name is set', () => {
    const actor = createActor(identityFormMachine, { input: { whistleblower: { name: 'Ada Lovelace', email: 'ada@example.com' } } }).start();
    actor.send({ type: 'name.change', value: 'Someone Else' });
    expect(actor.getSnapshot().context.name).toBe('Ada Lovelace');
    expect(actor.getSnapshot().can({ type: 'name.change', value: 'x' })).toBe(false);
    const open = createActor(identityFormMachine, { input: { whistleblower: null } }).start();
    expect(open.getSnapshot().can({ type: 'name.change', value: 'x' })).toBe(true);
  });
});
