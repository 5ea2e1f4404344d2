/**
 * A company administrator's accounts screen (issue 39; docs/decisions/administration.md):
 * the list (name, e-mail, officers, enrolled, last sign-in, state), inviting a handler,
 * the acts on one account (disable, enable, reset the second factor, end its sessions,
 * remove) each through a confirmation, an account's API tokens with revoking, and the
 * administration trail.
 *
 * Invariants:
 * - An act is run only from `confirming`, for the account and act that were confirmed.
 * - An invitation is sent only with a name and a well-formed e-mail (the shared schema).
 * - An enrolment link (invitation or reset without mail) lives only in `showingLink`
 *   and is dropped when it is left: it is shown once.
 * - A 401 anywhere reports `reportUnauthorized` (the session chart signs out) and ends
 *   `failed`; other failures keep the screen and say so.
 */
import * as v from 'valibot';
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { emailSchema } from '../schema.ts';

export type AccountState = 'invited' | 'active' | 'disabled' | 'expired';

export interface AdminAccount {
  id: string;
  name: string;
  email: string | null;
  officers: string[];
  roles: { admin: boolean; handler: boolean };
  enrolled: boolean;
  lastSignInAt: string | null;
  state: AccountState;
  enrolmentExpiresAt: string | null;
  activeSessions: number;
  activeTokens: number;
}

export interface AdminToken {
  id: string;
  label: string;
  madeBy: 'handler' | 'operator';
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  state: 'active' | 'expired' | 'revoked';
}

export interface TrailEntry {
  id: string;
  at: string;
  actor: { id: string | null; name: string; role: string };
  action: string;
  target: { id: string; name: string | null } | null;
}

export interface AccountsAnswer {
  status: number;
  accounts?: AdminAccount[];
  officers?: { id: string; name: string }[];
  mail?: boolean;
}

/** An invitation's or a reset's answer. */
export interface LinkAnswer {
  status: number;
  code?: string;
  enrolmentLink?: string | null;
  mailed?: boolean;
}

export interface TokensAnswer {
  status: number;
  tokens?: AdminToken[];
}

export interface TrailAnswer {
  status: number;
  entries?: TrailEntry[];
}

export type AccountAct = 'disable' | 'enable' | 'reset' | 'endSessions' | 'remove';

export interface Invite {
  name: string;
  email: string;
  officers: string[];
  admin: boolean;
}

export interface AccountsContext {
  accounts: AdminAccount[];
  officers: { id: string; name: string }[];
  mail: boolean;
  invite: Invite;
  /** The account an act, its tokens or a confirmation is about. */
  accountId: string | null;
  act: AccountAct | null;
  link: { url: string | null; mailed: boolean; email: string } | null;
  tokens: AdminToken[];
  trail: TrailEntry[];
  /** Why the last call failed, as a message key suffix; null after a success. */
  problem: 'taken' | 'failed' | null;
}

export type AccountsEvent =
  | { type: 'reload' }
  | { type: 'invite.open' }
  | { type: 'invite.change'; field: 'name' | 'email'; value: string }
  | { type: 'invite.admin'; value: boolean }
  | { type: 'invite.officer'; officerId: string; value: boolean }
  | { type: 'invite.submit' }
  | { type: 'invite.cancel' }
  | { type: 'link.dismiss' }
  | { type: 'act.choose'; accountId: string; act: AccountAct }
  | { type: 'act.confirm' }
  | { type: 'act.cancel' }
  | { type: 'tokens.open'; accountId: string }
  | { type: 'tokens.close' }
  | { type: 'token.revoke'; tokenId: string }
  | { type: 'trail.open' }
  | { type: 'trail.close' };

const out = <T>(event: unknown) => (event as DoneActorEvent<T>).output;
const EMPTY_INVITE: Invite = { name: '', email: '', officers: [], admin: false };

/** Whether the invitation may be sent: a name and an address the shared schema accepts. */
export function isInviteComplete(invite: Invite): boolean {
  return invite.name.trim() !== '' && invite.name.trim().length <= 200 && v.is(emailSchema, invite.email);
}

/** Which acts an account in this state offers (the view's buttons, the chart's guard). */
export function actsFor(a: Pick<AdminAccount, 'state' | 'email' | 'activeSessions'>): AccountAct[] {
  const acts: AccountAct[] = [];
  if (a.state === 'disabled') acts.push('enable');
  else acts.push('disable');
  if (a.email) acts.push('reset');
  if (a.activeSessions > 0) acts.push('endSessions');
  acts.push('remove');
  return acts;
}

