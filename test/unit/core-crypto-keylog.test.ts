// core/crypto key log: signed, hash-chained entries that prove which public keys are
// the handlers' (docs/decisions/blind-server.md, "Key authenticity").
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  hashKeyLogEntry,
  keyId,
  makeHandlerKeys,
  signKeyLogEntry,
  toBase64,
  verifyKeyLog,
  type HandlerKeys,
  type KeyLogEntry,
  type UnsignedKeyLogEntry,
} from '../../core/crypto/index.ts';

interface Log {
  entries: KeyLogEntry[];
  append(certifier: HandlerKeys, subject: HandlerKeys, fields: Partial<UnsignedKeyLogEntry> & { handlerId: string }): Promise<KeyLogEntry>;
}

function newLog(): Log {
  const entries: KeyLogEntry[] = [];
  return {
    entries,
    async append(certifier, subject, fields) {
      const prev = entries.at(-1);
      const entry = await signKeyLogEntry(certifier.ecdsa.privateKey, {
        seq: entries.length + 1,
        ecdhSpki: toBase64(subject.ecdhSpki),
        ecdsaSpki: toBase64(subject.ecdsaSpki),
        officerIds: [],
        addedAt: '2026-05-01T10:00:00.000Z',
        action: 'add',
        prevHash: prev ? await hashKeyLogEntry(prev) : '',
        certifierKeyId: await keyId(certifier.ecdsaSpki),
        ...fields,
      });
      entries.push(entry);
      return entry;
    },
  };
}

/** The recovery key (anchor), handler A (officer o1) added by it, handler B (o1, o2) added by A. */
async function setup() {
  const recovery = await makeHandlerKeys();
  const a = await makeHandlerKeys();
  const b = await makeHandlerKeys();
  const log = newLog();
  await log.append(recovery, a, { handlerId: 'h-a', officerIds: ['o1'] });
  await log.append(a, b, { handlerId: 'h-b', officerIds: ['o1', 'o2'] });
  return { recovery, a, b, log };
}

