/**
 * The case handlers' API (DESIGN.md §3 "Handlers"): a bearer API token per handler
 * account; a handler sees only the cases of the account's own company, and any
 * other case answers 404 exactly like a case that does not exist.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { UPLOAD_SESSION_HEADER, type ResumableUploads } from '../uploads/resumable.ts';
import * as v from 'valibot';
import { CASE_STATUSES, LIMITS, MESSAGE_TYPES, inboxQuerySchema, normalizeCaseNumber } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { registerKeyLogRoutes } from './keys.ts';
import { registerCaseExportRoutes } from './case-export.ts';
import { registerNoteRoutes } from './notes.ts';
import { registerCaseEntryRoutes } from './case-entry.ts';
import { HttpError } from '../errors.ts';
import { authorize, sessionCookie, sessionToken, type Principal } from '../security/roles.ts';
import { burstScope, HandlerAuth, IDLE_TIMEOUT_MS, SESSION_MAX_MS } from '../handlers/auth.ts';
import { POW_HEADER } from '../security/pow.ts';
import { createToken, listTokens, revokeToken } from '../handlers/administration.ts';
import { stringifySetCookie } from 'cookie';
import { sessionPrincipal } from '../security/roles.ts';
import { colleaguesWithKeys, keyBundleSchema, sealedKeysOf, signInSalt } from '../handlers/keys.ts';
import { appendAudit, deadlineOf, findVisibleCase, firstOpeningInSitting, inbox, markSeen, readAudit, type HandlerIdentity } from '../handlers/cases.ts';
import { assigneeSchema, assignmentOf, entitledColleagues, setAssignee, shareCase, shareSchema, unshareCase, type AssignmentAct } from '../handlers/assignment.ts';
import { createHash } from 'node:crypto';
import { companyByHost, normalizeHost, requestHost, requireCompany } from '../companies/service.ts';
import { addMessage, buildCaseView, caseKey, recordReport, setStatus, type CaseRow } from '../cases/service.ts';
import { LANGUAGE_COLUMN } from '../mail/notify.ts';
import { approvedRecordDocument, withAuthors } from '../cases/record.ts';
import { recordSealedTranscript, recordTranscript, transcriptsWithAuthors } from '../cases/transcript.ts';
import { sendRecordDocument, versionNumber } from './record.ts';
import { DOWNLOAD_ROUTE, isUuid, sendCaseFile } from './files.ts';
import { discardStaged, receiveUpload } from '../cases/upload.ts';
import { parseJsonPartAs, parseOr400 } from './parse.ts';
import { addSealedMessage, handlerRecipientId, refuseSealedMultipart, sealedCaseView } from '../cases/sealed.ts';
import { caseSummariesDtoSchema, keyEpochDtoSchema, keyGrantDtoSchema, sealedMessageDtoSchema, sealedRecordVersionDtoSchema } from '../../machines/schema.ts';
import { recordSealedVersion } from '../cases/sealed-record.ts';
import { caseSummaries } from '../handlers/summaries.ts';
import { grantCaseKey, refuseRevoked, revokeCaseKey, wrapHolders } from '../cases/grants.ts';

export const REPORT_TEXT_MAX = 20_000;
export const HANDLER_MESSAGE_MAX = LIMITS.commentMax;

export const statusSchema = v.object({ status: v.picklist(CASE_STATUSES, `must be one of ${CASE_STATUSES.join(', ')}`) });
export const reportSchema = v.object({
  text: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(REPORT_TEXT_MAX, 'validation.tooLong')),
  /** The version the writer opened (0: none yet); another's save since then is 409 RECORD_VERSION_CONFLICT. Absent: not checked. */
  baseVersion: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(999_999))),
});
export const handlerMessageSchema = v.object({
  message: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(HANDLER_MESSAGE_MAX, 'validation.tooLong')), ''),
  type: v.optional(v.picklist(MESSAGE_TYPES, `must be one of ${MESSAGE_TYPES.join(', ')}`), 'STANDARD'),
  answerWanted: v.optional(v.boolean(), false),
});

