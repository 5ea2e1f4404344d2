/**
 * What a handler may see, in one place (issue 14): `visibleCases` is the only query
 * that loads cases for a handler, whether it came with a token or a session. It
 * keeps the handler's company and, when the handler is tied to protection officers
 * (`handler_officer`), only the cases addressed to them. Every other case answers
 * 404 CASE_NOT_FOUND, exactly like a case that does not exist.
 *
 * Also here: the inbox rows with the legal clocks (Directive 2019/1937 Art. 9:
 * acknowledgement within 7 days of receipt, feedback within 3 months of it), and the
 * case's audit trail (append-only, sealed with the case's key).
 */
import type { CaseStatus, CreationChannel, EntryChannel, SubmissionType } from '../../machines/schema.ts';
import { INBOX_PAGE, legalClocks, normalizeCaseNumber, type InboxQuery } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { caseKey, type CaseRow } from '../cases/service.ts';
import { companyById } from '../companies/service.ts';
import { retentionOf, scheduledDeletion } from '../retention/policy.ts';
import { keyId } from '../../core/crypto/index.ts';

export interface HandlerIdentity {
  id: string;
  company_id: string;
  name: string;
}

/** report_case rows this handler may see. The one place the officer tie is applied. */
export function visibleCases(ctx: AppContext, handler: HandlerIdentity) {
  return ctx.db
    .selectFrom('report_case')
    .where('report_case.company_id', '=', handler.company_id)
    .where((eb) =>
      eb.or([
        eb.not(eb.exists(eb.selectFrom('handler_officer').select('officer_id').where('handler_officer.handler_id', '=', handler.id))),
        eb('report_case.protection_officer_id', 'in', eb.selectFrom('handler_officer').select('officer_id').where('handler_officer.handler_id', '=', handler.id)),
      ]),
    );
}

/**
 * May this handler enter a report for `officerId` (docs/decisions/handler-entered-reports.md)?
 * The same rule as `visibleCases`: a handler tied to officers enters only for them, one
 * tied to none for every officer of her company; the officer must be one of the
 * company's (400 UNKNOWN_OFFICER otherwise, as on the form's routes). A case she could
 * not see afterwards is one she may not make: 403 OFFICER_NOT_ENTITLED.
 */
export async function assertMayEnterFor(ctx: AppContext, handler: HandlerIdentity, company: { settings: { protectionOfficers: readonly { id: string }[] } }, officerId: string): Promise<void> {
  if (!company.settings.protectionOfficers.some((o) => o.id === officerId)) throw new HttpError(400, 'UNKNOWN_OFFICER', 'No such protection officer in this company.', 'protectionOfficer.id');
  const tied = await ctx.db.selectFrom('handler_officer').select('officer_id').where('handler_id', '=', handler.id).execute();
  if (tied.length && !tied.some((t) => t.officer_id === officerId)) throw new HttpError(403, 'OFFICER_NOT_ENTITLED', 'You handle cases of other protection officers only: you may not enter a report for this one.', 'protectionOfficer.id');
}

/**
 * The account a key of the key log stands for, when it is a live handler of this company
 * holding that very ECDH key now (not disabled, with the handler role); null otherwise.
 * What a re-wrap to a colleague's key (a case's data key, the statistics key) checks
 * before it stores anything, beside the log's certification.
 */
export async function liveHandlerHolding(ctx: Pick<AppContext, 'db'>, companyId: string, handlerId: string, ecdhKeyId: string): Promise<HandlerIdentity | null> {
  const account = await ctx.db.selectFrom('handler_account').select(['id', 'company_id', 'name', 'ecdh_spki', 'disabled_at', 'role_handler']).where('id', '=', handlerId).executeTakeFirst();
  if (!account || account.company_id !== companyId || account.disabled_at !== null || !account.role_handler || !account.ecdh_spki) return null;
  if ((await keyId(new Uint8Array(account.ecdh_spki))) !== ecdhKeyId) return null;
  return { id: account.id, company_id: companyId, name: account.name };
}

