/**
 * Grants and revocations of a sealed case's data key (issue 37, docs/decisions/blind-server.md "Grants"
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
 * - A revocation (`revokeCaseKey`) starts the next key epoch in one transaction under a
 *   row lock on the case: the revoking handler holds the current epoch, names it + 1,
 *   wraps the new key to exactly the remaining holders (the revoked key left out, at
 *   least one handler left), links it back (and forward for the reporter); the server
 *   then drops every wrap of the revoked key and refuses its holder from then on
 *   (sealed.ts refuseRevoked). Any refusal stores nothing.
 */
import { fromBase64, keyId, verifyKeyLog, FIELD_VERSION, NONCE_BYTES, TAG_BYTES, DATA_KEY_BYTES } from '../../core/crypto/index.ts';
import type { KeyEpochDto, KeyGrantDto, ReporterEpochWrapDto } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readKeyLog } from '../keys/key-log.ts';
import { liveHandlerHolding, visibleCases, type HandlerIdentity } from '../handlers/cases.ts';
import { currentEpoch, handlerRecipientId, parseWrap, refuseRevoked } from './sealed.ts';

export { currentEpoch };

type CaseRef = { id: string; sealed: boolean; company_id: string; protection_officer_id: string };

export interface WrapHolders {
  epoch: number;
  /** Handler and recovery keys holding a wrap of the current epoch. */
  recipientKeyIds: string[];
  holders: { recipientKeyId: string; kind: 'handler' | 'recovery' }[];
  /** The case has a reporter wrap: a new epoch needs a forward link for the reporter. */
  reporter: boolean;
}

/** Who holds the current epoch: what a granter's page leaves out of "Give a colleague access", and whom a revocation wraps the next key to. */
export async function wrapHolders(ctx: Pick<AppContext, 'db'>, row: CaseRef): Promise<WrapHolders> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: it has no wrapped keys to grant.');
  const epoch = await currentEpoch(ctx, row.id);
  const rows = await ctx.db.selectFrom('case_key_wrap').select(['recipient_key_id', 'kind']).where('case_id', '=', row.id).where('epoch', '=', epoch).where('kind', 'in', ['handler', 'recovery']).orderBy('recipient_key_id').execute();
  const reporter = !!(await ctx.db.selectFrom('case_key_wrap').select('kind').where('case_id', '=', row.id).where('kind', '=', 'reporter').executeTakeFirst());
  return {
    epoch,
    recipientKeyIds: rows.map((r) => r.recipient_key_id),
    holders: rows.map((r) => ({ recipientKeyId: r.recipient_key_id, kind: r.kind as 'handler' | 'recovery' })),
    reporter,
  };
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
  const account = await liveHandlerHolding(ctx, row.company_id, logged.handlerId, dto.recipientKeyId);
  const entitled = !!account && !!(await visibleCases(ctx, account).select('report_case.id').where('report_case.id', '=', row.id).executeTakeFirst());
  if (!entitled) throw new HttpError(400, 'WRAP_NOT_ENTITLED', 'This key\'s holder is not a live handler entitled to this case\'s officer.', 'recipientKeyId');

  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('case_key_wrap').values({ case_id: row.id, epoch, recipient_key_id: dto.recipientKeyId, kind: 'handler', wrap, created_at: ctx.clock.now() }).execute();
      // A holder's deliberate grant lifts an earlier revocation of this key.
      await trx.deleteFrom('case_key_revocation').where('case_id', '=', row.id).where('recipient_key_id', '=', dto.recipientKeyId).execute();
    });
  } catch (err) {
    // Two grants racing: the primary key lets one land.
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'WRAP_EXISTS', 'This key already holds the case\'s key.', 'recipientKeyId');
    throw err;
  }
  return { recipientKeyId: dto.recipientKeyId, epoch };
}

const LINK_BYTES = 1 + NONCE_BYTES + DATA_KEY_BYTES + TAG_BYTES;

/** A link between two epochs' keys as core/crypto/epochs.ts seals it: a sealed field of a data key (exact size, version 1). */
function parseLink(text: string, field: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = Buffer.from(fromBase64(text));
  } catch {
    throw new HttpError(400, 'BAD_LINK', 'Send the key link in base64.', field);
  }
  if (bytes.length !== LINK_BYTES || bytes[0] !== FIELD_VERSION) throw new HttpError(400, 'BAD_LINK', 'This is not a data key sealed under another (core/crypto makeNextEpoch).', field);
  return bytes;
}