describe('core key log', () => {
  it('canonical JSON sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
  });

  it('a valid log yields every active key under each of its officers', async () => {
    const { recovery, a, b, log } = await setup();
    const result = await verifyKeyLog(log.entries, recovery.ecdsaSpki);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const ids = (officer: string) => (result.byOfficer.get(officer) ?? []).map((k) => k.handlerId).sort();
    expect(ids('o1')).toEqual(['h-a', 'h-b']);
    expect(ids('o2')).toEqual(['h-b']);
    expect(ids('o3')).toEqual([]);
    const keyOfB = result.keys.find((k) => k.handlerId === 'h-b')!;
    expect(keyOfB.ecdhKeyId).toBe(await keyId(b.ecdhSpki));
    expect(toBase64(keyOfB.ecdhSpki)).toBe(toBase64(b.ecdhSpki));
    expect(result.head).toEqual({ seq: 2, hash: await hashKeyLogEntry(log.entries[1]!) });
    expect(await verifyKeyLog([], recovery.ecdsaSpki)).toMatchObject({ ok: true, head: null, keys: [] });
    void a;
  });

  it('a removed key is no longer valid, and certifies nothing after its removal', async () => {
    const { recovery, a, b, log } = await setup();
    await log.append(recovery, a, { handlerId: 'h-a', officerIds: ['o1'], action: 'remove' });
    const result = await verifyKeyLog(log.entries, recovery.ecdsaSpki);
    expect(result.ok && result.keys.map((k) => k.handlerId)).toEqual(['h-b']);
    const c = await makeHandlerKeys();
    await log.append(a, c, { handlerId: 'h-c', officerIds: ['o1'] });
    expect(await verifyKeyLog(log.entries, recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'revoked-certifier', seq: 4 });
    void b;
  });

  it('refuses a handler key swapped after signing', async () => {
    const { recovery, log } = await setup();
    const mallory = await makeHandlerKeys();
    const entries = log.entries.map((e) => ({ ...e }));
    entries[1]!.ecdhSpki = toBase64(mallory.ecdhSpki);
    expect(await verifyKeyLog(entries, recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'signature', seq: 2 });
    const officers = log.entries.map((e) => ({ ...e }));
    officers[0]!.officerIds = ['o1', 'o2'];
    expect(await verifyKeyLog(officers, recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'signature', seq: 1 });
  });

  it('refuses a broken chain: an entry dropped, reordered, or re-linked', async () => {
    const { recovery, a, log } = await setup();
    const c = await makeHandlerKeys();
    await log.append(a, c, { handlerId: 'h-c', officerIds: ['o2'] });
    // Dropping entry 2 and renumbering would need a new signature; without renumbering it is out of sequence.
    expect(await verifyKeyLog([log.entries[0]!, log.entries[2]!], recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'sequence', seq: 2 });
    // A log whose entry 2 is replaced by another validly signed entry 2: entry 3 no longer links to it.
    const other = newLog();
    other.entries.push(log.entries[0]!);
    const d = await makeHandlerKeys();
    const forged = await other.append(a, d, { handlerId: 'h-d', officerIds: ['o1'] });
    expect(await verifyKeyLog([log.entries[0]!, forged, log.entries[2]!], recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'chain', seq: 3 });
    // Entry 1 of another log (signatures are randomised: another hash) under the same entry 2.
    const again = newLog();
    await again.append(recovery, a, { handlerId: 'h-a', officerIds: ['o1'] });
    expect(await verifyKeyLog([again.entries[0]!, log.entries[1]!], recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'chain', seq: 2 });
    // Entries swapped.
    expect(await verifyKeyLog([log.entries[1]!, log.entries[0]!], recovery.ecdsaSpki)).toMatchObject({ ok: false, seq: 1 });
  });

  it('refuses an unknown certifier, and a log under another anchor', async () => {
    const { recovery, log } = await setup();
    const stranger = await makeHandlerKeys();
    const e = await makeHandlerKeys();
    await log.append(stranger, e, { handlerId: 'h-e', officerIds: ['o1'] });
    expect(await verifyKeyLog(log.entries, recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'unknown-certifier', seq: 3 });
    expect(await verifyKeyLog(log.entries.slice(0, 2), stranger.ecdsaSpki)).toEqual({ ok: false, reason: 'unknown-certifier', seq: 1 });
  });

  it('refuses a certifier key id that names another key than the one that signed', async () => {
    const { recovery, a, log } = await setup();
    const c = await makeHandlerKeys();
    // Signed by an outsider's key (C's own) but naming A as certifier.
    const entry = await signKeyLogEntry(c.ecdsa.privateKey, {
      seq: 3,
      handlerId: 'h-c',
      ecdhSpki: toBase64(c.ecdhSpki),
      ecdsaSpki: toBase64(c.ecdsaSpki),
      officerIds: ['o1'],
      addedAt: '2026-05-02T00:00:00.000Z',
      action: 'add',
      prevHash: await hashKeyLogEntry(log.entries[1]!),
      certifierKeyId: await keyId(a.ecdsaSpki),
    });
    expect(await verifyKeyLog([...log.entries, entry], recovery.ecdsaSpki)).toEqual({ ok: false, reason: 'signature', seq: 3 });
  });

  it('refuses a duplicate add, a remove of a key that is not active, and a malformed entry', async () => {
    const { recovery, a, b, log } = await setup();
    const dup = newLog();
    dup.entries.push(...log.entries);
    await dup.append(recovery, b, { handlerId: 'h-b2', officerIds: ['o3'] });
    expect(await verifyKeyLog(dup.entries, recovery.ecdsaSpki)).toMatchObject({ ok: false, reason: 'duplicate', seq: 3 });
    const rm = newLog();
    rm.entries.push(...log.entries);
    await rm.append(recovery, b, { handlerId: 'h-a', action: 'remove' });
    expect(await verifyKeyLog(rm.entries, recovery.ecdsaSpki)).toMatchObject({ ok: false, reason: 'unknown-key', seq: 3 });
    expect(await verifyKeyLog([{ ...log.entries[0]!, extra: 1 }], recovery.ecdsaSpki)).toMatchObject({ ok: false, reason: 'format', seq: 1 });
    expect(await verifyKeyLog([{ ...log.entries[0]!, seq: '1' }], recovery.ecdsaSpki)).toMatchObject({ ok: false, reason: 'format', seq: 1 });
    expect(await verifyKeyLog(['x'], recovery.ecdsaSpki)).toMatchObject({ ok: false, reason: 'format', seq: 1 });
    void a;
  });

  it('refuses a log that does not extend the head seen before (a fork or a rollback)', async () => {
    const { recovery, a, log } = await setup();
    const seen = { seq: 2, hash: await hashKeyLogEntry(log.entries[1]!) };
    const c = await makeHandlerKeys();
    await log.append(a, c, { handlerId: 'h-c', officerIds: ['o1'] });
    expect((await verifyKeyLog(log.entries, recovery.ecdsaSpki, { knownHead: seen })).ok).toBe(true);
    expect(await verifyKeyLog(log.entries.slice(0, 1), recovery.ecdsaSpki, { knownHead: seen })).toEqual({ ok: false, reason: 'fork', seq: 1 });
    const fork = newLog();
    await fork.append(recovery, a, { handlerId: 'h-a', officerIds: ['o1'] });
    await fork.append(recovery, c, { handlerId: 'h-c', officerIds: ['o2'] });
    expect(await verifyKeyLog(fork.entries, recovery.ecdsaSpki, { knownHead: seen })).toEqual({ ok: false, reason: 'fork', seq: 2 });
  });
});