export async function findVisibleCase(ctx: AppContext, handler: HandlerIdentity, caseNumberParam: string): Promise<CaseRow> {
  // Fastify has already decoded the path parameter; decoding again could throw on a stray '%'.
  const caseNumber = normalizeCaseNumber(caseNumberParam);
  const row = /^\d{16}$/.test(caseNumber) ? await visibleCases(ctx, handler).selectAll('report_case').where('report_case.case_number', '=', caseNumber).executeTakeFirst() : undefined;
  if (!row) throw new HttpError(404, 'CASE_NOT_FOUND', 'No such case.');
  return row;
}

// ---- legal clocks --------------------------------------------------------------

export type DeadlineKind = 'ACKNOWLEDGEMENT' | 'FEEDBACK';
export interface Deadline {
  kind: DeadlineKind;
  due: string;
}

/**
 * The next legal deadline, by the shared rule (machines/schema.ts `legalClocks`, the
 * same the reporter's status page and the reminder mails use): acknowledgement until
 * a CONFIRMATION (or a FEEDBACK) message was sent, then feedback, due 3 months after
 * that acknowledgement (or after day 7 when it came late), until a FEEDBACK message
 * was sent; none before receipt (a phone case waiting for the call), after feedback,
 * or once closed.
 */
export function nextDeadline(c: { status: string; received: Date | null; acknowledgedAt: Date | null; feedbackAt: Date | null }): Deadline | null {
  if (c.status === 'CLOSED' || c.status === 'PENDING_WHISTLEBLOWER_CONTACT') return null;
  const clocks = legalClocks(c.received, c.acknowledgedAt, c.feedbackAt);
  if (!clocks) return null;
  if (!clocks.acknowledgement.metAt) return { kind: 'ACKNOWLEDGEMENT', due: clocks.acknowledgement.due.toISOString() };
  if (!clocks.feedback.metAt) return { kind: 'FEEDBACK', due: clocks.feedback.due.toISOString() };
  return null;
}

export interface InboxRow {
  caseNumber: string;
  status: CaseStatus;
  created: string;
  submission: { type: SubmissionType };
  creationChannel: CreationChannel;
  /** How a report a handler entered came (docs/decisions/handler-entered-reports.md); null: the reporter sent it. */
  entryChannel: EntryChannel | null;
  protectionOfficerId: string;
  /** The officer's and subsidiary's names from the company file, so rows tell cases apart without content. */
  officerName: string | null;
  subsidiary: { id: string; name: string } | null;
  assignee: { id: string; name: string } | null;
  /** Whether the case is shared with the handler asking. */
  sharedWithMe: boolean;
  receivedDate: string | null;
  pendingWhistleblowerAction: boolean;
  approvedAt: string | null;
  unreadMessages: number;
  deadline: Deadline | null;
  /** When the retention rules delete the case (server/retention/policy.ts); null while it is handled. */
  scheduledDeletion: string | null;
}

const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