/**
 * Revokes one handler key from a sealed case: the next key epoch as the revoking
 * handler's browser made it (core/crypto/epochs.ts makeNextEpoch). Refused, storing
 * nothing: a case not sealed (409 CASE_NOT_SEALED), a caller without a wrap of the
 * current epoch (409 NO_CASE_KEY), an epoch other than the current + 1 (409
 * EPOCH_STALE: another revocation came first), a key that holds no handler wrap of the
 * current epoch (409 REVOKE_NOT_HOLDER), the last handler holding it (409 LAST_HOLDER),
 * a wrap set that is not exactly the remaining holders (400 DUPLICATE_WRAP,
 * WRAP_UNKNOWN_KEY, WRAP_MISSING, BAD_WRAP), a link of the wrong shape (400 BAD_LINK),
 * a forward link missing for a case with a reporter wrap (400 LINK_MISSING) or sent for
 * one without (400 LINK_UNEXPECTED).
 */
export async function revokeCaseKey(ctx: AppContext, caller: HandlerIdentity, row: CaseRef, dto: KeyEpochDto): Promise<{ epoch: number; revoked: string }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed: there is no data key to revoke.');
  const own = await handlerRecipientId(ctx, caller.id);
  const previous = parseLink(dto.previous, 'previous');
  const next = dto.next ? parseLink(dto.next, 'next') : null;
  const wraps = dto.wraps.map((w, i) => ({ ...w, bytes: parseWrap({ kind: w.kind, wrap: w.wrap }, `wraps[${i}]`) }));
  // The account that holds the revoked key now, for refusing it from then on.
  const accounts = await ctx.db.selectFrom('handler_account').select(['id', 'ecdh_spki']).where('company_id', '=', row.company_id).where('ecdh_spki', 'is not', null).execute();
  let revokedHandler: string | null = null;
  for (const a of accounts) if ((await keyId(new Uint8Array(a.ecdh_spki!))) === dto.revoke) revokedHandler = a.id;

  return ctx.db.transaction().execute(async (trx) => {
    // Two revocations racing: the second waits here, then finds the epoch taken.
    await trx.selectFrom('report_case').select('id').where('id', '=', row.id).forUpdate().executeTakeFirst();
    const maxRow = await trx.selectFrom('case_key_wrap').select((eb) => eb.fn.max('epoch').as('epoch')).where('case_id', '=', row.id).executeTakeFirst();
    const epoch = maxRow?.epoch ?? 1;
    const holders = await trx.selectFrom('case_key_wrap').select(['recipient_key_id', 'kind']).where('case_id', '=', row.id).where('epoch', '=', epoch).where('kind', 'in', ['handler', 'recovery']).execute();
    const kindOf = new Map(holders.map((h) => [h.recipient_key_id, h.kind]));
    if (!own || kindOf.get(own) !== 'handler') throw new HttpError(409, 'NO_CASE_KEY', 'Only a handler who holds this case\'s current key can revoke.');
    if (dto.epoch !== epoch + 1) throw new HttpError(409, 'EPOCH_STALE', `The next key epoch of this case is ${epoch + 1}: read the case again.`, 'epoch');
    if (kindOf.get(dto.revoke) !== 'handler' || !revokedHandler) throw new HttpError(409, 'REVOKE_NOT_HOLDER', 'This key holds no handler wrap of the case\'s current key.', 'revoke');
    const remaining = [...kindOf].filter(([id]) => id !== dto.revoke);
    if (!remaining.some(([, kind]) => kind === 'handler')) throw new HttpError(409, 'LAST_HOLDER', 'The last handler holding this case\'s key cannot be revoked: grant it to a colleague first.', 'revoke');
    const seen = new Set<string>();
    for (const [i, w] of wraps.entries()) {
      if (seen.has(w.recipientKeyId)) throw new HttpError(400, 'DUPLICATE_WRAP', 'Wrap the new key once per key.', `wraps[${i}]`);
      seen.add(w.recipientKeyId);
      if (w.recipientKeyId === dto.revoke || kindOf.get(w.recipientKeyId) !== w.kind) throw new HttpError(400, 'WRAP_UNKNOWN_KEY', 'Wrap the new key to the remaining holders of the current one only.', `wraps[${i}]`);
    }
    for (const [id] of remaining) if (!seen.has(id)) throw new HttpError(400, 'WRAP_MISSING', `The new key is not wrapped to key ${id}.`, 'wraps');
    const reporter = !!(await trx.selectFrom('case_key_wrap').select('kind').where('case_id', '=', row.id).where('kind', '=', 'reporter').executeTakeFirst());
    if (reporter && !next) throw new HttpError(400, 'LINK_MISSING', 'This case has a reporter: link the new key forward from the current one (`next`).', 'next');
    if (!reporter && next) throw new HttpError(400, 'LINK_UNEXPECTED', 'This case has no reporter wrap: send no forward link.', 'next');

    const now = ctx.clock.now();
    const newEpoch = epoch + 1;
    await trx
      .insertInto('case_key_wrap')
      .values([
        ...wraps.map((w) => ({ case_id: row.id, epoch: newEpoch, recipient_key_id: w.recipientKeyId, kind: w.kind, wrap: w.bytes, created_at: now })),
        { case_id: row.id, epoch: newEpoch, recipient_key_id: 'previous', kind: 'previous' as const, wrap: previous, created_at: now },
        ...(next ? [{ case_id: row.id, epoch: newEpoch, recipient_key_id: 'reporter-next', kind: 'next' as const, wrap: next, created_at: now }] : []),
      ])
      .execute();
    // Every wrap of the revoked key goes, older epochs too: the server hands it nothing from now on.
    await trx.deleteFrom('case_key_wrap').where('case_id', '=', row.id).where('recipient_key_id', '=', dto.revoke).execute();
    await trx.deleteFrom('case_key_revocation').where('case_id', '=', row.id).where('recipient_key_id', '=', dto.revoke).execute();
    await trx.insertInto('case_key_revocation').values({ case_id: row.id, recipient_key_id: dto.revoke, handler_id: revokedHandler, epoch: newEpoch, created_at: now }).execute();
    return { epoch: newEpoch, revoked: dto.revoke };
  });
}

