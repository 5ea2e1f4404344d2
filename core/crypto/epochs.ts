/**
 * Key epochs of a sealed case (issue 37 Build 1 "revoke"; docs/decisions/sealed-cases.md
 * "Revocation and key epochs"): revoking a handler makes a fresh data key for the next
 * epoch in the revoking handler's browser, wrapped to every remaining holder; content
 * sealed from then on names its epoch.
 *
 *     previous link of epoch e = sealed field of DK(e-1) under DK(e),
 *                                additional data "wb:<case id>:case_key_wrap.previous:<e>"
 *     next link of epoch e     = sealed field of DK(e) under DK(e-1),
 *                                additional data "wb:<case id>:case_key_wrap.next:<e>"
 *
 * Invariants: whoever holds DK(e) walks back to every older key (older content is
 * theirs anyway), never forward; the next link exists only for the reporter, whose
 * wrap under the reporter key no handler can make again, and the server hands it out
 * on the reporter's route only. Its limit (a revoked handler who kept DK(e-1) and gets
 * the server's copy of the link reads the new epoch) is stated in the decision record.
 * A link that does not open only leaves the keys beyond it unknown: the parts sealed
 * under them are named as not opened, the rest shows.
 */
import { fromBase64, toBase64, type Bytes } from './bytes.ts';
import { sealToPublicKey } from './box.ts';
import { fieldContext, makeDataKey, openField, sealField } from './field.ts';
import { FIRST_EPOCH, openCaseKey, type SealedCaseView } from './case.ts';

export type LinkKind = 'previous' | 'next';
/** A link between two epochs' keys as the sealed reads list them. */
export interface KeyLink {
  epoch: number;
  kind: LinkKind;
  link: string;
}

/** The keys this browser reached: the newest (`epoch`, `dataKey`, what new content is sealed under) and every older one. */
export interface EpochKeys {
  epoch: number;
  dataKey: Bytes;
  byEpoch: ReadonlyMap<number, Bytes>;
}

const LINK_COLUMN: Record<LinkKind, string> = { previous: 'case_key_wrap.previous', next: 'case_key_wrap.next' };
export const linkContext = (caseId: string, kind: LinkKind, epoch: number) => fieldContext(caseId, LINK_COLUMN[kind], String(epoch));

/** The key for content of `epoch` (absent: the first epoch, as everything sealed before revocations existed); null when this browser has none. */
export function keyForEpoch(keys: Uint8Array | EpochKeys, epoch: number | undefined): Uint8Array | null {
  if (keys instanceof Uint8Array) return keys;
  return keys.byEpoch.get(epoch ?? FIRST_EPOCH) ?? null;
}

/**
 * Every key this browser's wrap reaches: the wrap's own epoch, back through the
 * previous links, and (on the reporter's read, which alone carries them) forward
 * through the next links. Throws as `openCaseKey` when the wrap itself does not open.
 */
export async function openCaseKeys(
  view: Pick<SealedCaseView, 'caseId' | 'epoch' | 'wrap'> & { links?: readonly KeyLink[] },
  key: Parameters<typeof openCaseKey>[1],
): Promise<EpochKeys> {
  const own = await openCaseKey(view, key);
  const byEpoch = new Map<number, Bytes>([[view.epoch, own]]);
  const links = view.links ?? [];
  const find = (kind: LinkKind, epoch: number) => links.find((l) => l.kind === kind && l.epoch === epoch);
  const open = async (k: Uint8Array, l: KeyLink): Promise<Bytes | null> => {
    try {
      return await openField(k, linkContext(view.caseId, l.kind, l.epoch), fromBase64(l.link));
    } catch {
      return null;
    }
  };
  let epoch = view.epoch;
  let k: Bytes | null = own;
  for (let l = find('next', epoch + 1); l && k; l = find('next', epoch + 1)) {
    k = await open(k, l);
    if (k) byEpoch.set(++epoch, k);
  }
  const newest = epoch;
  epoch = view.epoch;
  k = own;
  for (let l = find('previous', epoch); l && k && epoch > FIRST_EPOCH; l = find('previous', epoch)) {
    k = await open(k, l);
    if (k) byEpoch.set(--epoch, k);
  }
  return { epoch: newest, dataKey: byEpoch.get(newest)!, byEpoch };
}

export interface EpochRecipient {
  recipientKeyId: string;
  kind: 'handler' | 'recovery';
  /** The ECDH SPKI from the key log this browser verified, never the server's copy. */
  spki: Uint8Array;
}

/** What POST /api/handler/cases/:n/key-epochs takes (machines/schema.ts keyEpochDtoSchema). */
export interface NextEpochBody {
  epoch: number;
  revoke: string;
  wraps: { recipientKeyId: string; kind: 'handler' | 'recovery'; wrap: string }[];
  previous: string;
  next: string | null;
}

/**
 * The next epoch after revoking `revoke`: a fresh data key wrapped to every remaining
 * recipient, linked back to the current key, and forward for the reporter when the
 * case has one. The new key is returned for the page to seal with at once.
 */
export async function makeNextEpoch(input: { caseId: string; epoch: number; dataKey: Uint8Array; revoke: string; recipients: readonly EpochRecipient[]; reporter: boolean }): Promise<{ dataKey: Bytes; body: NextEpochBody }> {
  const epoch = input.epoch + 1;
  const dataKey = makeDataKey();
  const wraps: NextEpochBody['wraps'] = [];
  for (const r of input.recipients) {
    if (r.recipientKeyId === input.revoke) continue;
    wraps.push({ recipientKeyId: r.recipientKeyId, kind: r.kind, wrap: toBase64(await sealToPublicKey(r.spki, dataKey, { caseId: input.caseId, epoch, recipientKeyId: r.recipientKeyId })) });
  }
  const previous = toBase64(await sealField(dataKey, linkContext(input.caseId, 'previous', epoch), input.dataKey));
  const next = input.reporter ? toBase64(await sealField(input.dataKey, linkContext(input.caseId, 'next', epoch), dataKey)) : null;
  return { dataKey, body: { epoch, revoke: input.revoke, wraps, previous, next } };
}