/** Facts the clocks need for a set of cases, in three queries. */
async function caseFacts(ctx: AppContext, handlerId: string, rows: readonly { id: string; case_number: string }[]) {
  const ids = rows.map((r) => r.id);
  const received = new Map<string, Date>();
  const closed = new Map<string, Date>();
  const acknowledged = new Map<string, Date>();
  const feedback = new Map<string, Date>();
  const unread = new Map<string, number>();
  const facts = { received, closed, acknowledged, feedback, unread };
  if (!ids.length) return facts;
  const [events, messages, seen, comments, approvals] = await Promise.all([
    ctx.db.selectFrom('case_status_event').select(['case_id', 'status', 'at']).where('case_id', 'in', ids).where('status', 'in', ['RECEIVED', 'CLOSED']).orderBy('id').execute(),
    ctx.db.selectFrom('case_message').select(['case_id', 'type', 'created_by', 'created_at']).where('case_id', 'in', ids).execute(),
    ctx.db.selectFrom('handler_case_seen').select(['case_id', 'seen_at']).where('handler_id', '=', handlerId).where('case_id', 'in', ids).execute(),
    // The reporter's comments on the record and approvals of it are the reporter speaking too (issue 38).
    ctx.db.selectFrom('case_comment').select(['case_id', 'created_at']).where('case_id', 'in', ids).execute(),
    ctx.db.selectFrom('case_record_version').select(['case_id', 'approved_at']).where('case_id', 'in', ids).where('approved_at', 'is not', null).execute(),
  ]);
  for (const e of events) {
    if (e.status === 'CLOSED') closed.set(e.case_id, new Date(e.at)); // the latest close counts
    else if (!received.has(e.case_id)) received.set(e.case_id, new Date(e.at));
  }
  const seenAt = new Map(seen.map((s) => [s.case_id, new Date(s.seen_at).getTime()]));
  const numberOf = new Map(rows.map((r) => [r.id, r.case_number]));
  const earliest = (map: Map<string, Date>, id: string, at: Date) => {
    const had = map.get(id);
    if (!had || at < had) map.set(id, at);
  };
  const fromReporter = (caseId: string, at: Date) => {
    if (at.getTime() > (seenAt.get(caseId) ?? 0)) unread.set(caseId, (unread.get(caseId) ?? 0) + 1);
  };
  for (const c of comments) fromReporter(c.case_id, new Date(c.created_at));
  for (const a of approvals) if (a.approved_at) fromReporter(a.case_id, new Date(a.approved_at));
  for (const m of messages) {
    const at = new Date(m.created_at);
    if (m.created_by === numberOf.get(m.case_id)) fromReporter(m.case_id, at);
    else {
      if (m.type === 'CONFIRMATION' || m.type === 'FEEDBACK') earliest(acknowledged, m.case_id, at);
      if (m.type === 'FEEDBACK') earliest(feedback, m.case_id, at);
    }
  }
  return facts;
}

const clockFacts = (facts: Awaited<ReturnType<typeof caseFacts>>, id: string) => ({
  received: facts.received.get(id) ?? null,
  acknowledgedAt: facts.acknowledged.get(id) ?? null,
  feedbackAt: facts.feedback.get(id) ?? null,
});

export interface InboxPage {
  cases: InboxRow[];
  /** Where the next page starts (pass it back as `cursor`); null on the last page. */
  nextCursor: string | null;
}

/**
 * A cursor is the last row's (created_at, id), the inbox's order, so a page costs an
 * index range scan from there whatever the number of cases before it (an offset would
 * read and drop them all). created_at is written from a JS Date, so milliseconds hold it whole.
 */
