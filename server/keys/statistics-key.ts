/**
 * The company's statistics key on the server (issue 37 Build 3; docs/decisions/sealed-cases.md
 * "The statistics key"): its public half as a handler's browser made and signed it, the
 * private half sealed to handler keys, and each case's categories box.
 *
 * The server is not what makes the key trustworthy: the reporter's browser checks the
 * signature against the key log it verified itself (core/crypto verifyStatisticsKey).
 * The server checks the same before it stores the key so that it never publishes one no
 * browser would take, and it takes a categories box only to the key it publishes, of a
 * box's shape and size (it cannot open one). Nothing of a category is ever in clear here.
 */
import { fromBase64, keyId, toBase64, verifyKeyLog, verifyStatisticsKey, BOX_VERSION, type PublishedStatisticsKey } from '../../core/crypto/index.ts';
import type { StatisticsKeyDto } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readKeyLog } from './key-log.ts';

const asBytes = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** A categories box: version, ephemeral point, nonce, JSON of at least `{"v":1,…}` and at most a bounded one, tag. */
const BOX_OVERHEAD = 1 + 65 + 12 + 16;
export const CATEGORIES_MIN = BOX_OVERHEAD + 20;
export const CATEGORIES_MAX = BOX_OVERHEAD + 512;
/** A sealed PKCS#8 P-256 key (about 138 bytes of plaintext). */
const PRIVATE_MIN = BOX_OVERHEAD + 100;
const PRIVATE_MAX = BOX_OVERHEAD + 200;

export async function readStatisticsKey(ctx: Pick<AppContext, 'db'>, companyId: string): Promise<PublishedStatisticsKey | null> {
  const row = await ctx.db.selectFrom('company_statistics_key').selectAll().where('company_id', '=', companyId).executeTakeFirst();
  return row ? { spki: toBase64(asBytes(row.spki)), keyId: row.key_id, certifierKeyId: row.certifier_key_id, signature: row.signature } : null;
}

function boxBytes(text: string, min: number, max: number, field: string, what: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = Buffer.from(fromBase64(text));
  } catch {
    throw new HttpError(400, 'BAD_ENVELOPE', 'Send sealed parts in base64.', field);
  }
  if (bytes.length < min || bytes.length > max || bytes[0] !== BOX_VERSION) throw new HttpError(400, 'BAD_ENVELOPE', what, field);
  return bytes;
}

/**
 * Publishes the statistics key once: signed by the anchor or by the sending handler's
 * own certified key, its private half sealed to certified keys of the log (the sender's
 * among them, so at least one handler can count). 409 STATISTICS_KEY_SET when one is set.
 */
