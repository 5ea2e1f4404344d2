/**
 * core/crypto/case.ts: the keys a case is sealed to come from a log the browser verified
 * (a swapped key, an unknown anchor, a shortened log or no key for the officer refuse
 * with a reason); the sealed case opens for the entitled handler, the recovery key and
 * the reporter, and a part that fails to open is null beside the parts that opened.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deriveReporterKeys, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openCaseKey, openCaseParts, recipientsFor, sealMessage, sealNewCase, signKeyLogEntry, toBase64,
  PBKDF2_DEFAULT, type HandlerKeys, type KeyLogEntry, type PublishedKeyLog,
} from '../../core/crypto/index.ts';

let recovery: HandlerKeys;
let hanne: HandlerKeys;
let otto: HandlerKeys;
let log: { anchor: NonNullable<PublishedKeyLog['anchor']>; entries: KeyLogEntry[] };
let mallory: Uint8Array;

async function add(certifier: HandlerKeys, subject: HandlerKeys, handlerId: string, officerIds: string[]) {
  const prev = log.entries.at(-1);
  log.entries.push(await signKeyLogEntry(certifier.ecdsa.privateKey, {
    seq: log.entries.length + 1, handlerId, ecdhSpki: toBase64(subject.ecdhSpki), ecdsaSpki: toBase64(subject.ecdsaSpki), officerIds,
    addedAt: '2026-01-01T00:00:00.000Z', action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(certifier.ecdsaSpki),
  }));
}

beforeAll(async () => {
  [recovery, hanne, otto] = await Promise.all([makeHandlerKeys(), makeHandlerKeys(), makeHandlerKeys()]);
  mallory = (await makeHandlerKeys()).ecdhSpki;
  log = { anchor: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }, entries: [] };
  await add(recovery, hanne, 'h-hanne', ['officer-a']);
  await add(hanne, otto, 'h-otto', ['officer-b']);
});

describe('recipientsFor', () => {
  it('gives the keys entitled to the officer and the recovery key', async () => {
    const r = await recipientsFor(log, 'officer-a');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.handlers.map((k) => k.handlerId)).toEqual(['h-hanne']);
    expect(r.recovery.keyId).toBe(await keyId(recovery.ecdhSpki));
    expect(r.head?.seq).toBe(2);
  });

  it('refuses a swapped public key, another anchor, a shortened log, no anchor, no key for the officer', async () => {
    // The server writes another key into a signed entry (the e2e swaps it in the database row).
    const swapped = { ...log, entries: log.entries.map((e, i) => (i === 1 ? { ...e, ecdhSpki: toBase64(mallory) } : e)) };
    expect(await recipientsFor(swapped, 'officer-b')).toMatchObject({ ok: false, reason: 'signature', seq: 2 });
    expect(await recipientsFor(log, 'officer-a', { anchorKeyId: 'ab'.repeat(32) })).toMatchObject({ ok: false, reason: 'anchor' });
    const full = await recipientsFor(log, 'officer-a');
    expect(await recipientsFor({ ...log, entries: log.entries.slice(0, 1) }, 'officer-a', { head: full.ok ? full.head! : undefined })).toMatchObject({ ok: false, reason: 'fork' });
    expect(await recipientsFor({ anchor: null, entries: [] }, 'officer-a')).toMatchObject({ ok: false, reason: 'no-anchor' });
    expect(await recipientsFor(log, 'officer-c')).toMatchObject({ ok: false, reason: 'no-keys' });
  });
});

describe('sealNewCase, openCaseKey, openCaseParts', () => {
  it('opens for the entitled handler, the recovery key and the reporter; not for the other officer\'s handler', async () => {
    const r = await recipientsFor(log, 'officer-a');
    if (!r.ok) throw new Error(r.reason);
    const { reporterKey } = await deriveReporterKeys({ caseNumber: '1234567890123456', password: 'a password', salt: new Uint8Array(16), kdf: PBKDF2_DEFAULT });
    const sealed = await sealNewCase(r, { details: { description: 'MARKER-details' }, whistleblower: { name: 'MARKER-name' }, reporterKey });
    const m = await sealMessage(sealed.dataKey, sealed.caseId, 'MARKER-message');
    const view = (kind: string, id: string) => ({ caseId: sealed.caseId, epoch: 1, envelopes: sealed.envelopes, wrap: sealed.wraps.find((w) => w.kind === kind && (kind === 'reporter' || w.recipientKeyId === id)) ?? null, messages: [m] });
    const hanneId = await keyId(hanne.ecdhSpki);
    const dkHanne = await openCaseKey(view('handler', hanneId), { ecdh: hanne.ecdh, keyId: hanneId });
    const dkReporter = await openCaseKey(view('reporter', ''), { reporterKey });
    const recoveryId = await keyId(recovery.ecdhSpki);
    const dkRecovery = await openCaseKey(view('recovery', recoveryId), { ecdh: recovery.ecdh, keyId: recoveryId });
    for (const dk of [dkHanne, dkReporter, dkRecovery]) {
      expect(await openCaseParts(dk, view('reporter', ''))).toEqual({ details: { description: 'MARKER-details' }, whistleblower: { name: 'MARKER-name' }, messages: [{ id: m.id, text: 'MARKER-message' }] });
    }
    const ottoId = await keyId(otto.ecdhSpki);
    expect(view('handler', ottoId).wrap).toBeNull();
    await expect(openCaseKey(view('handler', hanneId), { ecdh: otto.ecdh, keyId: ottoId })).rejects.toThrow();
  });

  it('a part that fails to open is null and the rest still opens', async () => {
    const r = await recipientsFor(log, 'officer-a');
    if (!r.ok) throw new Error(r.reason);
    const sealed = await sealNewCase(r, { details: { d: 1 }, whistleblower: { w: 1 } });
    const good = await sealMessage(sealed.dataKey, sealed.caseId, 'kept');
    const bad = await sealMessage(sealed.dataKey, sealed.caseId, 'altered');
    const altered = fromBase64(bad.body);
    altered[altered.length - 1]! ^= 1;
    const tamperedDetails = fromBase64(sealed.envelopes.details);
    tamperedDetails[20]! ^= 1;
    const opened = await openCaseParts(sealed.dataKey, {
      caseId: sealed.caseId,
      envelopes: { details: toBase64(tamperedDetails), whistleblower: toBase64(fromBase64(sealed.envelopes.whistleblower!).subarray(0, 20)) },
      messages: [good, { id: bad.id, body: toBase64(altered) }, { id: crypto.randomUUID(), body: good.body }],
    });
    expect(opened).toEqual({ details: null, whistleblower: 'unopened', messages: [{ id: good.id, text: 'kept' }, { id: bad.id, text: null }, { id: expect.any(String), text: null }] });
  });
});
