/** Model of the administrator's accounts screen: every answer of every call, every act through its confirmation, tokens and trail. */
import type { EventObject } from 'xstate';
import { accountsMachine } from '../../machines/admin/accounts.ts';
import type { MachineModel } from './harness.ts';

export const adminAccounts = [
  { id: 'a1', name: 'Hans', email: 'hans@acme.test', officers: [], roles: { admin: false, handler: true }, enrolled: true, lastSignInAt: null, state: 'active', enrolmentExpiresAt: null, activeSessions: 1, activeTokens: 1 },
  { id: 'a2', name: 'Dora', email: 'dora@acme.test', officers: ['o1'], roles: { admin: false, handler: true }, enrolled: true, lastSignInAt: null, state: 'disabled', enrolmentExpiresAt: null, activeSessions: 0, activeTokens: 0 },
];
const tokens = [
  { id: 't1', label: 'script', madeBy: 'handler', createdAt: '2026-12-01T00:00:00.000Z', expiresAt: '2027-03-01T00:00:00.000Z', lastUsedAt: null, state: 'active' },
  { id: 't2', label: 'old', madeBy: 'operator', createdAt: '2026-09-01T00:00:00.000Z', expiresAt: '2026-11-30T00:00:00.000Z', lastUsedAt: null, state: 'expired' },
];

const answers = (id: string, extra: (EventObject & Record<string, unknown>)[] = []): (EventObject & Record<string, unknown>)[] => [
  { type: `xstate.done.actor.${id}`, output: { status: 401 } },
  { type: `xstate.done.actor.${id}`, output: { status: 500 } },
  { type: `xstate.error.actor.${id}`, error: 'network' },
  ...extra,
];

export const accountsEvents: (EventObject & Record<string, unknown>)[] = [
  { type: 'xstate.done.actor.loadAccounts', output: { status: 200, accounts: adminAccounts, officers: [{ id: 'o1', name: 'Officer 1' }], mail: false } },
  ...answers('loadAccounts'),
  { type: 'reload' },
  { type: 'invite.open' },
  { type: 'invite.change', field: 'name', value: 'Nina' },
  { type: 'invite.change', field: 'email', value: 'nina@acme.test' },
  { type: 'invite.admin', value: true },
  { type: 'invite.officer', officerId: 'o1', value: true },
  { type: 'invite.officer', officerId: 'nobody', value: true },
  { type: 'invite.submit' },
  { type: 'invite.cancel' },
  { type: 'xstate.done.actor.inviteAccount', output: { status: 201, enrolmentLink: 'https://acme.test/handler/enrol#x', mailed: false } },
  ...answers('inviteAccount', [{ type: 'xstate.done.actor.inviteAccount', output: { status: 409, code: 'EMAIL_TAKEN' } }]),
  { type: 'link.dismiss' },
  { type: 'act.choose', accountId: 'a1', act: 'disable' },
  { type: 'act.choose', accountId: 'a1', act: 'reset' },
  { type: 'act.choose', accountId: 'a2', act: 'disable' },
  { type: 'act.confirm' },
  { type: 'act.cancel' },
  { type: 'xstate.done.actor.runAct', output: { status: 200, enrolmentLink: null, mailed: true } },
  ...answers('runAct'),
  { type: 'tokens.open', accountId: 'a1' },
  { type: 'tokens.open', accountId: 'nobody' },
  { type: 'xstate.done.actor.loadTokens', output: { status: 200, tokens } },
  ...answers('loadTokens'),
  { type: 'token.revoke', tokenId: 't1' },
  { type: 'token.revoke', tokenId: 't2' },
  { type: 'xstate.done.actor.revokeToken', output: { status: 200 } },
  ...answers('revokeToken'),
  { type: 'tokens.close' },
  { type: 'trail.open' },
  { type: 'xstate.done.actor.loadTrail', output: { status: 200, entries: [] } },
  ...answers('loadTrail'),
  { type: 'trail.close' },
];

export default {
  name: 'adminAccounts',
  machine: accountsMachine,
  events: accountsEvents,
  serializeState: ((s: { value: unknown; context: { invite: { name: string; email: string; admin: boolean; officers: string[] }; act: string | null; accountId: string | null; problem: string | null; link: unknown; accounts: unknown[] } }) =>
    JSON.stringify([s.value, s.context.invite, s.context.act, s.context.accountId, s.context.problem, !!s.context.link, s.context.accounts.length])) as never,
} satisfies MachineModel;
