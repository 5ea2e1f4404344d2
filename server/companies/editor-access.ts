/**
 * Who may use the company editor's routes: the operator for any company, a company's
 * administrator (signed in to the workspace, never by API token) for their own; any
 * other company answers 404 as if it did not exist (docs/decisions/company-editor.md).
 * The decision is the roles module's (server/security/roles.ts `authorize`); this only
 * finds the company and names the caller for the version list and the trail.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { actorOf, authorize } from '../security/roles.ts';
import { findCompany } from '../routes/admin.ts';
import type { Company } from './service.ts';
import type { AdministrationActor } from './trail.ts';

export interface EditorCaller {
  actor: AdministrationActor;
  /** Only the operator changes a company's host names. */
  isOperator: boolean;
}

/** `company`: the route's `:company`, an id or one of the company's host names. */
export async function editorCaller(ctx: AppContext, req: FastifyRequest, company: string): Promise<{ caller: EditorCaller; company: Company }> {
  await authorize(ctx, req, 'admin');
  const found = /^[\w.:[\]-]{1,253}$/.test(company) ? await findCompany(ctx, company) : null;
  if (!found) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company has the host name or id "${company.slice(0, 253)}".`, 'company');
  const p = await authorize(ctx, req, 'admin', { companyId: found.id });
  return { caller: { actor: actorOf(p), isOperator: p.roles.operator }, company: found };
}
