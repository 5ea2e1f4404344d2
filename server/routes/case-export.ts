/**
 * POST /api/handler/cases/:caseNumber/exports (issue 38; docs/decisions/case-export.md):
 * the handler's browser makes a case's export from what the page opened; before it
 * does, it says so here, and the server records the act in the case's audit trail:
 * which parts, whether the identity is in it, how many terms are blacked out. No
 * content comes or goes: the server never makes nor sees an export. The same for a
 * server-keyed case (the entry sealed under its key) and a sealed one (in clear).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { caseExportDtoSchema } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { appendAudit, findVisibleCase, type HandlerIdentity } from '../handlers/cases.ts';
import { parseOr400 } from './parse.ts';

export function registerCaseExportRoutes(app: FastifyInstance, ctx: AppContext, who: (req: FastifyRequest) => Promise<HandlerIdentity>) {
  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/exports', async (req, reply) => {
    const h = await who(req);
    // Officer scoping and tenancy in the one place (findVisibleCase): anything else is 404 CASE_NOT_FOUND.
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const dto = parseOr400(caseExportDtoSchema, req.body ?? {}, 'body');
    // A sealed case's entry is written in clear (appendAudit): the parts, two flags and a
    // count are enums and numbers the server learns by serving this request, no content.
    await appendAudit(ctx, h, row, 'CASE_EXPORTED', {
      parts: dto.parts.join(','),
      identity: dto.parts.includes('identity'),
      redacted: dto.redactedTerms > 0,
      redactedTerms: dto.redactedTerms,
    });
    return reply.code(201).header('cache-control', 'no-store').send({ recorded: true });
  });
}
