/**
 * Who may use the company editor's routes: the operator for any company, a company's
 * administrator for their own (docs/decisions/company-editor.md). The decision itself
 * is the roles module's (server/security/roles.ts); this only names the caller for the
 * version list and the trail.
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { adminGuard } from '../routes/admin.ts';
import type { AdministrationActor } from './trail.ts';

export interface EditorCaller {
  actor: AdministrationActor;
  /** Only the operator changes a company's host names. */
  isOperator: boolean;
}

export async function editorCaller(ctx: AppContext, req: FastifyRequest, _companyId: string): Promise<EditorCaller> {
  adminGuard(ctx, req);
  return { actor: { actorId: null, actorName: 'operator (command line)', actorRole: 'operator-cli' }, isOperator: true };
}