export async function setStatisticsKey(ctx: Pick<AppContext, 'db' | 'clock'>, companyId: string, handler: { ecdhSpki: Uint8Array | null }, dto: StatisticsKeyDto): Promise<PublishedStatisticsKey> {
  const log = await readKeyLog(ctx, companyId);
  if (!log.anchor) throw new HttpError(409, 'KEY_ANCHOR_MISSING', "This company's recovery key is not set yet.");
  const checked = await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki));
  if (!checked.ok) throw new HttpError(409, 'KEY_LOG_INVALID', `The key log does not verify: ${checked.reason}.`, checked.reason);
  const verified = await verifyStatisticsKey(dto.key, fromBase64(log.anchor.ecdsaSpki), checked.keys);
  if (!verified) throw new HttpError(400, 'STATISTICS_KEY_INVALID', 'Send an ECDH P-256 public key signed by the recovery key or your certified key (core/crypto signStatisticsKey).', 'key');
  const active = new Set(checked.keys.map((k) => k.ecdhKeyId));
  const own = handler.ecdhSpki ? await keyId(handler.ecdhSpki) : null;
  if (!own || !active.has(own)) throw new HttpError(409, 'KEYS_MISSING', 'Only a handler whose key the log certifies publishes the statistics key.');
  const seen = new Set<string>();
  const wraps = dto.wraps.map((w, i) => {
    if (!active.has(w.recipientKeyId)) throw new HttpError(400, 'WRAP_UNKNOWN_KEY', 'This key is not one the key log certifies.', `wraps[${i}]`);
    if (seen.has(w.recipientKeyId)) throw new HttpError(400, 'DUPLICATE_WRAP', 'Seal the private half once per key.', `wraps[${i}]`);
    seen.add(w.recipientKeyId);
    return { recipientKeyId: w.recipientKeyId, box: boxBytes(w.box, PRIVATE_MIN, PRIVATE_MAX, `wraps[${i}].box`, 'This is not a private key sealed to a handler key (core/crypto sealStatisticsPrivateKey).') };
  });
  if (!seen.has(own)) throw new HttpError(400, 'WRAP_MISSING', 'Seal the private half to your own key too.', 'wraps');
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('company_statistics_key')
      .values({ company_id: companyId, spki: Buffer.from(verified.spki), key_id: verified.keyId, certifier_key_id: dto.key.certifierKeyId, signature: dto.key.signature, created_at: now })
      .onConflict((oc) => oc.column('company_id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw new HttpError(409, 'STATISTICS_KEY_SET', "This company's statistics key is set already.");
    await trx.insertInto('statistics_key_wrap').values(wraps.map((w) => ({ company_id: companyId, stats_key_id: verified.keyId, recipient_key_id: w.recipientKeyId, box: w.box, created_at: now }))).execute();
    return { spki: dto.key.spki, keyId: verified.keyId, certifierKeyId: dto.key.certifierKeyId, signature: dto.key.signature };
  });
}

/**
 * A sealed case's categories box as the browser sent it: only to the published key, of
 * a categories box's size; none is expected while no key is published.
 */
export async function parseCategories(ctx: Pick<AppContext, 'db'>, companyId: string, given: { keyId: string; box: string } | null | undefined): Promise<{ statsKeyId: string; box: Buffer } | null> {
  if (!given) return null;
  const box = boxBytes(given.box, CATEGORIES_MIN, CATEGORIES_MAX, 'categories.box', 'These are not categories sealed to the statistics key (core/crypto sealCategories).');
  const key = await ctx.db.selectFrom('company_statistics_key').select('key_id').where('company_id', '=', companyId).executeTakeFirst();
  if (!key) throw new HttpError(400, 'CATEGORIES_UNEXPECTED', 'This company has no statistics key: send no categories.', 'categories');
  if (key.key_id !== given.keyId) throw new HttpError(409, 'STATISTICS_KEY_CHANGED', 'This is not the published statistics key: read the key log again.', 'categories.keyId');
  return { statsKeyId: given.keyId, box };
}

/** What a handler's browser counts: the published key, the private half sealed to this handler's key, every case's box of the company. */
export async function statisticsFor(ctx: Pick<AppContext, 'db'>, companyId: string, handler: { ecdhSpki: Uint8Array | null }) {
  const key = await readStatisticsKey(ctx, companyId);
  const own = handler.ecdhSpki ? await keyId(handler.ecdhSpki) : null;
  const wrap = key && own ? await ctx.db.selectFrom('statistics_key_wrap').select('box').where('company_id', '=', companyId).where('recipient_key_id', '=', own).executeTakeFirst() : undefined;
  const boxes = key && wrap
    ? await ctx.db.selectFrom('case_categories').innerJoin('report_case', 'report_case.id', 'case_categories.case_id').select(['case_categories.case_id', 'case_categories.box']).where('report_case.company_id', '=', companyId).where('case_categories.stats_key_id', '=', key.keyId).orderBy('case_categories.case_id').execute()
    : [];
  return { key, wrap: wrap ? { recipientKeyId: own!, box: toBase64(asBytes(wrap.box)) } : null, boxes: boxes.map((b) => ({ caseId: b.case_id, box: toBase64(asBytes(b.box)) })) };
}
