/**
 * The company's statistics key on the server (issue 37 Build 3; docs/decisions/sealed-cases.md
 * "The statistics key"): its public half as a handler's browser made and signed it, the
 * private half sealed to handler keys, and each case's categories box. A company keeps
 * every key it had (a rotation adds the next, naming the one it replaces); categories go
 * to the newest, older boxes stay with their own key. A holder gives the keys she holds
 * to a colleague certified after they were made (`giveStatisticsKey`).
 *
 * The server is not what makes the key trustworthy: the reporter's browser checks the
 * signature against the key log it verified itself (core/crypto verifyStatisticsKey).
 * The server checks the same before it stores the key so that it never publishes one no
 * browser would take, and it takes a categories box only to the key it publishes, of a
 * box's shape and size (it cannot open one). Nothing of a category is ever in clear here.
 */
import { fromBase64, keyId, toBase64, verifyKeyLog, verifyStatisticsKey, BOX_VERSION, type PublishedStatisticsKey } from '../../core/crypto/index.ts';
import type { StatisticsKeyDto, StatisticsKeyGiftDto } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { readKeyLog } from './key-log.ts';
import { liveHandlerHolding, type HandlerIdentity } from '../handlers/cases.ts';

const asBytes = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/** A categories box: version, ephemeral point, nonce, JSON of at least `{"v":1,…}` and at most a bounded one, tag. */
const BOX_OVERHEAD = 1 + 65 + 12 + 16;
export const CATEGORIES_MIN = BOX_OVERHEAD + 20;
export const CATEGORIES_MAX = BOX_OVERHEAD + 512;
/** A sealed PKCS#8 P-256 key (about 138 bytes of plaintext). */
const PRIVATE_MIN = BOX_OVERHEAD + 100;
const PRIVATE_MAX = BOX_OVERHEAD + 200;

type KeyRow = { spki: Uint8Array; key_id: string; certifier_key_id: string; signature: string; replaces: string | null; seq: number };
const published = (row: KeyRow): PublishedStatisticsKey => ({
  spki: toBase64(asBytes(row.spki)),
  keyId: row.key_id,
  certifierKeyId: row.certifier_key_id,
  signature: row.signature,
  ...(row.replaces !== null ? { replaces: row.replaces } : {}),
});

/** Every statistics key the company had, newest (the one sealed to) first. */
async function keyRows(ctx: Pick<AppContext, 'db'>, companyId: string): Promise<KeyRow[]> {
  return ctx.db.selectFrom('company_statistics_key').select(['spki', 'key_id', 'certifier_key_id', 'signature', 'replaces', 'seq']).where('company_id', '=', companyId).orderBy('seq', 'desc').execute();
}

/** The company's newest statistics key: the one the key log's answer publishes and categories are sealed to. */
export async function readStatisticsKey(ctx: Pick<AppContext, 'db'>, companyId: string): Promise<PublishedStatisticsKey | null> {
  const [row] = await keyRows(ctx, companyId);
  return row ? published(row) : null;
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
 * Publishes the company's statistics key, or rotates it: signed by the anchor or by the
 * sending handler's own certified key, its private half sealed to certified keys of the
 * log (the sender's among them, so at least one handler can count). The first key names
 * none (409 STATISTICS_KEY_SET when one is set); a rotation names the newest key in its
 * signed `replaces` (409 STATISTICS_KEY_CHANGED when that is not the newest, or another
 * rotation came first). Older keys and their wraps stay: their cases' boxes are counted
 * with them.
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
  const replaces = dto.key.replaces ?? null;
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const [newest] = await keyRows({ db: trx }, companyId);
      if (newest && !replaces) throw new HttpError(409, 'STATISTICS_KEY_SET', "This company's statistics key is set already: a new one names the one it replaces.");
      if (replaces && newest?.key_id !== replaces) throw new HttpError(409, 'STATISTICS_KEY_CHANGED', 'This is not the newest statistics key: read the statistics again.', 'key.replaces');
      await trx
        .insertInto('company_statistics_key')
        .values({ company_id: companyId, spki: Buffer.from(verified.spki), key_id: verified.keyId, certifier_key_id: dto.key.certifierKeyId, signature: dto.key.signature, created_at: now, seq: (newest?.seq ?? 0) + 1, replaces })
        .execute();
      await trx.insertInto('statistics_key_wrap').values(wraps.map((w) => ({ company_id: companyId, stats_key_id: verified.keyId, recipient_key_id: w.recipientKeyId, box: w.box, created_at: now }))).execute();
      return published({ spki: verified.spki, key_id: verified.keyId, certifier_key_id: dto.key.certifierKeyId, signature: dto.key.signature, replaces, seq: 0 });
    });
  } catch (err) {
    // Two first keys or two rotations racing (the number or the key id taken): one lands.
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, replaces ? 'STATISTICS_KEY_CHANGED' : 'STATISTICS_KEY_SET', 'Another statistics key was set meanwhile: read the statistics again.');
    throw err;
  }
}

