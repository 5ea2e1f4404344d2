/**
 * Reply templates (issue 38 Build 7, docs/decisions/reply-templates.md): a company's
 * administrators keep them under `/api/admin/companies/:company/templates` (the
 * operator for any company, a company's administrator with a workspace session for
 * their own, any other company 404, as the company editor); its handlers read them at
 * `/api/handler/templates`, always of their own company. Who may is decided by the
 * roles module (server/security/roles.ts) and nowhere else; the company id it yields is
 * the only one the store (server/companies/templates.ts) is asked about.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { authorize } from '../security/roles.ts';
import { IDLE_TIMEOUT_MS } from '../handlers/auth.ts';
import { editorCaller } from '../companies/editor-access.ts';
import { companyById } from '../companies/service.ts';
import { createTemplate, deleteTemplate, listTemplates, updateTemplate } from '../companies/templates.ts';

export function registerTemplateRoutes(app: FastifyInstance, ctx: AppContext) {
  type P = { Params: { company: string } };
  type PT = { Params: { company: string; id: string } };
  const open = (req: FastifyRequest<P>) => editorCaller(ctx, req, req.params.company);

  app.get<P>('/api/admin/companies/:company/templates', async (req) => {
    const { company } = await open(req);
    return listTemplates(ctx.db, company);
  });

  app.post<P>('/api/admin/companies/:company/templates', async (req, reply) => {
    const { caller, company } = await open(req);
    return reply.status(201).send({ template: await createTemplate(ctx.db, company, req.body, caller.actor) });
  });

  app.put<PT>('/api/admin/companies/:company/templates/:id', async (req) => {
    const { caller, company } = await open(req);
    return { template: await updateTemplate(ctx.db, company, req.params.id, req.body, caller.actor) };
  });

  app.delete<PT>('/api/admin/companies/:company/templates/:id', async (req, reply) => {
    const { caller, company } = await open(req);
    await deleteTemplate(ctx.db, company, req.params.id, caller.actor);
    return reply.status(204).send();
  });

  app.get('/api/handler/templates', async (req) => {
    const h = await authorize(ctx, req, 'handler', { idleTimeoutMs: IDLE_TIMEOUT_MS });
    const company = await companyById(ctx.db, h.company_id);
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No such company.');
    return listTemplates(ctx.db, company);
  });
}
