/**
 * The case handlers' API (DESIGN.md §3 "Handlers"): a bearer API token per handler
 * account; a handler sees only the cases of the account's own company, and any
 * other case answers 404 exactly like a case that does not exist.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as v from 'valibot';
import { CASE_STATUSES, LIMITS, MESSAGE_TYPES, normalizeCaseNumber } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { handlerByToken } from '../handlers/accounts.ts';
import { addMessage, buildCaseView, recordReport, setStatus, type CaseRow } from '../cases/service.ts';
import { approvedRecordDocument } from '../cases/record.ts';
import { sendRecordDocument, versionNumber } from './record.ts';
import { sendCaseFile } from './files.ts';
import { discardStaged, receiveUpload } from '../cases/upload.ts';
import { parseJsonPartAs, parseOr400 } from './parse.ts';
import { bindCompany } from '../logging.ts';

export const REPORT_TEXT_MAX = 20_000;
export const HANDLER_MESSAGE_MAX = LIMITS.commentMax;

export const statusSchema = v.object({ status: v.picklist(CASE_STATUSES, `must be one of ${CASE_STATUSES.join(', ')}`) });
export const reportSchema = v.object({
  text: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(REPORT_TEXT_MAX, 'validation.tooLong')),
});
export const handlerMessageSchema = v.object({
  message: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(HANDLER_MESSAGE_MAX, 'validation.tooLong')), ''),
  type: v.optional(v.picklist(MESSAGE_TYPES, `must be one of ${MESSAGE_TYPES.join(', ')}`), 'STANDARD'),
  answerWanted: v.optional(v.boolean(), false),
});

interface Handler {
  id: string;
  company_id: string;
  name: string;
}

async function authenticate(ctx: AppContext, req: FastifyRequest): Promise<Handler> {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  const handler = m ? await handlerByToken(ctx.db, m[1]!) : undefined;
  if (!handler) throw new HttpError(401, 'UNAUTHORIZED', 'A valid handler token is needed: Authorization: Bearer <token>.');
  bindCompany(req, handler.company_id);
  return handler;
}

async function findCase(ctx: AppContext, handler: Handler, caseNumberParam: string): Promise<CaseRow> {
  // Fastify has already decoded the path parameter; decoding again could throw on a stray '%'.
  const caseNumber = normalizeCaseNumber(caseNumberParam);
  const row = /^\d{16}$/.test(caseNumber)
    ? await ctx.db.selectFrom('report_case').selectAll().where('case_number', '=', caseNumber).where('company_id', '=', handler.company_id).executeTakeFirst()
    : undefined;
  if (!row) throw new HttpError(404, 'CASE_NOT_FOUND', 'No such case.');
  return row;
}

export function registerHandlerRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get('/api/handler/me', async (req) => {
    const h = await authenticate(ctx, req);
    return { id: h.id, name: h.name, companyId: h.company_id };
  });

  app.get('/api/handler/cases', async (req) => {
    const h = await authenticate(ctx, req);
    const rows = await ctx.db
      .selectFrom('report_case')
      .select(['case_number', 'status', 'created_at', 'submission_type', 'pending_whistleblower_action', 'approved_at'])
      .where('company_id', '=', h.company_id)
      .orderBy('created_at', 'desc')
      .execute();
    return {
      cases: rows.map((r) => ({
        caseNumber: r.case_number,
        status: r.status,
        created: new Date(r.created_at).toISOString(),
        submission: { type: r.submission_type },
        pendingWhistleblowerAction: r.pending_whistleblower_action,
        approvedAt: r.approved_at ? new Date(r.approved_at).toISOString() : null,
      })),
    };
  });

  app.get<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber', async (req) => {
    const h = await authenticate(ctx, req);
    return buildCaseView(ctx, await findCase(ctx, h, req.params.caseNumber));
  });

  app.get<{ Params: { caseNumber: string; fileId: string } }>('/api/handler/cases/:caseNumber/files/:fileId', async (req, reply) => {
    const h = await authenticate(ctx, req);
    return sendCaseFile(ctx, reply, await findCase(ctx, h, req.params.caseNumber), req.params.fileId);
  });

  app.put<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/status', async (req) => {
    const h = await authenticate(ctx, req);
    const row = await findCase(ctx, h, req.params.caseNumber);
    const { status } = parseOr400(statusSchema, req.body ?? {}, 'body');
    if (status === 'PENDING_WHISTLEBLOWER_CONTACT') {
      throw new HttpError(400, 'VALIDATION', 'A case cannot be moved back to PENDING_WHISTLEBLOWER_CONTACT.', 'status');
    }
    if (status === row.status) throw new HttpError(409, 'STATUS_UNCHANGED', `The case is already ${status}.`, 'status');
    await setStatus(ctx, row.id, status);
    return buildCaseView(ctx, { ...row, status });
  });

  app.put<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/report', async (req) => {
    const h = await authenticate(ctx, req);
    const row = await findCase(ctx, h, req.params.caseNumber);
    const { text } = parseOr400(reportSchema, req.body ?? {}, 'body');
    if (row.submission_type === 'ONLINE_FORM') {
      throw new HttpError(409, 'NOT_AN_ORAL_CASE', 'Only a phone or meeting case has a report text recorded by a handler.');
    }
    // After an approval an edit is a new version awaiting approval, never a silent change (docs/decisions/record-versions.md).
    await recordReport(ctx, row, text);
    const fresh = await ctx.db.selectFrom('report_case').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    return buildCaseView(ctx, fresh);
  });

  app.get<{ Params: { caseNumber: string; version: string } }>('/api/handler/cases/:caseNumber/record/:version/approved', async (req, reply) => {
    const h = await authenticate(ctx, req);
    const row = await findCase(ctx, h, req.params.caseNumber);
    return sendRecordDocument(reply, await approvedRecordDocument(ctx, row, versionNumber(req.params.version)));
  });

  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/messages', async (req, reply) => {
    const h = await authenticate(ctx, req);
    const row = await findCase(ctx, h, req.params.caseNumber);
    const key = ctx.crypto.unwrapCaseKey(row.id, row.wrapped_key);
    const upload = await receiveUpload(ctx, req, { jsonField: 'messageDto', caseId: row.id, key });
    try {
      const dto = parseJsonPartAs(handlerMessageSchema, upload.json, 'messageDto');
      if (!dto.message && upload.files.length === 0) throw new HttpError(400, 'EMPTY_MESSAGE', 'A message needs text or at least one file.', 'message');
      const message = await addMessage(ctx, row, { type: dto.type, createdBy: h.id, text: dto.message, answerWanted: dto.answerWanted, files: upload.files });
      return reply.status(201).send({ message });
    } catch (err) {
      await discardStaged(ctx, upload.files);
      throw err;
    }
  });
}
