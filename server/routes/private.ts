/**
 * The reporter's private calls (spec §7, DESIGN.md §3). Every call first verifies
 * the bearer token (server/idp/tokens.ts): the case is always the token's own,
 * never one named by the client. 401 for a missing, expired or foreign token, 403
 * for a valid token used with another company's host.
 *
 * A message's files may also come as resumable uploads (docs/decisions/resumable-uploads.md,
 * "Files with a private message"): the reporter opens an upload session bound to the
 * token's case, uploads through the tus routes, and the message names the uploads,
 * which it takes in its own transaction.
 */
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { commentDtoSchema, messageDtoSchema, whistleblowerUpdateSchema } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { addMessage, buildCaseView, loadCaseView, officerSnapshot, type CaseRow } from '../cases/service.ts';
import { companyById } from '../companies/service.ts';
import { etagOf, sendWithEtag } from '../spa.ts';
import { caseCacheOf, type CachedView } from '../cases/view-cache.ts';
import { discardStaged, receiveUpload } from '../cases/upload.ts';
import { addComment, requestPasswordChange, updateWhistleblower } from '../cases/reporter.ts';
import { approveRecord, approvedRecordDocument } from '../cases/record.ts';
import { approveSchema, sendRecordDocument, versionNumber } from './record.ts';
import type { IdentityService } from '../idp/index.ts';
import type { Reporter } from '../idp/tokens.ts';
import { parseJsonPartAs, parseOr400 } from './parse.ts';
import { DOWNLOAD_ROUTE, sendCaseFile } from './files.ts';
import { requestLanguage } from './public.ts';
import { CASE_UPLOAD_SESSIONS_PATH, UPLOAD_SESSION_HEADER, assertSessionFor, type ResumableUploads } from '../uploads/resumable.ts';
import type { AbuseGuards } from '../security/abuse.ts';
import { LIMITS } from '../../machines/schema.ts';
import { addSealedMessage, refuseSealedMultipart, sealedCaseView, updateSealedIdentity } from '../cases/sealed.ts';
import { approveTranscript, commentSealedTranscript, commentTranscript } from '../cases/transcript.ts';
import { needsReporterWrap, reporterWrapOffer, storeReporterWrap } from '../keys/migrate-wraps.ts';
import { reporterEpochWrapDtoSchema, sealedCommentDtoSchema, sealedIdentityDtoSchema, sealedMessageDtoSchema, sealedNotifyDtoSchema } from '../../machines/schema.ts';
import { storeReporterEpochWrap } from '../cases/grants.ts';
import { addSealedComment } from '../cases/sealed-record.ts';
import { deleteSealedNotify, storeSealedNotify } from '../mail/change-notify.ts';

/** On the case read of a server-keyed case being migrated that has no reporter wrap yet: the page makes it (sealed-migration.md "Migration"). */
export const REPORTER_WRAP_HEADER = 'x-reporter-wrap';

const BASE = '/api/private/case';

