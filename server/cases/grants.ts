/**
 * Grants of a sealed case's data key (issue 37, docs/decisions/blind-server.md "Grants"
 * and "Handler pages and grants"): a handler whose browser opened the case re-wraps its
 * data key, as a sealed box, to a colleague's key; the server stores the box as one more
 * `case_key_wrap` row. The server cannot check that the box opens (it has no private
 * key); it checks everything it can without one.
 *
 * Invariants:
 * - A grant is stored only for a key the company's key log (verified here with
 *   `verifyKeyLog`, as the browsers verify it) certifies as active, held now by a live
 *   handler account of the same company that `visibleCases` (the one place officer
 *   scoping lives) lets see the case. Another company's key, an uncertified key, a
 *   disabled account or one of another officer is refused, and nothing is stored.
 * - Only a handler who holds a wrap of the case's current epoch grants: without one
 *   there is no data key to re-wrap.
 * - A second grant to the same key answers 409 `WRAP_EXISTS` and changes nothing (the
 *   browser may resend after a lost answer). No audit entry: the audit is sealed under
 *   the case's key, which the server does not have.
 */
import { fromBase64, keyId, verifyKeyLog } from '../../core/crypto/index.ts';
import type { KeyGrantDto } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readKeyLog } from '../keys/key-log.ts';
import { visibleCases, type HandlerIdentity } from '../handlers/cases.ts';
import { FIRST_EPOCH, handlerRecipientId, parseWrap } from './sealed.ts';

type CaseRef = { id: string; sealed: boolean; company_id: string; protection_officer_id: string };

/** The case's current key epoch: the newest with a wrap (a revocation would start the next). */
export async function currentEpoch(ctx: Pick<AppContext, 'db'>, caseId: string): Promise<number> {
  const row = await ctx.db.selectFrom('case_key_wrap').select((eb) => eb.fn.max('epoch').as('epoch')).where('case_id', '=', caseId).executeTakeFirst();
  return row?.epoch ?? FIRST_EPOCH;
}

/** Key ids holding a wrap of the current epoch: what a granter's page leaves out of "Give a colleague access". */
export async function wrapHolders(ctx: Pick<AppContext, 'db'>, row: CaseRef): Promise<{ epoch: number; recipientKeyIds: string[] }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: it has no wrapped keys to grant.');
  const epoch = await currentEpoch(ctx, row.id);
  const rows = await ctx.db.selectFrom('case_key_wrap').select('recipient_key_id').where('case_id', '=', row.id).where('epoch', '=', epoch).where('kind', '!=', 'reporter').orderBy('recipient_key_id').execute();
  return { epoch, recipientKeyIds: rows.map((r) => r.recipient_key_id) };
}

export async function grantCaseKey(ctx: AppContext, granter: HandlerIdentity, row: CaseRef, dto: KeyGrantDto): Promise<{ recipientKeyId: string; epoch: number }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: there is no data key to grant.');
  const epoch = await currentEpoch(ctx, row.id);
  const wrapOf = (recipientKeyId: string) =>
    ctx.db.selectFrom('case_key_wrap').select('recipient_key_id').where('case_id', '=', row.id).where('epoch', '=', epoch).where('recipient_key_id', '=', recipientKeyId).executeTakeFirst();
  const own = await handlerRecipientId(ctx, granter.id);
  if (!own || !(await wrapOf(own))) throw new HttpError(409, 'NO_CASE_KEY', 'Only a handler who holds this case\'s key can grant it.');
  const wrap = parseWrap({ kind: 'handler', wrap: dto.wrap }, 'wrap');
  if (await wrapOf(dto.recipientKeyId)) throw new HttpError(409, 'WRAP_EXISTS', 'This key already holds the case\'s key.', 'recipientKeyId');

  const log = await readKeyLog(ctx, row.company_id);
  const checked = log.anchor ? await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki)) : null;
  const logged = checked?.ok ? checked.keys.find((k) => k.ecdhKeyId === dto.recipientKeyId) : undefined;
  if (!logged) throw new HttpError(400, 'WRAP_UNKNOWN_KEY', 'The company\'s key log certifies no such key.', 'recipientKeyId');

  // The logged key must be the one its account holds now, on a live handler account of this company that may see the case.
  const account = await ctx.db.selectFrom('handler_account').select(['id', 'company_id', 'name', 'ecdh_spki', 'disabled_at', 'role_handler']).where('id', '=', logged.handlerId).executeTakeFirst();
  const holds = account?.ecdh_spki ? (await keyId(new Uint8Array(account.ecdh_spki))) === dto.recipientKeyId : false;
  const live = !!account && holds && account.company_id === row.company_id && account.disabled_at === null && account.role_handler;
  const entitled =
    live && !!(await visibleCases(ctx, { id: account.id, company_id: account.company_id!, name: account.name }).select('report_case.id').where('report_case.id', '=', row.id).executeTakeFirst());
  if (!entitled) throw new HttpError(400, 'WRAP_NOT_ENTITLED', 'This key\'s holder is not a live handler entitled to this case\'s officer.', 'recipientKeyId');

  try {
    await ctx.db.insertInto('case_key_wrap').values({ case_id: row.id, epoch, recipient_key_id: dto.recipientKeyId, kind: 'handler', wrap, created_at: ctx.clock.now() }).execute();
  } catch (err) {
    // Two grants racing: the primary key lets one land.
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'WRAP_EXISTS', 'This key already holds the case\'s key.', 'recipientKeyId');
    throw err;
  }
  return { recipientKeyId: dto.recipientKeyId, epoch };
}