export const accountsMachine = setup({
  types: {} as { context: AccountsContext; events: AccountsEvent },
  actors: {
    loadAccounts: fromPromise<AccountsAnswer, void>(async () => {
      throw new Error('loadAccounts not provided');
    }),
    inviteAccount: fromPromise<LinkAnswer, Invite>(async () => {
      throw new Error('inviteAccount not provided');
    }),
    runAct: fromPromise<LinkAnswer, { accountId: string; act: AccountAct }>(async () => {
      throw new Error('runAct not provided');
    }),
    loadTokens: fromPromise<TokensAnswer, { accountId: string }>(async () => {
      throw new Error('loadTokens not provided');
    }),
    revokeToken: fromPromise<{ status: number }, { accountId: string; tokenId: string }>(async () => {
      throw new Error('revokeToken not provided');
    }),
    loadTrail: fromPromise<TrailAnswer, void>(async () => {
      throw new Error('loadTrail not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignAccounts: assign(({ event }) => {
      const a = out<AccountsAnswer>(event);
      return { accounts: a.accounts ?? [], officers: a.officers ?? [], mail: a.mail ?? false };
    }),
    resetInvite: assign({ invite: EMPTY_INVITE, problem: null }),
    assignInviteField: assign({
      invite: ({ context, event }) => (event.type === 'invite.change' ? { ...context.invite, [event.field]: event.value.slice(0, 254) } : context.invite),
    }),
    assignInviteAdmin: assign({ invite: ({ context, event }) => (event.type === 'invite.admin' ? { ...context.invite, admin: event.value } : context.invite) }),
    assignInviteOfficer: assign({
      invite: ({ context, event }) => {
        if (event.type !== 'invite.officer' || !context.officers.some((o) => o.id === event.officerId)) return context.invite;
        const rest = context.invite.officers.filter((o) => o !== event.officerId);
        return { ...context.invite, officers: event.value ? [...rest, event.officerId] : rest };
      },
    }),
    assignInviteLink: assign(({ context, event }) => {
      const a = out<LinkAnswer>(event);
      return { link: { url: a.enrolmentLink ?? null, mailed: a.mailed ?? false, email: context.invite.email.trim().toLowerCase() }, invite: EMPTY_INVITE, problem: null };
    }),
    assignResetLink: assign(({ context, event }) => {
      const a = out<LinkAnswer>(event);
      const email = context.accounts.find((x) => x.id === context.accountId)?.email ?? '';
      return { link: { url: a.enrolmentLink ?? null, mailed: a.mailed ?? false, email }, problem: null };
    }),
    dropLink: assign({ link: null }),
    assignAct: assign({
      accountId: ({ event, context }) => (event.type === 'act.choose' ? event.accountId : context.accountId),
      act: ({ event, context }) => (event.type === 'act.choose' ? event.act : context.act),
    }),
    clearAct: assign({ act: null }),
    assignTokensAccount: assign({ accountId: ({ event, context }) => (event.type === 'tokens.open' ? event.accountId : context.accountId), tokens: [] }),
    assignTokens: assign({ tokens: ({ event }) => out<TokensAnswer>(event).tokens ?? [] }),
    assignTrail: assign({ trail: ({ event }) => out<TrailAnswer>(event).entries ?? [] }),
    markTaken: assign({ problem: 'taken' as const }),
    markFailed: assign({ problem: 'failed' as const }),
    clearProblem: assign({ problem: null }),
  },
  guards: {
    isOk: ({ event }) => out<{ status: number }>(event).status === 200,
    isCreated: ({ event }) => out<{ status: number }>(event).status === 201,
    isUnauthorizedAnswer: ({ event }) => out<{ status: number }>(event).status === 401,
    isTaken: ({ event }) => out<LinkAnswer>(event).status === 409,
    isInviteComplete: ({ context }) => isInviteComplete(context.invite),
    isOfferedAct: ({ context, event }) => {
      if (event.type !== 'act.choose') return false;
      const a = context.accounts.find((x) => x.id === event.accountId);
      return !!a && actsFor(a).includes(event.act);
    },
    isKnownAccount: ({ context, event }) => event.type === 'tokens.open' && context.accounts.some((x) => x.id === event.accountId),
    isResetWithLink: ({ context, event }) => context.act === 'reset' && out<LinkAnswer>(event).status === 200,
    isRevocable: ({ context, event }) => event.type === 'token.revoke' && context.tokens.some((t) => t.id === event.tokenId && t.state === 'active'),
  },
}).createMachine({
  id: 'adminAccounts',
  initial: 'loading',
  context: { accounts: [], officers: [], mail: false, invite: EMPTY_INVITE, accountId: null, act: null, link: null, tokens: [], trail: [], problem: null },
  states: {
    loading: {
      invoke: {
        id: 'loadAccounts',
        src: 'loadAccounts',
        onDone: [
          { guard: 'isOk', target: 'ready', actions: 'assignAccounts' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    ready: {
      on: {
        reload: 'loading',
        'invite.open': { target: 'inviting', actions: 'resetInvite' },
        'act.choose': { guard: 'isOfferedAct', target: 'confirming', actions: ['assignAct', 'clearProblem'] },
        'tokens.open': { guard: 'isKnownAccount', target: 'loadingTokens', actions: 'assignTokensAccount' },
        'trail.open': 'loadingTrail',
      },
    },
    inviting: {
      on: {
        'invite.change': { actions: 'assignInviteField' },
        'invite.admin': { actions: 'assignInviteAdmin' },
        'invite.officer': { actions: 'assignInviteOfficer' },
        'invite.submit': { guard: 'isInviteComplete', target: 'sendingInvite' },
        'invite.cancel': { target: 'ready', actions: 'resetInvite' },
      },
    },
    sendingInvite: {
      invoke: {
        id: 'inviteAccount',
        src: 'inviteAccount',
        input: ({ context }) => ({ ...context.invite, name: context.invite.name.trim(), email: context.invite.email.trim() }),
        onDone: [
          { guard: 'isCreated', target: 'showingLink', actions: 'assignInviteLink' },
          { guard: 'isTaken', target: 'inviting', actions: 'markTaken' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'inviting', actions: 'markFailed' },
        ],
        onError: { target: 'inviting', actions: 'markFailed' },
      },
    },
    /** The invitation or reset is made; its link, when not mailed, is shown here once. */
    showingLink: {
      on: { 'link.dismiss': { target: 'loading', actions: 'dropLink' } },
    },
    confirming: {
      on: {
        'act.confirm': 'acting',
        'act.cancel': { target: 'ready', actions: 'clearAct' },
      },
    },
    acting: {
      invoke: {
        id: 'runAct',
        src: 'runAct',
        input: ({ context }) => ({ accountId: context.accountId!, act: context.act! }),
        onDone: [
          { guard: 'isResetWithLink', target: 'showingLink', actions: ['assignResetLink', 'clearAct'] },
          { guard: 'isOk', target: 'loading', actions: 'clearAct' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'ready', actions: ['markFailed', 'clearAct'] },
        ],
        onError: { target: 'ready', actions: ['markFailed', 'clearAct'] },
      },
    },
    loadingTokens: {
      invoke: {
        id: 'loadTokens',
        src: 'loadTokens',
        input: ({ context }) => ({ accountId: context.accountId! }),
        onDone: [
          { guard: 'isOk', target: 'showingTokens', actions: 'assignTokens' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'ready', actions: 'markFailed' },
        ],
        onError: { target: 'ready', actions: 'markFailed' },
      },
    },
    showingTokens: {
      on: {
        'token.revoke': { guard: 'isRevocable', target: 'revokingToken' },
        'tokens.close': 'loading',
      },
    },
    revokingToken: {
      invoke: {
        id: 'revokeToken',
        src: 'revokeToken',
        input: ({ context, event }) => ({ accountId: context.accountId!, tokenId: event.type === 'token.revoke' ? event.tokenId : '' }),
        onDone: [
          { guard: 'isOk', target: 'loadingTokens' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'showingTokens', actions: 'markFailed' },
        ],
        onError: { target: 'showingTokens', actions: 'markFailed' },
      },
    },
    loadingTrail: {
      invoke: {
        id: 'loadTrail',
        src: 'loadTrail',
        onDone: [
          { guard: 'isOk', target: 'showingTrail', actions: 'assignTrail' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'ready', actions: 'markFailed' },
        ],
        onError: { target: 'ready', actions: 'markFailed' },
      },
    },
    showingTrail: { on: { 'trail.close': 'ready', reload: 'loadingTrail' } },
    failed: { on: { reload: 'loading' } },
  },
});