export function registerPrivateRoutes(app: FastifyInstance, ctx: AppContext, identity: IdentityService, uploads: ResumableUploads, guards: AbuseGuards) {
  async function reporterCase(req: FastifyRequest): Promise<{ reporter: Reporter; row: CaseRow }> {
    const reporter = await identity.verifier.verify(req);
    const row = await ctx.db.selectFrom('report_case').selectAll().where('id', '=', reporter.caseId).executeTakeFirst();
    if (!row) throw new HttpError(401, 'UNAUTHORIZED', 'This case no longer exists.');
    return { reporter, row };
  }

  const noStore = { 'cache-control': 'no-store' };

  app.get(`${BASE}/token/verify`, async (req, reply) => {
    const { reporter } = await reporterCase(req);
    return reply.headers(noStore).send({ valid: true, caseNumber: reporter.caseNumber });
  });

  /** The token's case in one statement after the token check (a gone case is a 401, as everywhere). */
  async function reporterCaseView(req: FastifyRequest) {
    const reporter = await identity.verifier.verify(req);
    const view = await loadCaseView(ctx, reporter.caseId);
    if (!view) throw new HttpError(401, 'UNAUTHORIZED', 'This case no longer exists.');
    return view;
  }

  // The SPA reloads the case every 60 s: with the ETag it last saw, an unchanged case
  // costs a 304 without a body. Still `no-store`: case data never goes to a disk cache.
  // The answer comes from the process's case cache (server/cases/view-cache.ts) while no
  // write has touched the case: the token check and the view then cost no statement.
  app.get(`${BASE}/my-case`, async (req, reply) => {
    const reporter = await identity.verifier.verify(req);
    const load = async (): Promise<CachedView | null> => {
      const view = await loadCaseView(ctx, reporter.caseId);
      if (!view) return null;
      const body = JSON.stringify(view);
      return { companyId: reporter.companyId, body, etag: etagOf(body) };
    };
    const cache = caseCacheOf(ctx.db);
    let cached = cache ? await cache.view(reporter.caseId, load) : await load();
    // Never another company's copy (a case id belongs to one company; checked all the same).
    if (cached && cached.companyId !== reporter.companyId) cached = await load();
    if (!cached) throw new HttpError(401, 'UNAUTHORIZED', 'This case no longer exists.');
    // Only with SEALED_CASES=browser (off: no statement, no header): the page then asks for the key to wrap.
    if (ctx.config.sealedCases === 'browser' && (await needsReporterWrap(ctx, reporter.caseId))) reply.header(REPORTER_WRAP_HEADER, 'wanted');
    return sendWithEtag(req, reply.headers(noStore), cached.body, 'application/json; charset=utf-8', cached.etag);
  });

  // A sealed case (server/cases/sealed.ts): the envelopes and the reporter wrap, opened in the private area.
  // Beside the sealed view, what the private area shows from clear columns (the status
  // history, the pending action, the chosen officer as the company file names them):
  // nothing of it is sealed, so the reporter's page need not ask elsewhere.
  app.get(`${BASE}/my-case/sealed`, async (req, reply) => {
    const { row } = await reporterCase(req);
    const view = await sealedCaseView(ctx, row, 'reporter');
    const [events, company] = await Promise.all([
      ctx.db.selectFrom('case_status_event').select(['status', 'at']).where('case_id', '=', row.id).orderBy('id').execute(),
      companyById(ctx.db, row.company_id),
    ]);
    const history = events.map((e) => ({ status: e.status, dateTime: new Date(e.at).toISOString() }));
    return reply.headers(noStore).send({
      ...view,
      pendingWhistleblowerAction: row.pending_whistleblower_action,
      caseStatusHistory: history,
      protectionOfficer: company ? officerSnapshot(company, row.protection_officer_id) : null,
      // Whether a notification address is stored (sealed to the mail key, which the page cannot open): the form shows the wish by it.
      notify: !!(await ctx.db.selectFrom('case_notify').select('case_id').where('case_id', '=', row.id).executeTakeFirst()),
    });
  });

  // A server-keyed case being migrated (server/keys/migrate-wraps.ts): the browser wraps its data key to the reporter key it holds.
  app.get(`${BASE}/my-case/reporter-wrap`, async (req, reply) => {
    const { row } = await reporterCase(req);
    return reply.headers(noStore).send(await reporterWrapOffer(ctx, row));
  });

  app.put(`${BASE}/my-case/reporter-wrap`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    return reply.status(201).headers(noStore).send(await storeReporterWrap(ctx, row, req.body));
  });

  // After a revocation (server/cases/grants.ts): the reporter's page wraps the newest epoch's key under her reporter key; the forward links it replaces go.
  app.put(`${BASE}/my-case/epoch-wrap`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const dto = parseOr400(reporterEpochWrapDtoSchema, req.body ?? {}, 'reporterEpochWrapDto');
    return reply.status(201).headers(noStore).send(await storeReporterEpochWrap(ctx, row, dto));
  });

  app.post(`${BASE}/messages/sealed`, async (req, reply) => {
    const { reporter, row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    refuseSealedMultipart(req);
    const dto = parseOr400(sealedMessageDtoSchema, req.body, 'sealedMessageDto');
    const session = await uploads.sealedSession(req.headers[UPLOAD_SESSION_HEADER], row.id, dto.uploads);
    const files = session ? { claim: (trx: Transaction<DB>) => uploads.claim(trx, session, dto.uploads, row.id), commit: (f: readonly { id: string }[]) => uploads.commit(f) } : undefined;
    return reply.status(201).headers(noStore).send({ message: await addSealedMessage(ctx, row, { ...dto, createdBy: reporter.caseNumber, fromReporter: true }, files) });
  });

  app.get(`${BASE}/messages`, async (req, reply) => {
    return reply.headers(noStore).send((await reporterCaseView(req)).messages);
  });

  // An upload session for the files of one message of the token's case. No
  // proof-of-work (the reporter is signed in); a budget per case instead (and the
  // per-client budget every state-changing private call shares, server/security/abuse.ts).
  app.post(CASE_UPLOAD_SESSIONS_PATH, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('upload-session', row.id, req, reply);
    return reply.status(201).headers(noStore).send(await uploads.createCaseSession(row));
  });

  app.post(`${BASE}/messages/new`, async (req, reply) => {
    const { reporter, row } = await reporterCase(req);
    // Counted before a byte of the body is read: a refused message costs no parsing of its files.
    await guards.perCase('case-write', row.id, req, reply);
    // Only a session bound to this very case: checked before a byte of the body is read.
    const session = req.headers[UPLOAD_SESSION_HEADER] === undefined ? null : await uploads.session(req.headers[UPLOAD_SESSION_HEADER]);
    if (session) assertSessionFor(session, row.id);
    if (session?.usedAt) throw new HttpError(409, 'UPLOAD_SESSION_USED', 'This upload session was already used; open a new one.');
    const key = await ctx.caseKeys.unwrap(row.id, row.wrapped_key);
    // The message's files count against the case's quota, with its earlier files and uploads.
    const budget = uploads.quotas.budget(req, { caseId: row.id, sessionId: session?.id ?? null });
    const upload = await receiveUpload(ctx, req, { jsonField: 'messageDto', caseId: row.id, key, budget });
    try {
      const dto = parseJsonPartAs(messageDtoSchema, upload.json, 'messageDto');
      if (dto.uploads.length && !session) throw new HttpError(400, 'UPLOAD_SESSION_REQUIRED', 'Uploads are taken only with their upload session in X-Upload-Session.', 'uploads');
      if (upload.files.length + dto.uploads.length > LIMITS.maxFiles) throw new HttpError(400, 'TOO_MANY_FILES', `At most ${LIMITS.maxFiles} files may be sent.`, 'uploads');
      if (new Set(dto.uploads).size !== dto.uploads.length) throw new HttpError(400, 'DUPLICATE_UPLOAD', 'Name each upload once.', 'uploads');
      if (!dto.message && upload.files.length === 0 && dto.uploads.length === 0) throw new HttpError(400, 'EMPTY_MESSAGE', 'A message needs text or at least one file.', 'message');
      const message = await addMessage(ctx, row, {
        type: 'STANDARD',
        createdBy: reporter.caseNumber,
        text: dto.message,
        fromReporter: true,
        files: upload.files,
        uploads: session && dto.uploads.length ? { claim: (trx) => uploads.claim(trx, session, dto.uploads, row.id), commit: (files) => uploads.commit(files) } : undefined,
      });
      return reply.status(201).headers(noStore).send({ message });
    } catch (err) {
      await discardStaged(ctx, upload.files);
      throw err;
    }
  });

  app.put(`${BASE}/approve`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const { sha256 } = parseOr400(approveSchema, req.body ?? {}, 'body');
    await approveRecord(ctx, row, sha256);
    const fresh = await ctx.db.selectFrom('report_case').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    // A sealed case has no view the server can build: the page reads the sealed view again.
    if (fresh.sealed) return reply.headers(noStore).send({ approvedAt: new Date(fresh.approved_at!).toISOString(), sha256 });
    return reply.headers(noStore).send(await buildCaseView(ctx, fresh));
  });

  app.get<{ Params: { version: string } }>(`${BASE}/record/:version/approved`, DOWNLOAD_ROUTE, async (req, reply) => {
    const { row } = await reporterCase(req);
    return sendRecordDocument(reply, await approvedRecordDocument(ctx, row, versionNumber(req.params.version)));
  });

  const updateIdentity = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const dto = parseOr400(whistleblowerUpdateSchema, req.body ?? {}, 'whistleblowerDto');
    const whistleblower = await updateWhistleblower(ctx, row, dto, requestLanguage(req));
    return reply.headers(noStore).send({ whistleblower });
  };
  // The spec's readings differ on the method (§7): both are accepted.
  app.post(`${BASE}/whistleblower/update`, updateIdentity);
  app.put(`${BASE}/whistleblower/update`, updateIdentity);

  // A sealed case's identity, sealed in the reporter's browser (the usual route answers 409 CASE_SEALED for it).
  app.put(`${BASE}/whistleblower/sealed`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const dto = parseOr400(sealedIdentityDtoSchema, req.body ?? {}, 'sealedIdentityDto');
    await updateSealedIdentity(ctx, row, dto.envelope);
    return reply.headers(noStore).send({ stored: true });
  });

  // A sealed case's notification address, sealed in the reporter's browser to the mail key (server/mail/change-notify.ts).
  app.put(`${BASE}/notification/sealed`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const dto = parseOr400(sealedNotifyDtoSchema, req.body ?? {}, 'sealedNotifyDto');
    await storeSealedNotify(ctx, row, dto.notify);
    return reply.headers(noStore).send({ notify: true });
  });
  app.delete(`${BASE}/notification/sealed`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    await deleteSealedNotify(ctx, row);
    return reply.headers(noStore).send({ notify: false });
  });

  app.put(`${BASE}/password/request-update`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    await requestPasswordChange(ctx, row.id);
    // Every sign-in of this case ends, so the next one asks for the new password.
    await identity.endSessionsOf(row.id);
    return reply.headers(noStore).send({ mustChangePassword: true });
  });

  app.post(`${BASE}/comments`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const { comment } = parseOr400(commentDtoSchema, req.body ?? {}, 'body');
    return reply.status(201).headers(noStore).send(await addComment(ctx, row, comment));
  });

  // The reporter's comment on a sealed case's record, sealed in the browser (docs/decisions/record-versions.md "Sealed cases").
  app.post(`${BASE}/comments/sealed`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const dto = parseOr400(sealedCommentDtoSchema, req.body ?? {}, 'sealedCommentDto');
    return reply.status(201).headers(noStore).send(await addSealedComment(ctx, row, dto));
  });

  // The transcript of a voice file (issue 40; server/cases/transcript.ts): approved by its hash, commented on, as the record.
  app.put<{ Params: { fileId: string } }>(`${BASE}/files/:fileId/transcript/approve`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const { sha256 } = parseOr400(approveSchema, req.body ?? {}, 'body');
    return reply.headers(noStore).send(await approveTranscript(ctx, row, req.params.fileId, sha256));
  });
  app.post<{ Params: { fileId: string } }>(`${BASE}/files/:fileId/transcript/comments`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const { comment } = parseOr400(commentDtoSchema, req.body ?? {}, 'body');
    return reply.status(201).headers(noStore).send(await commentTranscript(ctx, row, req.params.fileId, comment));
  });
  app.post<{ Params: { fileId: string } }>(`${BASE}/files/:fileId/transcript/comments/sealed`, async (req, reply) => {
    const { row } = await reporterCase(req);
    await guards.perCase('case-write', row.id, req, reply);
    const dto = parseOr400(sealedCommentDtoSchema, req.body ?? {}, 'sealedCommentDto');
    return reply.status(201).headers(noStore).send(await commentSealedTranscript(ctx, row, req.params.fileId, dto));
  });

  app.get<{ Params: { fileId: string } }>(`${BASE}/files/:fileId`, DOWNLOAD_ROUTE, async (req, reply) => {
    const { row } = await reporterCase(req);
    return sendCaseFile(ctx, reply, row, req.params.fileId);
  });
}