/**
 * The reporter's wrap of a later epoch, made in her page after it walked forward: stored
 * as her wrap of that epoch, and the `next` links up to it are deleted, so the server
 * holds no link a revoked handler's old key could open from then on. Refused, storing
 * nothing: a case not sealed or without a reporter wrap (409 CASE_NOT_SEALED,
 * NO_CASE_KEY), an epoch not after her newest wrap, beyond the current, or not reached
 * by the links (409 EPOCH_STALE), a wrap of the wrong shape (400 BAD_WRAP). Her older
 * wrap goes (one reporter wrap per case; the back links reach the older keys). The server
 * cannot check that it opens: a page that stores garbage harms only its own reporter,
 * and only once the links are gone (the recovery key and the handlers still hold it).
 */
export async function storeReporterEpochWrap(ctx: AppContext, row: { id: string; sealed: boolean }, dto: ReporterEpochWrapDto): Promise<{ epoch: number }> {
  if (!row.sealed) throw new HttpError(409, 'CASE_NOT_SEALED', 'This case is not sealed.');
  const wrap = parseWrap({ kind: 'reporter', wrap: dto.wrap }, 'wrap');
  return ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('report_case').select('id').where('id', '=', row.id).forUpdate().executeTakeFirst();
    const newest = await trx.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', row.id).where('kind', '=', 'reporter').orderBy('epoch', 'desc').executeTakeFirst();
    if (!newest) throw new HttpError(409, 'NO_CASE_KEY', 'This case has no reporter wrap.');
    const links = await trx.selectFrom('case_key_wrap').select('epoch').where('case_id', '=', row.id).where('kind', '=', 'next').where('epoch', '>', newest.epoch).where('epoch', '<=', dto.epoch).execute();
    if (dto.epoch <= newest.epoch || links.length !== dto.epoch - newest.epoch) throw new HttpError(409, 'EPOCH_STALE', 'Read the case again: this is not an epoch your wrap reaches by its links.', 'epoch');
    await trx.insertInto('case_key_wrap').values({ case_id: row.id, epoch: dto.epoch, recipient_key_id: 'reporter', kind: 'reporter', wrap, created_at: ctx.clock.now() }).execute();
    await trx.deleteFrom('case_key_wrap').where('case_id', '=', row.id).where('kind', '=', 'next').where('epoch', '<=', dto.epoch).execute();
    // One reporter wrap per case, the newest: the back links reach the older keys, and a password change re-wraps exactly one.
    await trx.deleteFrom('case_key_wrap').where('case_id', '=', row.id).where('kind', '=', 'reporter').where('epoch', '<', dto.epoch).execute();
    return { epoch: dto.epoch };
  });
}

export { refuseRevoked };
