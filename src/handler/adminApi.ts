/**
 * The administration's calls (docs/decisions/administration.md "Routes"), as the
 * effects machines/admin/ names. Every answer comes back as `{ status, … }` so the
 * charts decide, never this file.
 */
import { ApiError, type ApiClient } from '../api/client.ts';
import type { AccountAct, AccountsAnswer, Invite, LinkAnswer, TokensAnswer, TrailAnswer } from '../../machines/admin/accounts.ts';
import type { CompaniesAnswer, NewCompany, NewCompanyAnswer } from '../../machines/admin/operator.ts';

async function call<T>(run: () => Promise<T>, ok = 200): Promise<{ status: number; data?: T; code?: string; message?: string }> {
  try {
    return { status: ok, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
}

const seg = encodeURIComponent;

export function adminApi(api: ApiClient, companyId: () => string) {
  const base = () => `/api/admin/companies/${seg(companyId())}`;
  return {
    loadAccounts: async (): Promise<AccountsAnswer> => {
      const r = await call(() => api.json<Omit<AccountsAnswer, 'status'>>(`${base()}/accounts`));
      return { status: r.status, ...r.data };
    },
    inviteAccount: async (invite: Invite): Promise<LinkAnswer> => {
      const r = await call(() => api.json<{ enrolmentLink: string | null; mailed: boolean }>(`${base()}/accounts`, { method: 'POST', body: { ...invite, handler: true } }), 201);
      return { status: r.status, code: r.code, ...r.data };
    },
    runAct: async ({ accountId, act }: { accountId: string; act: AccountAct }): Promise<LinkAnswer> => {
      const p = `${base()}/accounts/${seg(accountId)}`;
      const r =
        act === 'remove'
          ? await call(() => api.json<null>(p, { method: 'DELETE' }))
          : act === 'reset'
            ? await call(() => api.json<{ enrolmentLink: string | null; mailed: boolean }>(`${p}/reset`, { method: 'POST', body: { what: 'secondFactor' } }))
            : await call(() => api.json<unknown>(`${p}/${act === 'endSessions' ? 'sessions/end' : act}`, { method: 'POST' }));
      const data = (r.data ?? {}) as { enrolmentLink?: string | null; mailed?: boolean };
      return { status: r.status, code: r.code, enrolmentLink: data.enrolmentLink, mailed: data.mailed };
    },
    loadTokens: async ({ accountId }: { accountId: string }): Promise<TokensAnswer> => {
      const r = await call(() => api.json<Omit<TokensAnswer, 'status'>>(`${base()}/accounts/${seg(accountId)}/tokens`));
      return { status: r.status, ...r.data };
    },
    revokeToken: async ({ accountId, tokenId }: { accountId: string; tokenId: string }) => {
      const r = await call(() => api.json(`${base()}/accounts/${seg(accountId)}/tokens/${seg(tokenId)}`, { method: 'DELETE' }));
      return { status: r.status };
    },
    loadTrail: async (): Promise<TrailAnswer> => {
      const r = await call(() => api.json<Omit<TrailAnswer, 'status'>>(`${base()}/trail`));
      return { status: r.status, ...r.data };
    },
    loadCompanies: async (): Promise<CompaniesAnswer> => {
      const r = await call(() => api.json<Omit<CompaniesAnswer, 'status'>>('/api/admin/companies'));
      return { status: r.status, ...r.data };
    },
    /** Imports the company file (refused when its id is taken: this creates, it does not replace), then makes its first administrator. */
    createCompany: async (c: NewCompany): Promise<NewCompanyAnswer> => {
      const list = await call(() => api.json<{ companies: { id: string }[] }>('/api/admin/companies'));
      if (list.data?.companies.some((x) => x.id === c.file.id)) return { status: 409, code: 'COMPANY_EXISTS' };
      const imported = await call(() => api.json<{ id: string; created: boolean }>('/api/admin/companies', { method: 'POST', body: { file: c.file, assets: c.assets } }));
      if (imported.status !== 200) return { status: imported.status, code: imported.code, field: imported.message };
      const id = imported.data!.id;
      const admin = await call(() => api.json<{ enrolmentLink: string | null }>('/api/admin/handlers', { method: 'POST', body: { company: id, name: c.adminName, email: c.adminEmail, admin: true, handler: false, token: false } }), 201);
      if (admin.status !== 201) return { status: admin.status, code: admin.code };
      return { status: 201, companyId: id, enrolmentLink: admin.data!.enrolmentLink };
    },
  };
}

export type AdminApi = ReturnType<typeof adminApi>;
