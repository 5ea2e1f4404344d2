/** Walks every transition of the identity form and replays each path on a running actor. */
import { describe, expect, it } from 'vitest';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { identityErrors, identityFormMachine, notifyErrors, type NotifyWish, type WhistleblowerDto } from '../../machines/identityForm.ts';
import model from './identityForm.model.ts';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths } from './harness.ts';
import { expectFullCoverage } from './expect.ts';

const paths = modelPaths(model);
const replayOptions = {
  promiseActors: ['updateWhistleblower', 'requestPasswordUpdate', 'changeNotification'],
  recordActions: ['reloadCase', 'reportUnauthorized', 'logOut'],
  input: model.input,
};

describe('identity form model', () => {
  it('walks every state and every transition', () => {
    expectFullCoverage(model, paths);
  });

  it('holds its invariants on every state of every path', () => {
    // The model's paths (its filter walks the regions one at a time; createTestModel would multiply them).
    for (const p of paths) {
      for (const { state: s } of p.steps) {
        // Only a valid form is ever being saved.
        if (s.matches({ form: 'saving' })) expect(identityErrors(s.context)).toEqual([]);
        // Notification is turned on only with a valid address typed here.
        if (s.matches({ notify: 'saving' })) expect(notifyErrors(s.context)).toEqual([]);
      }
    }
    expect(paths.some((p) => p.steps.some((st) => st.state.matches({ notify: 'saving' })))).toBe(true);
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
      if (step.event.type === 'notify.save') {
        const valid = notifyErrors(prev.context).length === 0;
        expect(s.matches({ notify: 'saving' })).toBe(valid);
        expect(s.matches({ notify: { editing: 'invalid' } })).toBe(!valid);
        const sent = (h.inputs.get('changeNotification') ?? []).at(-1) as NotifyWish | undefined;
        // Off sends no address; on sends the one typed.
        if (valid) expect(sent).toEqual({ on: prev.context.notifyWanted, address: prev.context.notifyWanted ? prev.context.notifyAddress.trim() : '' });
      }
      if (step.event.type === 'xstate.done.actor.changeNotification') {
        const ok = (step.event as unknown as { output: { status: number } }).output.status === 200;
        // What the page says is stored follows the server's 200 only; the typed address is forgotten then.
        expect(s.context.notifyStored).toBe(ok ? prev.context.notifyWanted : prev.context.notifyStored);
        if (ok) expect(s.context.notifyAddress).toBe('');
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

  it('starts a sealed case with the stored wish, and asks for the address again to turn it on', () => {
    const actor = createActor(identityFormMachine, { input: { whistleblower: null, notifyStored: true } }).start();
    expect([actor.getSnapshot().context.notifyStored, actor.getSnapshot().context.notifyWanted, actor.getSnapshot().context.notifyAddress]).toEqual([true, true, '']);
    expect(notifyErrors(actor.getSnapshot().context)).toEqual(['notifyAddress']);
    expect(notifyErrors({ notifyWanted: false, notifyAddress: '' })).toEqual([]);
    expect(notifyErrors({ notifyWanted: true, notifyAddress: ' rosa@example.org ' })).toEqual([]);
    expect(createActor(identityFormMachine, { input: { whistleblower: null } }).start().getSnapshot().context.notifyWanted).toBe(false);
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
