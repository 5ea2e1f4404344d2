/**
 * The reporter's password change on a sealed case (issue 37, spec §4; docs/decisions/
 * sealed-reporter-pages.md "Password change"): the new-password page unwraps the case's data
 * key with the old reporter key, wraps it under the key the new password derives, and
 * sends those wraps with the new verifier, salt and kdf. The server swaps all of them in
 * one transaction.
 *
 * Invariants:
 * - The server cannot open a reporter wrap (it never holds the reporter key), so it
 *   checks what it can: each wrap is core/crypto's `wrapDataKey` shape (61 bytes,
 *   version 1), one per epoch, exactly the epochs the case holds reporter wraps for
 *   (read under a row lock on the account, so a wrap added meanwhile is not left under
 *   the old key), and none is byte for byte the stored one (a page that skipped the
 *   re-wrap would leave a wrap only the old password opens). Anything else: 400 and
 *   nothing changes.
 * - That the new key opens the wrap is proved by the page itself before it sends
 *   (password.js opens each new wrap with the new key and compares). A page that sent a
 *   wrap under another key would lock out only its own reporter (the handlers' and the
 *   recovery key's wraps are untouched), which whoever knows the old password could do
 *   anyway by choosing a password and forgetting it.
 * - The old wraps go in the same transaction: after the change the old password opens
 *   nothing, not even from a copy of the database.
 */
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import type { DB } from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import * as v from 'valibot';
import { reporterRewrapsSchema } from '../../machines/schema.ts';
import { parseWrap } from './sealed.ts';

export interface ReporterRewrap {
  epoch: number;
  wrap: Buffer;
}

/** A sealed case's reporter wraps, as its new-password page re-wraps them; null for a case the server keys. */
export async function reporterWrapsOf(ctx: Pick<AppContext, 'db'>, caseId: string): Promise<{ caseId: string; wraps: { epoch: number; wrap: string }[] } | null> {
  const row = await ctx.db.selectFrom('report_case').select(['id', 'sealed']).where('id', '=', caseId).executeTakeFirst();
  if (!row?.sealed) return null;
  const wraps = await ctx.db
    .selectFrom('case_key_wrap')
    .select(['epoch', 'wrap'])
    .where('case_id', '=', caseId)
    .where('kind', '=', 'reporter')
    .orderBy('epoch')
    .execute();
  return { caseId, wraps: wraps.map((w) => ({ epoch: w.epoch, wrap: Buffer.from(w.wrap).toString('base64') })) };
}

/** The posted `wraps` field: JSON `[{ epoch, wrap }]`, each wrap core/crypto's reporter wrap in base64; 400 otherwise. */
export function parseRewraps(text: unknown): ReporterRewrap[] {
  let list: unknown;
  try {
    list = typeof text === 'string' && text.length <= 64 * 1024 ? JSON.parse(text) : undefined;
  } catch {
    list = undefined;
  }
  const parsed = v.safeParse(reporterRewrapsSchema, list);
  if (!parsed.success) {
    const at = parsed.issues[0]?.path?.[0]?.key;
    throw new HttpError(400, 'BAD_WRAP', 'Send wraps: JSON [{ "epoch": n, "wrap": "<base64>" }], the data key of each epoch wrapped to the new reporter key.', typeof at === 'number' ? `wraps[${at}]` : 'wraps');
  }
  const seen = new Set<number>();
  return parsed.output.map(({ epoch, wrap }, i) => {
    const field = `wraps[${i}]`;
    if (seen.has(epoch)) throw new HttpError(400, 'DUPLICATE_WRAP', 'Wrap the data key once per epoch.', field);
    seen.add(epoch);
    return { epoch, wrap: parseWrap({ kind: 'reporter', wrap }, field) };
  });
}

/**
 * Swaps the case's reporter wraps for the re-wrapped ones, in the password change's
 * transaction: exactly the epochs it holds (400 `WRAP_MISSING` / `WRAP_UNEXPECTED`
 * otherwise), none left as it was (400 `BAD_WRAP`). Throws before writing anything.
 */
export async function swapReporterWraps(trx: Transaction<DB>, caseId: string, posted: ReporterRewrap[]): Promise<void> {
  // The account row is the lock every change of the reporter's secret takes.
  await trx.selectFrom('case_account').select('case_id').where('case_id', '=', caseId).forUpdate().executeTakeFirst();
  const stored = await trx.selectFrom('case_key_wrap').select(['epoch', 'wrap']).where('case_id', '=', caseId).where('kind', '=', 'reporter').execute();
  const byEpoch = new Map(stored.map((w) => [w.epoch, Buffer.from(w.wrap)]));
  for (const [i, p] of posted.entries()) {
    const old = byEpoch.get(p.epoch);
    if (!old) throw new HttpError(400, 'WRAP_UNEXPECTED', `This case holds no reporter wrap of epoch ${p.epoch}.`, `wraps[${i}]`);
    if (old.equals(p.wrap)) throw new HttpError(400, 'BAD_WRAP', 'This is the wrap to the old reporter key: wrap the data key to the new one.', `wraps[${i}]`);
  }
  const missing = stored.filter((w) => !posted.some((p) => p.epoch === w.epoch));
  if (missing.length) throw new HttpError(400, 'WRAP_MISSING', `The data key of epoch ${missing[0]!.epoch} is not re-wrapped: load the page again.`, 'wraps');
  for (const p of posted) {
    await trx.updateTable('case_key_wrap').set({ wrap: p.wrap, created_at: new Date() }).where('case_id', '=', caseId).where('kind', '=', 'reporter').where('epoch', '=', p.epoch).execute();
  }
}