/**
 * The caller, through the one authorisation entry point (server/security/roles.ts): a
 * handler's bearer API token (scripts) or the workspace's session cookie, which also
 * binds the company of the host it is used on. An unsafe call with the cookie must
 * come from our own origin: SameSite=Strict keeps other sites' requests from carrying
 * it, and the cross-site guard in front of every /api route (server/security/abuse.ts)
 * refuses them anyway (403 CROSS_SITE_REQUEST).
 */
function authenticate(ctx: AppContext, req: FastifyRequest) {
  return authorize(ctx, req, 'handler', { idleTimeoutMs: IDLE_TIMEOUT_MS });
}

/**
 * The company whose workspace a sign-in or enrolment is on; null on OPERATOR_HOST (a
 * host with no company, where only operators sign in); 404 UNKNOWN_COMPANY elsewhere.
 */
async function companyOrOperatorHost(ctx: AppContext, req: FastifyRequest) {
  const host = normalizeHost(requestHost(req));
  if (ctx.config.operatorHost && host === ctx.config.operatorHost && !(await companyByHost(ctx.db, host))) return null;
  return requireCompany(ctx.db, req);
}

export const enrolStartSchema = v.object({ code: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(200)) });
/** The password never comes here: the browser sends the verifier and the keys it made (server/handlers/keys.ts). */
export const enrolFinishSchema = v.object({
  code: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(200)),
  keys: keyBundleSchema,
  totpCode: v.pipe(v.string(), v.trim(), v.regex(/^\d{6}$/, 'validation.totpCode')),
});
export const newTokenSchema = v.object({
  label: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(100)),
  code: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(40)),
});
export const signInSaltSchema = v.object({ email: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(254)) });
const signInBase = {
  email: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(254)),
  code: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(40)),
};
/** The verifier (accounts with keys), or once, for a legacy account, the password with the keys that upgrade it. */
export const signInSchema = v.union([
  v.object({ ...signInBase, verifier: v.pipe(v.string(), v.nonEmpty('validation.required'), v.maxLength(100)) }),
  v.object({ ...signInBase, password: v.pipe(v.string(), v.nonEmpty('validation.required'), v.maxLength(1000, 'validation.tooLong')), keys: keyBundleSchema }),
]);

/** The signed-in account as the workspace shows it; `signIn` only in the sign-in's own answer. */
async function sessionView(ctx: AppContext, auth: HandlerAuth, p: Principal, signIn?: { failedSignIns: number; previousSignInAt: string | null }) {
  const company = p.companyId ? await ctx.db.selectFrom('company').select('name').where('id', '=', p.companyId).executeTakeFirst() : undefined;
  return {
    handler: { id: p.accountId ?? '', name: p.name, email: p.email, companyId: p.companyId ?? '', companyName: company?.name ?? '', officers: p.accountId ? await auth.officers(p.accountId) : [], roles: p.roles },
    idleTimeoutMs: IDLE_TIMEOUT_MS,
    ...(signIn ? { signIn } : {}),
  };
}

/** The case as a handler reads it: the reporter's view plus the legal clock and the audit trail. */
async function handlerCaseView(ctx: AppContext, h: HandlerIdentity, row: CaseRow) {
  const [view, deadline, audit, language] = await Promise.all([buildCaseView(ctx, row), deadlineOf(ctx, h, row), readAudit(ctx, row), reporterLanguage(ctx, row)]);
  // Who saved each version is for handlers: the shared (cached) view the reporter reads names nobody.
  const report = view.report && { ...view.report, versions: await withAuthors(ctx, row.id, view.report.versions) };
  return { ...view, report, transcripts: await transcriptsWithAuthors(ctx, row.id, view.transcripts), deadline, audit, reporterLanguage: language };
}

/** The language the reporter wrote in (the mails' language), opened with the case's key; null when none was kept. */
async function reporterLanguage(ctx: AppContext, row: CaseRow): Promise<string | null> {
  if (!row.language_enc) return null;
  return ctx.crypto.open(await caseKey(ctx, row), row.id, LANGUAGE_COLUMN, row.language_enc).toString('utf8');
}

