/**
 * Assignment and sharing of a case (issue 38 Build 2, docs/decisions/handler-everyday-work.md).
 * A case has at most one assignee and any number of colleagues it is shared with; every one
 * of them must be entitled to the case the way `visibleCases` (server/handlers/cases.ts,
 * the one place of officer scoping) says, on a live handler account of the case's company.
 * A colleague who is not is refused with 400 COLLEAGUE_NOT_ENTITLED and nothing is stored,
 * so assignment never widens who sees a case: it names who works on it.
 */
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { visibleCases, type HandlerIdentity } from './cases.ts';

export interface Colleague {
  id: string;
  name: string;
}

export interface Assignment {
  assignee: Colleague | null;
  shares: Colleague[];
}

const uuid = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.uuid('must be a handler account id'));
export const assigneeSchema = v.object({ handlerId: v.nullable(uuid) });
export const shareSchema = v.object({ handlerId: uuid });

/** Live handler accounts of the case's company that may see it; the assignment choices. */
export async function entitledColleagues(ctx: AppContext, row: { id: string; company_id: string }): Promise<Colleague[]> {
  const accounts = await ctx.db
    .selectFrom('handler_account')
    .select(['id', 'name', 'company_id'])
    .where('company_id', '=', row.company_id)
    .where('role_handler', '=', true)
    .where('disabled_at', 'is', null)
    .where('enrolment_code_hash', 'is', null)
    .orderBy('name')
    .execute();
  const out: Colleague[] = [];
  for (const a of accounts) if (await mayHandle(ctx, { id: a.id, company_id: a.company_id!, name: a.name }, row.id)) out.push({ id: a.id, name: a.name });
  return out;
}

function mayHandle(ctx: AppContext, h: HandlerIdentity, caseId: string): Promise<boolean> {
  return visibleCases(ctx, h)
    .select('report_case.id')
    .where('report_case.id', '=', caseId)
    .executeTakeFirst()
    .then((r) => !!r);
}

async function entitled(ctx: AppContext, row: { id: string; company_id: string }, handlerId: string): Promise<Colleague> {
  const a = await ctx.db
    .selectFrom('handler_account')
    .select(['id', 'name', 'company_id'])
    .where('id', '=', handlerId)
    .where('company_id', '=', row.company_id)
    .where('role_handler', '=', true)
    .where('disabled_at', 'is', null)
    .where('enrolment_code_hash', 'is', null)
    .executeTakeFirst();
  if (!a || !(await mayHandle(ctx, { id: a.id, company_id: a.company_id!, name: a.name }, row.id))) {
    throw new HttpError(400, 'COLLEAGUE_NOT_ENTITLED', 'This colleague may not handle this case (another protection officer, another company, or no live handler account).', 'handlerId');
  }
  return { id: a.id, name: a.name };
}

export async function assignmentOf(ctx: AppContext, caseId: string): Promise<Assignment> {
  const [assignee, shares] = await Promise.all([
    ctx.db.selectFrom('report_case').innerJoin('handler_account', 'handler_account.id', 'report_case.assignee_id').select(['handler_account.id', 'handler_account.name']).where('report_case.id', '=', caseId).executeTakeFirst(),
    ctx.db.selectFrom('case_share').innerJoin('handler_account', 'handler_account.id', 'case_share.handler_id').select(['handler_account.id', 'handler_account.name']).where('case_share.case_id', '=', caseId).orderBy('handler_account.name').execute(),
  ]);
  return { assignee: assignee ?? null, shares };
}

export type AssignmentAct = { action: 'ASSIGNED'; detail: { to: string; from?: string } } | { action: 'UNASSIGNED'; detail: { from: string } } | { action: 'SHARED' | 'UNSHARED'; detail: { with: string } };

/** Assigns (or, with null, unassigns) the case; the colleague becomes the assignee and stops being a share. */
export async function setAssignee(ctx: AppContext, row: { id: string; company_id: string }, handlerId: string | null): Promise<AssignmentAct> {
  const before = await assignmentOf(ctx, row.id);
  if (handlerId === null) {
    if (!before.assignee) throw new HttpError(409, 'ASSIGNEE_UNCHANGED', 'The case is not assigned.', 'handlerId');
    await ctx.db.updateTable('report_case').set({ assignee_id: null }).where('id', '=', row.id).execute();
    return { action: 'UNASSIGNED', detail: { from: before.assignee.name } };
  }
  const to = await entitled(ctx, row, handlerId);
  if (before.assignee?.id === to.id) throw new HttpError(409, 'ASSIGNEE_UNCHANGED', 'The case is already assigned to this colleague.', 'handlerId');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('report_case').set({ assignee_id: to.id }).where('id', '=', row.id).execute();
    await trx.deleteFrom('case_share').where('case_id', '=', row.id).where('handler_id', '=', to.id).execute();
  });
  return { action: 'ASSIGNED', detail: before.assignee ? { to: to.name, from: before.assignee.name } : { to: to.name } };
}

export async function shareCase(ctx: AppContext, by: HandlerIdentity, row: { id: string; company_id: string }, handlerId: string): Promise<AssignmentAct> {
  const colleague = await entitled(ctx, row, handlerId);
  const before = await assignmentOf(ctx, row.id);
  if (before.assignee?.id === colleague.id || before.shares.some((s) => s.id === colleague.id)) {
    throw new HttpError(409, 'ALREADY_SHARED', 'This colleague already works on the case.', 'handlerId');
  }
  const inserted = await ctx.db
    .insertInto('case_share')
    .values({ case_id: row.id, handler_id: colleague.id, shared_by: by.id, created_at: ctx.clock.now() })
    .onConflict((oc) => oc.columns(['case_id', 'handler_id']).doNothing())
    .executeTakeFirst();
  if (!inserted.numInsertedOrUpdatedRows) throw new HttpError(409, 'ALREADY_SHARED', 'This colleague already works on the case.', 'handlerId');
  return { action: 'SHARED', detail: { with: colleague.name } };
}

export async function unshareCase(ctx: AppContext, row: { id: string }, handlerId: string): Promise<AssignmentAct> {
  const gone = await ctx.db.deleteFrom('case_share').where('case_id', '=', row.id).where('handler_id', '=', handlerId).returning('handler_id').executeTakeFirst();
  if (!gone) throw new HttpError(404, 'SHARE_NOT_FOUND', 'The case is not shared with this colleague.', 'handlerId');
  const a = await ctx.db.selectFrom('handler_account').select('name').where('id', '=', handlerId).executeTakeFirst();
  return { action: 'UNSHARED', detail: { with: a?.name ?? '' } };
}