function encodeCursor(createdAt: Date | string, id: string): string {
  return Buffer.from(`${iso(createdAt)}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (rest.length || !id || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) || Number.isNaN(createdAt.getTime())) {
    throw new HttpError(400, 'VALIDATION', 'cursor must be a cursor from a previous page.', 'cursor');
  }
  return { createdAt, id };
}

/**
 * One page of the cases this handler may see, newest first, with the filters applied
 * before paging (so a page is full whatever they keep). The SPA orders the rows it
 * has loaded by their legal clock (machines/handler/inbox.ts `inboxRows`).
 */
export async function inbox(ctx: AppContext, handler: HandlerIdentity, query: InboxQuery = {}): Promise<InboxPage> {
  const limit = query.limit ?? INBOX_PAGE.default;
  const digits = (query.search ?? '').replace(/\D/g, '');
  let q = visibleCases(ctx, handler).select([
    'report_case.id',
    'report_case.case_number',
    'report_case.status',
    'report_case.created_at',
    'report_case.submission_type',
    'report_case.creation_channel',
    'report_case.entry_channel',
    'report_case.protection_officer_id',
    'report_case.pending_whistleblower_action',
    'report_case.approved_at',
    'report_case.subsidiary_id',
    'report_case.assignee_id',
  ]);
  if (query.status) q = q.where('report_case.status', '=', query.status);
  if (query.open === 'true') q = q.where('report_case.status', '!=', 'CLOSED');
  if (query.assigned === 'ME') q = q.where('report_case.assignee_id', '=', handler.id);
  else if (query.assigned === 'UNASSIGNED') q = q.where('report_case.assignee_id', 'is', null);
  else if (query.assigned === 'SHARED') q = q.where((eb) => eb.exists(eb.selectFrom('case_share').select('case_share.case_id').whereRef('case_share.case_id', '=', 'report_case.id').where('case_share.handler_id', '=', handler.id)));
  if (query.channel) q = q.where('report_case.submission_type', '=', query.channel);
  if (digits.length === 16) q = q.where('report_case.case_number', '=', digits);
  else if (digits) q = q.where('report_case.case_number', 'like', `%${digits}%`);
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    q = q.where((eb) => eb(eb.refTuple('report_case.created_at', 'report_case.id'), '<', eb.tuple(c.createdAt, c.id)));
  }
  // One row more than asked says whether another page follows, without a count.
  const found = await q.orderBy('report_case.created_at', 'desc').orderBy('report_case.id', 'desc').limit(limit + 1).execute();
  const rows = found.slice(0, limit);
  const last = found.length > limit ? rows.at(-1) : undefined;
  const assigneeIds = [...new Set(rows.map((r) => r.assignee_id).filter((id): id is string => !!id))];
  const [facts, company, assignees, shared] = await Promise.all([
    caseFacts(ctx, handler.id, rows),
    companyById(ctx.db, handler.company_id),
    assigneeIds.length ? ctx.db.selectFrom('handler_account').select(['id', 'name']).where('id', 'in', assigneeIds).execute() : [],
    rows.length ? ctx.db.selectFrom('case_share').select('case_id').where('handler_id', '=', handler.id).where('case_id', 'in', rows.map((r) => r.id)).execute() : [],
  ]);
  const retention = retentionOf(company?.settings);
  const officers = new Map((company?.settings.protectionOfficers ?? []).map((o) => [o.id, o.name]));
  const subsidiaries = new Map((company?.settings.subsidiaries ?? []).map((x) => [x.id, x.name]));
  const assigneeName = new Map(assignees.map((a) => [a.id, a.name]));
  const sharedIds = new Set(shared.map((x) => x.case_id));
  const cases = rows.map((r) => {
    const received = facts.received.get(r.id) ?? null;
    return {
      caseNumber: r.case_number,
      status: r.status as CaseStatus,
      created: iso(r.created_at),
      submission: { type: r.submission_type as SubmissionType },
      creationChannel: r.creation_channel as CreationChannel,
      entryChannel: (r.entry_channel ?? null) as EntryChannel | null,
      protectionOfficerId: r.protection_officer_id,
      officerName: officers.get(r.protection_officer_id) ?? null,
      subsidiary: r.subsidiary_id ? { id: r.subsidiary_id, name: subsidiaries.get(r.subsidiary_id) ?? r.subsidiary_id } : null,
      assignee: r.assignee_id ? { id: r.assignee_id, name: assigneeName.get(r.assignee_id) ?? '' } : null,
      sharedWithMe: sharedIds.has(r.id),
      receivedDate: received ? received.toISOString() : null,
      pendingWhistleblowerAction: r.pending_whistleblower_action,
      approvedAt: r.approved_at ? iso(r.approved_at) : null,
      unreadMessages: facts.unread.get(r.id) ?? 0,
      deadline: nextDeadline({ status: r.status, ...clockFacts(facts, r.id) }),
      scheduledDeletion:
        scheduledDeletion({ status: r.status, submissionType: r.submission_type, createdAt: new Date(r.created_at), closedAt: facts.closed.get(r.id) ?? null }, retention)?.at.toISOString() ?? null,
    };
  });
  return { cases, nextCursor: last ? encodeCursor(last.created_at, last.id) : null };
}

/** The clock of one case. */
export async function deadlineOf(ctx: AppContext, handler: HandlerIdentity, row: CaseRow): Promise<Deadline | null> {
  const facts = await caseFacts(ctx, handler.id, [row]);
  return nextDeadline({ status: row.status, ...clockFacts(facts, row.id) });
}

/** Reporter messages up to now are read by this handler. */
export async function markSeen(ctx: AppContext, handler: HandlerIdentity, caseId: string): Promise<void> {
  const now = new Date();
  await ctx.db
    .insertInto('handler_case_seen')
    .values({ handler_id: handler.id, case_id: caseId, seen_at: now })
    .onConflict((oc) => oc.columns(['handler_id', 'case_id']).doUpdateSet({ seen_at: now }))
    .execute();
}

// ---- audit trail ---------------------------------------------------------------

/**
 * Whether this is the sitting's first opening of the case, and if so marks it: a sitting
 * is the workspace session (its token's hash), or for a script's API token one UTC day, so
 * "opened the case" is one entry per sitting, not one per reload (issue 38 Build 6).
 */
export async function firstOpeningInSitting(ctx: AppContext, sitting: string, caseId: string): Promise<boolean> {
  const r = await ctx.db
    .insertInto('handler_case_sitting')
    .values({ sitting, case_id: caseId, at: ctx.clock.now() })
    .onConflict((oc) => oc.columns(['sitting', 'case_id']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

// ACCESS_GRANTED: a sealed case's key re-wrapped to a colleague; ACCESS_REVOKED: a colleague's key revoked, the case's next key epoch (server/cases/grants.ts).
export const AUDIT_ACTIONS = ['CASE_READ', 'FILE_DOWNLOADED', 'STATUS_CHANGED', 'MESSAGE_SENT', 'RECORD_EDITED', 'ASSIGNED', 'UNASSIGNED', 'SHARED', 'UNSHARED', 'ACCESS_GRANTED', 'ACCESS_REVOKED', 'CASE_EXPORTED', 'CASE_ENTERED', 'NOTE_ADDED', 'NOTE_EDITED', 'NOTE_FILES_ADDED'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  at: string;
  handlerId: string;
  handlerName: string;
  action: AuditAction;
  detail: Record<string, string | number | boolean>;
}

const AUDIT_COLUMN = 'case_audit.entry_enc';

type AuditRow = { id: string; wrapped_key: Uint8Array | null; sealed?: boolean };

/**
 * Appends one entry; sealed with the case's key and bound to its time. A sealed case
 * (no key here) gets it in clear: only the act, who, when and ids or enums the server
 * learnt by serving it, never content (docs/decisions/sealed-workspace.md "Status and audit").
 */
export async function appendAudit(ctx: AppContext, handler: HandlerIdentity, row: AuditRow, action: AuditAction, detail: AuditEntry['detail'] = {}): Promise<void> {
  const at = new Date();
  const entry = { handlerId: handler.id, handlerName: handler.name, action, detail };
  if (row.sealed) {
    await ctx.db.insertInto('case_audit').values({ case_id: row.id, at, entry: JSON.stringify(entry) }).execute();
    return;
  }
  const key = await caseKey(ctx, row);
  await ctx.db.insertInto('case_audit').values({ case_id: row.id, at, entry_enc: ctx.crypto.sealJson(key, row.id, AUDIT_COLUMN, entry, at.toISOString()) }).execute();
}

/** An entry written while the case was server-keyed (a case sealed by `retire-master`): sealed under the data key its handlers hold, opened in their browsers. */
export interface SealedAuditEnvelope {
  at: string;
  sealed: string;
}

export async function readAudit(ctx: AppContext, row: AuditRow): Promise<(AuditEntry | SealedAuditEnvelope)[]> {
  const rows = await ctx.db.selectFrom('case_audit').select(['at', 'entry_enc', 'entry']).where('case_id', '=', row.id).orderBy('id').execute();
  if (row.sealed) return rows.map((r) => (r.entry !== null ? { at: iso(r.at), ...clearEntry(r.entry) } : { at: iso(r.at), sealed: Buffer.from(r.entry_enc!).toString('base64') }));
  const key = await caseKey(ctx, row);
  return rows.map((r) => {
    const at = iso(r.at);
    return { at, ...ctx.crypto.openJson<Omit<AuditEntry, 'at'>>(key, row.id, AUDIT_COLUMN, r.entry_enc!, at) };
  });
}

/** A clear entry as stored (jsonb: an object; a driver may hand back its text). */
function clearEntry(stored: unknown): Omit<AuditEntry, 'at'> {
  const e = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Omit<AuditEntry, 'at'>;
  return { handlerId: e.handlerId, handlerName: e.handlerName, action: e.action, detail: e.detail ?? {} };
}