/**
 * A holder gives the statistics keys she holds to a colleague certified after they were
 * made: each private half sealed in her browser to the colleague's key from the log she
 * verified. Stored only when every box is a sealed private key (400 BAD_ENVELOPE), once
 * per key (400 DUPLICATE_WRAP), of a key of this company she holds herself (409
 * NO_STATISTICS_KEY), to a key the company's log certifies (400 WRAP_UNKNOWN_KEY) held
 * now by a live handler of the company (400 WRAP_NOT_ENTITLED), who holds none of them
 * yet (409 WRAP_EXISTS, so a resend after a lost answer changes nothing). Any refusal
 * stores nothing.
 */
export async function giveStatisticsKey(ctx: Pick<AppContext, 'db' | 'clock'>, giver: HandlerIdentity, giverEcdhSpki: Uint8Array | null, dto: StatisticsKeyGiftDto): Promise<{ recipientKeyId: string; statsKeyIds: string[] }> {
  const seen = new Set<string>();
  const wraps = dto.wraps.map((w, i) => {
    const box = boxBytes(w.box, PRIVATE_MIN, PRIVATE_MAX, `wraps[${i}].box`, 'This is not a private key sealed to a handler key (core/crypto sealStatisticsPrivateKey).');
    if (seen.has(w.statsKeyId)) throw new HttpError(400, 'DUPLICATE_WRAP', 'Seal each statistics key once.', `wraps[${i}].statsKeyId`);
    seen.add(w.statsKeyId);
    return { statsKeyId: w.statsKeyId, box };
  });
  const companyId = giver.company_id;
  const own = giverEcdhSpki ? await keyId(giverEcdhSpki) : null;
  const held = own
    ? new Set((await ctx.db.selectFrom('statistics_key_wrap').select('stats_key_id').where('company_id', '=', companyId).where('recipient_key_id', '=', own).execute()).map((r) => r.stats_key_id))
    : new Set<string>();
  wraps.forEach((w, i) => {
    if (!held.has(w.statsKeyId)) throw new HttpError(409, 'NO_STATISTICS_KEY', 'Only a handler who holds this statistics key can give it.', `wraps[${i}].statsKeyId`);
  });

  const log = await readKeyLog(ctx, companyId);
  const checked = log.anchor ? await verifyKeyLog(log.entries, fromBase64(log.anchor.ecdsaSpki)) : null;
  const logged = checked?.ok ? checked.keys.find((k) => k.ecdhKeyId === dto.recipientKeyId) : undefined;
  if (!logged) throw new HttpError(400, 'WRAP_UNKNOWN_KEY', "The company's key log certifies no such key.", 'recipientKeyId');
  if (!(await liveHandlerHolding(ctx, companyId, logged.handlerId, dto.recipientKeyId))) throw new HttpError(400, 'WRAP_NOT_ENTITLED', "This key's holder is not a live handler of the company.", 'recipientKeyId');

  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const has = await trx.selectFrom('statistics_key_wrap').select('stats_key_id').where('company_id', '=', companyId).where('recipient_key_id', '=', dto.recipientKeyId).where('stats_key_id', 'in', [...seen]).executeTakeFirst();
      if (has) throw new HttpError(409, 'WRAP_EXISTS', 'This colleague holds this statistics key already.', 'recipientKeyId');
      await trx.insertInto('statistics_key_wrap').values(wraps.map((w) => ({ company_id: companyId, stats_key_id: w.statsKeyId, recipient_key_id: dto.recipientKeyId, box: w.box, created_at: now }))).execute();
    });
  } catch (err) {
    if ((err as { code?: string })?.code === '23505') throw new HttpError(409, 'WRAP_EXISTS', 'This colleague holds this statistics key already.', 'recipientKeyId');
    throw err;
  }
  return { recipientKeyId: dto.recipientKeyId, statsKeyIds: [...seen] };
}

