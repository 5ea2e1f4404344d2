/**
 * Each company's key log as the server keeps it (docs/decisions/blind-server.md, "Key
 * authenticity"): the trust anchor (the public half of the company's recovery key,
 * set once) and the signed entries, appended one at a time.
 *
 * The server is not what makes a key trustworthy: every browser checks the whole chain
 * back to the anchor itself (core/crypto/keylog.ts). The server checks the same chain
 * before it stores an entry only so that the log it hands out stays one well-formed
 * chain: a bad append is refused with its reason instead of breaking the log for every
 * reporter. It also checks what only it knows: that an entry names a handler account of
 * this company, and officers of this company.
 *
 * Appends are serialised per company by a row lock on the anchor, so two certifiers
 * appending at once get seq n and n+1 in some order, never two entries with one seq.
 */
import { canonicalJson, fromBase64, hashKeyLogEntry, keyId, toBase64, verifyKeyLog, type KeyLogEntry } from '../../core/crypto/index.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';

export interface KeyAnchor {
  /** The recovery key's ECDH P-256 public key (cases are sealed to it too), SPKI in base64. */
  ecdhSpki: string;
  /** The recovery key's ECDSA P-256 public key, SPKI in base64: what the log's signatures lead back to. */
  ecdsaSpki: string;
  /** keyId of the ECDSA key: what a company prints and publishes so that a swapped anchor is seen. */
  fingerprint: string;
}

export interface KeyLog {
  anchor: KeyAnchor | null;
  entries: KeyLogEntry[];
}

const asBytes = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

async function importable(spkiBase64: string, algorithm: EcKeyImportParams, usages: KeyUsage[]): Promise<Uint8Array> {
  try {
    const bytes = fromBase64(spkiBase64);
    await crypto.subtle.importKey('spki', bytes as BufferSource, algorithm, true, usages);
    return bytes;
  } catch {
    throw new HttpError(400, 'KEY_INVALID', 'Send P-256 public keys as SPKI in base64.');
  }
}

export async function readKeyLog(ctx: Pick<AppContext, 'db'>, companyId: string): Promise<KeyLog> {
  const [anchor, rows] = await Promise.all([
    ctx.db.selectFrom('company_key_anchor').selectAll().where('company_id', '=', companyId).executeTakeFirst(),
    ctx.db.selectFrom('key_log_entry').select('entry').where('company_id', '=', companyId).orderBy('seq').execute(),
  ]);
  return {
    anchor: anchor
      ? { ecdhSpki: toBase64(asBytes(anchor.ecdh_spki)), ecdsaSpki: toBase64(asBytes(anchor.ecdsa_spki)), fingerprint: await keyId(asBytes(anchor.ecdsa_spki)) }
      : null,
    entries: rows.map((r) => JSON.parse(r.entry) as KeyLogEntry),
  };
}

/** Sets the company's trust anchor; it is set once (a new anchor would orphan every key in the log). */
export async function setKeyAnchor(ctx: Pick<AppContext, 'db' | 'clock'>, companyId: string, given: { ecdhSpki: string; ecdsaSpki: string }): Promise<KeyAnchor> {
  const ecdh = await importable(given.ecdhSpki, { name: 'ECDH', namedCurve: 'P-256' }, []);
  const ecdsa = await importable(given.ecdsaSpki, { name: 'ECDSA', namedCurve: 'P-256' }, ['verify']);
  const inserted = await ctx.db
    .insertInto('company_key_anchor')
    .values({ company_id: companyId, ecdh_spki: ecdh, ecdsa_spki: ecdsa, created_at: ctx.clock.now() })
    .onConflict((oc) => oc.column('company_id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
    throw new HttpError(409, 'KEY_ANCHOR_SET', "This company's recovery key is set already; it cannot be replaced.");
  }
  return { ecdhSpki: toBase64(ecdh), ecdsaSpki: toBase64(ecdsa), fingerprint: await keyId(ecdsa) };
}

/** Appends one signed entry; 409 KEY_LOG_INVALID with the reason when the log would not verify with it. */
export async function appendKeyLogEntry(ctx: Pick<AppContext, 'db' | 'clock'>, companyId: string, entry: unknown): Promise<{ seq: number; hash: string }> {
  return ctx.db.transaction().execute(async (trx) => {
    const anchor = await trx.selectFrom('company_key_anchor').selectAll().where('company_id', '=', companyId).forUpdate().executeTakeFirst();
    if (!anchor) throw new HttpError(409, 'KEY_ANCHOR_MISSING', "This company's recovery key is not set yet: no handler key can be certified.");
    const rows = await trx.selectFrom('key_log_entry').select('entry').where('company_id', '=', companyId).orderBy('seq').execute();
    const entries = rows.map((r) => JSON.parse(r.entry) as unknown);
    const checked = await verifyKeyLog([...entries, entry], asBytes(anchor.ecdsa_spki));
    if (!checked.ok) throw new HttpError(409, 'KEY_LOG_INVALID', `The entry does not extend the key log: ${checked.reason}.`, checked.reason);
    const e = entry as KeyLogEntry;
    const handler = await trx.selectFrom('handler_account').select('id').where('id', '=', e.handlerId).where('company_id', '=', companyId).executeTakeFirst();
    if (!handler) throw new HttpError(409, 'KEY_LOG_INVALID', 'The entry names no handler of this company.', 'handlerId');
    // A reporter's browser seals a case to the keys the log ties to its officer: the tie
    // must be the account's own (officer scoping, handler_officer), or a certifier could
    // open another officer's new cases to a colleague.
    if (e.action === 'add') {
      const tied = await trx.selectFrom('handler_officer').select('officer_id').where('handler_id', '=', e.handlerId).execute();
      const same = (a: string[], b: string[]) => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
      if (!same([...new Set(e.officerIds)], tied.map((t) => t.officer_id))) {
        throw new HttpError(409, 'KEY_LOG_INVALID', "The entry's officers are not the handler's own.", 'officerIds');
      }
    }
    const hash = await hashKeyLogEntry(e);
    await trx.insertInto('key_log_entry').values({ company_id: companyId, seq: e.seq, entry: canonicalJson(e), hash, created_at: ctx.clock.now() }).execute();
    return { seq: e.seq, hash };
  });
}

/**
 * Ids of the companies with no trust anchor yet (at most `limit`, and how many in all):
 * with sealing on, they still take server-keyed cases, which the master key opens, until
 * their first handler makes the recovery key on /handler/keys. The start log names them
 * so that the operator of a first start knows (docs/decisions/sealed-cases.md "On by default").
 */
export async function companiesWithoutAnchor(ctx: Pick<AppContext, 'db'>, limit = 20): Promise<{ ids: string[]; count: number }> {
  const base = ctx.db
    .selectFrom('company')
    .leftJoin('company_key_anchor', 'company_key_anchor.company_id', 'company.id')
    .where('company_key_anchor.company_id', 'is', null);
  const [rows, total] = await Promise.all([
    base.select('company.id').orderBy('company.id').limit(limit).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { ids: rows.map((r) => r.id), count: Number(total.n) };
}
