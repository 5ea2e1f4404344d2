/**
 * The administration's machines (issue 39): every model path replayed on a running
 * actor with simulated actors, each machine's invariants checked at every step.
 */
import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot } from 'xstate';
import { replayPath } from './session.kit.ts';
import { describePath, modelPaths, type MachineModel } from './harness.ts';
import { expectFullCoverage } from './expect.ts';
import accounts from './adminAccounts.model.ts';
import operator from './operatorCompanies.model.ts';
import { actsFor, isInviteComplete } from '../../machines/admin/accounts.ts';
import { isNewCompanyComplete, parseCompanyFile } from '../../machines/admin/operator.ts';

type Check = (s: AnyMachineSnapshot, event: { type: string }, before: AnyMachineSnapshot, actions: string[]) => void;

const suites: [MachineModel, string[], string[], Check][] = [
  [
    accounts,
    ['loadAccounts', 'inviteAccount', 'runAct', 'loadTokens', 'revokeToken', 'loadTrail'],
    ['reportUnauthorized'],
    (s, e, before, actions) => {
      if (s.matches('acting')) {
        expect(before.matches('confirming')).toBe(true);
        expect(s.context.act).not.toBeNull();
        const a = s.context.accounts.find((x: { id: string }) => x.id === s.context.accountId);
        expect(actsFor(a).includes(s.context.act)).toBe(true);
      }
      if (s.matches('sendingInvite')) expect(isInviteComplete(before.context.invite)).toBe(true);
      if (!s.matches('showingLink')) expect(s.context.link).toBeNull();
      if (s.matches('failed') && e.type.startsWith('xstate.done.actor.') && (e as unknown as { output: { status: number } }).output.status === 401) expect(actions.at(-1)).toBe('reportUnauthorized');
      if (s.context.invite.officers.length) expect(s.context.invite.officers.every((o: string) => s.context.officers.some((x: { id: string }) => x.id === o))).toBe(true);
    },
  ],
  [
    operator,
    ['loadCompanies', 'createCompany'],
    ['reportUnauthorized'],
    (s, e, before, actions) => {
      if (s.matches('creating')) expect(isNewCompanyComplete(before.context)).toBe(true);
      if (!s.matches('showingLink')) expect(s.context.link).toBeNull();
      if (e.type === 'xstate.done.actor.createCompany' && s.matches('editing')) {
        expect(s.context.adminEmail).toBe(before.context.adminEmail);
        expect(s.context.file).toEqual(before.context.file);
      }
      if (s.matches('failed') && e.type.startsWith('xstate.done.actor.') && (e as unknown as { output: { status: number } }).output.status === 401) expect(actions.at(-1)).toBe('reportUnauthorized');
    },
  ],
];

for (const [model, promiseActors, recordActions, check] of suites) {
  describe(`${model.name} model`, () => {
    const paths = modelPaths(model);
    it('walks every state and every transition', () => expectFullCoverage(model, paths));
    it.each(paths.map((p) => [describePath(p), p] as const))('%s', async (_d, path) => {
      await replayPath(model.machine, path, { promiseActors, recordActions, input: model.input }, (h, step, before) => check(step.state, step.event, before, h.actionLog));
    });
  });
}

describe('administration helpers', () => {
  it('offers enable only to a disabled account, reset only with an address, ending sessions only when there are some', () => {
    expect(actsFor({ state: 'active', email: 'a@b.test', activeSessions: 0 })).toEqual(['disable', 'reset', 'remove']);
    expect(actsFor({ state: 'disabled', email: null, activeSessions: 2 })).toEqual(['enable', 'endSessions', 'remove']);
  });
  it('an invitation needs a name and an address; a company needs a JSON object and its administrator', () => {
    expect(isInviteComplete({ name: ' ', email: 'a@b.test', officers: [], admin: false })).toBe(false);
    expect(isInviteComplete({ name: 'A', email: 'not an address', officers: [], admin: false })).toBe(false);
    expect(isInviteComplete({ name: 'A', email: 'a@b.test', officers: [], admin: false })).toBe(true);
    expect(parseCompanyFile('[]')).toBeNull();
    expect(parseCompanyFile('{"id":"x"}')).toEqual({ id: 'x' });
    expect(isNewCompanyComplete({ file: { id: 'x' }, adminName: 'A', adminEmail: 'a@b.test' })).toBe(true);
    expect(isNewCompanyComplete({ file: null, adminName: 'A', adminEmail: 'a@b.test' })).toBe(false);
  });
});