/**
 * A sealed case's categories box as the browser sent it: only to the published key, of
 * a categories box's size; none is expected while no key is published.
 */
export async function parseCategories(ctx: Pick<AppContext, 'db'>, companyId: string, given: { keyId: string; box: string } | null | undefined): Promise<{ statsKeyId: string; box: Buffer } | null> {
  if (!given) return null;
  const box = boxBytes(given.box, CATEGORIES_MIN, CATEGORIES_MAX, 'categories.box', 'These are not categories sealed to the statistics key (core/crypto sealCategories).');
  const key = await ctx.db.selectFrom('company_statistics_key').select('key_id').where('company_id', '=', companyId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  if (!key) throw new HttpError(400, 'CATEGORIES_UNEXPECTED', 'This company has no statistics key: send no categories.', 'categories');
  if (key.key_id !== given.keyId) throw new HttpError(409, 'STATISTICS_KEY_CHANGED', 'This is not the published statistics key: read the key log again.', 'categories.keyId');
  return { statsKeyId: given.keyId, box };
}

/**
 * What a handler's browser counts: every statistics key of the company (newest first),
 * each with the private half sealed to this handler's key (or none) and the handler
 * keys holding it (whom the page names as able to give it, or leaves out of "give");
 * the boxes of the keys she holds; and how many boxes are of keys she does not hold.
 * `key` and `wrap` are the newest key's.
 */
export async function statisticsFor(ctx: Pick<AppContext, 'db'>, companyId: string, handler: { ecdhSpki: Uint8Array | null }) {
  const rows = await keyRows(ctx, companyId);
  const own = handler.ecdhSpki ? await keyId(handler.ecdhSpki) : null;
  const wrapRows = rows.length ? await ctx.db.selectFrom('statistics_key_wrap').select(['stats_key_id', 'recipient_key_id', 'box']).where('company_id', '=', companyId).orderBy('recipient_key_id').execute() : [];
  const mine = new Map(wrapRows.filter((w) => own && w.recipient_key_id === own).map((w) => [w.stats_key_id, { recipientKeyId: own!, box: toBase64(asBytes(w.box)) }]));
  const keys = rows.map((r) => ({ key: published(r), wrap: mine.get(r.key_id) ?? null, holders: wrapRows.filter((w) => w.stats_key_id === r.key_id).map((w) => w.recipient_key_id) }));
  const boxes = rows.length
    ? await ctx.db.selectFrom('case_categories').innerJoin('report_case', 'report_case.id', 'case_categories.case_id').select(['case_categories.case_id', 'case_categories.stats_key_id', 'case_categories.box']).where('report_case.company_id', '=', companyId).orderBy('case_categories.case_id').execute()
    : [];
  const heldBoxes = boxes.filter((b) => mine.has(b.stats_key_id));
  return {
    key: keys[0]?.key ?? null,
    wrap: keys[0]?.wrap ?? null,
    keys,
    boxes: heldBoxes.map((b) => ({ caseId: b.case_id, keyId: b.stats_key_id, box: toBase64(asBytes(b.box)) })),
    notHeld: boxes.length - heldBoxes.length,
  };
}