export function registerHandlerRoutes(app: FastifyInstance, ctx: AppContext, uploads: ResumableUploads) {
  const auth = new HandlerAuth(ctx);
  const who = (req: FastifyRequest) => authenticate(ctx, req);
  const signedIn = (req: FastifyRequest) => authorize(ctx, req, 'signedIn', { idleTimeoutMs: IDLE_TIMEOUT_MS });
  registerKeyLogRoutes(app, ctx, who);
  registerCaseExportRoutes(app, ctx, who);
  registerNoteRoutes(app, ctx, who, uploads);
  registerCaseEntryRoutes(app, ctx, who);
  const sweep = setInterval(() => void auth.sweep().catch((err) => ctx.log.warn({ err: { message: (err as Error).message } }, 'handler session sweep failed')), 10 * 60_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  // ---- enrolment and sign-in (the web workspace) -------------------------------

  app.post('/api/handler/enrolment/start', async (req) => {
    const company = await companyOrOperatorHost(ctx, req);
    const { code } = parseOr400(enrolStartSchema, req.body ?? {}, 'body');
    const started = await auth.startEnrolment(company, code);
    if (!started) throw new HttpError(404, 'ENROLMENT_INVALID', 'This enrolment link is unknown, used or expired; ask for a new one.');
    return started;
  });

  app.post('/api/handler/enrolment/finish', async (req) => {
    const company = await companyOrOperatorHost(ctx, req);
    const body = parseOr400(enrolFinishSchema, req.body ?? {}, 'body');
    const r = await auth.finishEnrolment(company, body.code, body.keys, body.totpCode);
    if (r === 'ENROLMENT_INVALID') throw new HttpError(404, r, 'This enrolment link is unknown, used or expired; ask for a new one.');
    if (r === 'TOTP_INVALID') throw new HttpError(400, 'TOTP_INVALID', 'The code does not match; check the clock of the device and type the current code.', 'totpCode');
    return r;
  });

  /** During a burst of failed sign-ins the sign-in needs a proof-of-work: this hands out its challenge (null: none needed). */
  app.get('/api/handler/session/challenge', async (req) => {
    const company = await companyOrOperatorHost(ctx, req);
    return { challenge: (await auth.throttle.isBurst(burstScope(company))) ? auth.pow.issue() : null };
  });

  app.post('/api/handler/session', async (req, reply) => {
    const company = await companyOrOperatorHost(ctx, req);
    const body = parseOr400(signInSchema, req.body ?? {}, 'body');
    // Before any count or password hash, so a flood without work costs next to nothing.
    if (await auth.throttle.isBurst(burstScope(company))) await auth.pow.spend(req.headers[POW_HEADER]);
    const r = await auth.signIn(company, body.email, 'verifier' in body ? { verifier: body.verifier } : { password: body.password, keys: body.keys }, body.code, req.ip);
    if (!r) throw new HttpError(401, 'SIGNIN_FAILED', 'The e-mail, password or code is not right.');
    // A session cookie of the older path (/api/handler) would shadow the new one there.
    reply.header('set-cookie', [sessionCookie(req, r.token, SESSION_MAX_MS / 1000), legacyCookieClear(req)]);
    const p = await sessionPrincipalOf(ctx, r.token);
    return sessionView(ctx, auth, p, { failedSignIns: r.failedSignIns, previousSignInAt: r.previousSignInAt });
  });

  /** The salt and derivation a sign-in page derives the verifier with; an unknown e-mail gets a look-alike. */
  app.post('/api/handler/session/salt', async (req, reply) => {
    const company = await companyOrOperatorHost(ctx, req);
    const { email } = parseOr400(signInSaltSchema, req.body ?? {}, 'body');
    return reply.header('cache-control', 'no-store').send(await signInSalt(ctx, company, email));
  });

  app.get('/api/handler/session', async (req) => sessionView(ctx, auth, await signedIn(req)));

  /** The caller's own sealed private keys, for the workspace to open in the browser. */
  app.get('/api/handler/keys', async (req, reply) => reply.header('cache-control', 'no-store').send(await sealedKeysOf(ctx, (await who(req)).id)));

  /** The company's handlers who have keys: what a certifier's browser compares with the key log. */
  app.get('/api/handler/keys/colleagues', async (req) => ({ handlers: await colleaguesWithKeys(ctx, (await who(req)).company_id) }));

  /** "Stay signed in": any call moves the idle clock; this one does nothing else. */
  app.post('/api/handler/session/refresh', async (req) => sessionView(ctx, auth, await signedIn(req)));

  app.delete('/api/handler/session', async (req, reply) => {
    const token = sessionToken(req);
    if (token) await auth.endSession(token);
    reply.header('set-cookie', [sessionCookie(req, '', 0), legacyCookieClear(req)]);
    return reply.status(204).send();
  });

  // ---- the handler's own API tokens (session only) ------------------------------------

  app.get('/api/handler/tokens', async (req) => {
    const h = await authorize(ctx, req, 'handler', { idleTimeoutMs: IDLE_TIMEOUT_MS, sessionOnly: true });
    return { tokens: await listTokens(ctx.db, h.id) };
  });

  /** A token, after a fresh second-factor check in the same request (issue 39 item 3). */
  app.post('/api/handler/tokens', async (req, reply) => {
    const h = await authorize(ctx, req, 'handler', { idleTimeoutMs: IDLE_TIMEOUT_MS, sessionOnly: true });
    const body = parseOr400(newTokenSchema, req.body ?? {}, 'body');
    if (!(await auth.confirmSecondFactor(h.id, body.code))) throw new HttpError(400, 'TOTP_INVALID', 'The code does not match; type the current code of the authenticator app, or a recovery code.', 'code');
    return reply.status(201).send(await createToken(ctx, h.company_id, { actorId: h.id, actorName: h.name, actorRole: 'handler' }, h, body.label, 'handler'));
  });

  app.delete<{ Params: { token: string } }>('/api/handler/tokens/:token', async (req) => {
    const h = await authorize(ctx, req, 'handler', { idleTimeoutMs: IDLE_TIMEOUT_MS, sessionOnly: true });
    return revokeToken(ctx, h.company_id, { actorId: h.id, actorName: h.name, actorRole: 'handler' }, h, req.params.token);
  });

  // ---- cases (token or session) --------------------------------------------------

  app.get('/api/handler/me', async (req) => {
    const h = await who(req);
    return { id: h.id, name: h.name, companyId: h.company_id };
  });

  app.get('/api/handler/cases', async (req) => {
    const h = await who(req);
    return inbox(ctx, h, parseOr400(inboxQuerySchema, req.query ?? {}, 'query'));
  });

  // The searchable parts of a batch of cases, for the inbox's columns and search (handlers/summaries.ts).
  app.post('/api/handler/cases/summaries', async (req, reply) => {
    const h = await who(req);
    const { caseNumbers } = parseOr400(caseSummariesDtoSchema, req.body ?? {}, 'body');
    return reply.header('cache-control', 'no-store').send({ summaries: await caseSummaries(ctx, h, caseNumbers) });
  });

  app.get<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber', async (req) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    // Before the entry: the workspace reads a sealed case again on …/sealed, which writes it.
    if (row.sealed) throw new HttpError(409, 'CASE_SEALED', 'This case is sealed: only its reporter and its handlers open it, in their browsers.');
    if (await firstOpeningInSitting(ctx, sittingOf(req, h), row.id)) await appendAudit(ctx, h, row, 'CASE_READ');
    await markSeen(ctx, h, row.id);
    return handlerCaseView(ctx, h, row);
  });

  // ---- assignment and sharing (server/handlers/assignment.ts) ---------------------

  const assignmentView = async (row: CaseRow) => ({ ...(await assignmentOf(ctx, row.id)), colleagues: await entitledColleagues(ctx, row) });
  // A sealed case's entries are written in clear too (appendAudit): who, when, the act and ids, no content.
  const auditAct = (h: HandlerIdentity, row: CaseRow, act: AssignmentAct) => appendAudit(ctx, h, row, act.action, act.detail);

  app.get<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/assignment', async (req) => {
    const h = await who(req);
    return assignmentView(await findVisibleCase(ctx, h, req.params.caseNumber));
  });

  app.put<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/assignee', async (req) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const { handlerId } = parseOr400(assigneeSchema, req.body ?? {}, 'body');
    await auditAct(h, row, await setAssignee(ctx, row, handlerId));
    return assignmentView(row);
  });

  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/shares', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const { handlerId } = parseOr400(shareSchema, req.body ?? {}, 'body');
    await auditAct(h, row, await shareCase(ctx, h, row, handlerId));
    return reply.status(201).send(await assignmentView(row));
  });

  app.delete<{ Params: { caseNumber: string; handlerId: string } }>('/api/handler/cases/:caseNumber/shares/:handlerId', async (req) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const { handlerId } = parseOr400(shareSchema, { handlerId: req.params.handlerId }, 'params');
    await auditAct(h, row, await unshareCase(ctx, row, handlerId));
    return assignmentView(row);
  });

  // A sealed case (server/cases/sealed.ts): the envelopes and this handler's wrap, opened in the workspace,
  // with its audit trail, written in clear (the server holds no key of the case; handlers/cases.ts appendAudit).
  // The status history is clear data (case_status_event) as on the usual read; the export's "status history" lists it.
  const statusHistory = async (caseId: string) =>
    (await ctx.db.selectFrom('case_status_event').select(['status', 'at']).where('case_id', '=', caseId).orderBy('id').execute()).map((e) => ({ status: e.status, dateTime: new Date(e.at).toISOString() }));
  const sealedHandlerView = async (h: HandlerIdentity, row: CaseRow) => {
    const view = await sealedCaseView(ctx, row, await handlerRecipientId(ctx, h.id));
    // Authors are clear data (account ids and names), for handlers only, as on a server-keyed case.
    const record = view.record && { ...view.record, versions: await withAuthors(ctx, row.id, view.record.versions) };
    const transcripts = await transcriptsWithAuthors(ctx, row.id, view.transcripts ?? []);
    return { ...view, record, transcripts, audit: await readAudit(ctx, row), caseStatusHistory: await statusHistory(row.id) };
  };
  app.get<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/sealed', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: read it on the usual path.');
    if (await firstOpeningInSitting(ctx, sittingOf(req, h), row.id)) await appendAudit(ctx, h, row, 'CASE_READ');
    await markSeen(ctx, h, row.id);
    return reply.header('cache-control', 'no-store').send(await sealedHandlerView(h, row));
  });

  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/messages/sealed', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    refuseSealedMultipart(req);
    const dto = parseOr400(sealedMessageDtoSchema, req.body, 'sealedMessageDto');
    const session = await uploads.sealedSession(req.headers[UPLOAD_SESSION_HEADER], row.id, dto.uploads);
    const files = session ? { claim: (trx: Transaction<DB>) => uploads.claim(trx, session, dto.uploads, row.id), commit: (f: readonly { id: string }[]) => uploads.commit(f) } : undefined;
    const message = await addSealedMessage(ctx, row, { ...dto, createdBy: h.id, fromReporter: false }, files);
    await appendAudit(ctx, h, row, 'MESSAGE_SENT', { messageId: message.id, type: dto.type, answerWanted: dto.answerWanted, files: message.files.length });
    return reply.status(201).send({ message });
  });

  // A sealed upload session for the files of one handler message of a sealed case
  // (docs/decisions/sealed-cases.md "Sealed files"): the handler's browser seals them and
  // uploads them by tus (server/routes/uploads.ts), as a reporter's does.
  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/upload-sessions', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: send files with the message as multipart.');
    await refuseRevoked(ctx, h.id, row);
    return reply.status(201).header('cache-control', 'no-store').send(await uploads.createCaseSession(row));
  });

  // Grants (server/cases/grants.ts): who holds the case's key, and a re-wrap to a colleague made in the granter's browser.
  app.get<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/key-wraps', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    return reply.header('cache-control', 'no-store').send(await wrapHolders(ctx, row));
  });

  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/key-wraps', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    const dto = parseOr400(keyGrantDtoSchema, req.body ?? {}, 'keyGrantDto');
    const granted = await grantCaseKey(ctx, h, row, dto);
    // The key id is public (the key log's); the workspace names its holder from the log.
    await appendAudit(ctx, h, row, 'ACCESS_GRANTED', { recipientKeyId: granted.recipientKeyId });
    return reply.status(201).send(granted);
  });

  // A revocation (server/cases/grants.ts revokeCaseKey): the next key epoch as the revoking handler's browser made it.
  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/key-epochs', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    const dto = parseOr400(keyEpochDtoSchema, req.body ?? {}, 'keyEpochDto');
    const revoked = await revokeCaseKey(ctx, h, row, dto);
    // In clear as the grant's: the revoked key's id (the key log's) and the new epoch, no key material.
    await appendAudit(ctx, h, row, 'ACCESS_REVOKED', { recipientKeyId: revoked.revoked, epoch: revoked.epoch });
    return reply.status(201).send(revoked);
  });

  app.get<{ Params: { caseNumber: string; fileId: string } }>('/api/handler/cases/:caseNumber/files/:fileId', DOWNLOAD_ROUTE, async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    const file = isUuid(req.params.fileId) ? await ctx.db.selectFrom('case_file').select(['id', 'note_id']).where('case_id', '=', row.id).where('id', '=', req.params.fileId.toLowerCase()).executeTakeFirst() : undefined;
    // A note's file names its note in the trail (internal-notes.md "Files").
    if (file) await appendAudit(ctx, h, row, 'FILE_DOWNLOADED', { fileId: file.id, ...(file.note_id ? { noteId: file.note_id } : {}) });
    return sendCaseFile(ctx, reply, row, req.params.fileId, { notes: true });
  });

  app.put<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/status', async (req) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const { status } = parseOr400(statusSchema, req.body ?? {}, 'body');
    if (status === 'PENDING_WHISTLEBLOWER_CONTACT') {
      throw new HttpError(400, 'VALIDATION', 'A case cannot be moved back to PENDING_WHISTLEBLOWER_CONTACT.', 'status');
    }
    if (status === row.status) throw new HttpError(409, 'STATUS_UNCHANGED', `The case is already ${status}.`, 'status');
    await setStatus(ctx, row.id, status);
    await appendAudit(ctx, h, row, 'STATUS_CHANGED', { from: row.status, to: status });
    // A sealed case answers its sealed view with the audit, as GET …/sealed.
    if (row.sealed) return sealedHandlerView(h, { ...row, status });
    return handlerCaseView(ctx, h, { ...row, status });
  });

  app.put<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/report', async (req) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const { text, baseVersion } = parseOr400(reportSchema, req.body ?? {}, 'body');
    if (row.submission_type === 'ONLINE_FORM') {
      throw new HttpError(409, 'NOT_AN_ORAL_CASE', 'Only a phone or meeting case has a report text recorded by a handler.');
    }
    // After an approval an edit is a new version awaiting approval, never a silent change (docs/decisions/record-versions.md).
    await recordReport(ctx, row, text, { authorId: h.id, baseVersion });
    await appendAudit(ctx, h, row, 'RECORD_EDITED', { characters: [...text].length });
    const fresh = await ctx.db.selectFrom('report_case').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    return handlerCaseView(ctx, h, fresh);
  });

  // A version of a sealed case's record, sealed and hashed in the handler's browser (docs/decisions/record-versions.md "Sealed cases").
  // No audit entry: the audit is sealed under the case's key, which the server does not have.
  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/record/sealed', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    const dto = parseOr400(sealedRecordVersionDtoSchema, req.body ?? {}, 'sealedRecordVersionDto');
    const stored = await recordSealedVersion(ctx, row, dto, h.id);
    return reply.status(stored.changed ? 201 : 200).header('cache-control', 'no-store').send(stored);
  });

  // The transcript of a voice file (issue 40; server/cases/transcript.ts): a record of its own, the same version rules.
  app.put<{ Params: { caseNumber: string; fileId: string } }>('/api/handler/cases/:caseNumber/files/:fileId/transcript', async (req) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const { text, baseVersion } = parseOr400(reportSchema, req.body ?? {}, 'body');
    const stored = await recordTranscript(ctx, row, req.params.fileId, text, { authorId: h.id, baseVersion });
    if (stored.changed) await appendAudit(ctx, h, row, 'RECORD_EDITED', { characters: [...text].length, fileId: req.params.fileId });
    return handlerCaseView(ctx, h, row);
  });
  app.post<{ Params: { caseNumber: string; fileId: string } }>('/api/handler/cases/:caseNumber/files/:fileId/transcript/sealed', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    await refuseRevoked(ctx, h.id, row);
    const dto = parseOr400(sealedRecordVersionDtoSchema, req.body ?? {}, 'sealedRecordVersionDto');
    const stored = await recordSealedTranscript(ctx, row, req.params.fileId, dto, h.id);
    return reply.status(stored.changed ? 201 : 200).header('cache-control', 'no-store').send(stored);
  });

  app.get<{ Params: { caseNumber: string; version: string } }>('/api/handler/cases/:caseNumber/record/:version/approved', DOWNLOAD_ROUTE, async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const doc = await approvedRecordDocument(ctx, row, versionNumber(req.params.version));
    // The approved record leaves the server as a file: the trail says so, like any download.
    await appendAudit(ctx, h, row, 'FILE_DOWNLOADED', { recordVersion: versionNumber(req.params.version) });
    return sendRecordDocument(reply, doc);
  });

  app.post<{ Params: { caseNumber: string } }>('/api/handler/cases/:caseNumber/messages', async (req, reply) => {
    const h = await who(req);
    const row = await findVisibleCase(ctx, h, req.params.caseNumber);
    const key = await ctx.caseKeys.unwrap(row.id, row.wrapped_key);
    const upload = await receiveUpload(ctx, req, { jsonField: 'messageDto', caseId: row.id, key });
    try {
      const dto = parseJsonPartAs(handlerMessageSchema, upload.json, 'messageDto');
      if (!dto.message && upload.files.length === 0) throw new HttpError(400, 'EMPTY_MESSAGE', 'A message needs text or at least one file.', 'message');
      const message = await addMessage(ctx, row, { type: dto.type, createdBy: h.id, text: dto.message, answerWanted: dto.answerWanted, files: upload.files });
      await appendAudit(ctx, h, row, 'MESSAGE_SENT', { messageId: message.id, type: dto.type, answerWanted: dto.answerWanted, files: upload.files.length });
      return reply.status(201).send({ message });
    } catch (err) {
      await discardStaged(ctx, upload.files);
      throw err;
    }
  });
}

/** The sitting an opening belongs to (server/handlers/cases.ts firstOpeningInSitting): the session, or a token's UTC day. */
function sittingOf(req: FastifyRequest, p: Principal): string {
  if (p.via === 'apiToken') return `token:${p.tokenId}:${new Date().toISOString().slice(0, 10)}`;
  return `session:${createHash('sha256').update(sessionToken(req) ?? '').digest('hex')}`;
}

/** Clears a cookie set before the session moved to path /api/ (issue 39). */
function legacyCookieClear(req: FastifyRequest): string {
  return stringifySetCookie({ name: 'wb_handler', value: '', httpOnly: true, sameSite: 'strict', secure: req.protocol === 'https', path: '/api/handler', maxAge: 0 });
}

async function sessionPrincipalOf(ctx: AppContext, token: string): Promise<Principal> {
  const p = await sessionPrincipal(ctx, token, IDLE_TIMEOUT_MS);
  if (!p) throw new HttpError(401, 'UNAUTHORIZED', 'Sign in again: the session has ended.');
  return p;
}
