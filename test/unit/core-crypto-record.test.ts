/**
 * core/crypto/record.ts: a sealed case's record versions open only as the version,
 * field and case their additional data names; the hash is the server's (SHA-256 of the
 * UTF-8 text) and is checked against the opened text, so a version whose stored hash
 * differs, or that does not open, is `verified: false` beside the others; comments open
 * one by one.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeDataKey, openComments, openRecordVersions, recordHash, sealComment, sealRecordVersion, fromBase64, toBase64 } from '../../core/crypto/index.ts';
import { sha256Hex } from '../../server/cases/record.ts';

const caseId = '7b0f5a8e-2c1d-4f3e-9a6b-1c2d3e4f5a6b';
const at = (v: { version: number; text: string; sha256: string }) => ({ ...v, createdAt: '2026-01-01T00:00:00.000Z', approvedAt: null });

describe('record versions of a sealed case', () => {
  it('hashes as the server does, over the UTF-8 text', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), async (text) => {
      expect(await recordHash(text)).toBe(sha256Hex(text));
      expect(await recordHash(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    }), { numRuns: 50 });
  });

  it('opens each version and verifies its hash; a swapped, altered, or mis-hashed version is named, the rest opens', async () => {
    const dk = makeDataKey();
    const v1 = await sealRecordVersion(dk, caseId, 1, 'Called on Monday.');
    const v2 = await sealRecordVersion(dk, caseId, 2, 'Called on Tuesday.');
    const ok = await openRecordVersions(dk, caseId, [at(v1), at(v2)]);
    expect(ok.map((v) => [v.version, v.text, v.verified])).toEqual([[1, 'Called on Monday.', true], [2, 'Called on Tuesday.', true]]);

    // A server that swaps the envelopes of two versions: neither opens as the other.
    const swapped = await openRecordVersions(dk, caseId, [at({ ...v1, text: v2.text }), at(v2)]);
    expect(swapped[0]).toMatchObject({ text: null, verified: false });
    expect(swapped[1]).toMatchObject({ text: 'Called on Tuesday.', verified: true });
    // An altered byte.
    const bytes = fromBase64(v1.text);
    bytes[bytes.length - 1]! ^= 1;
    expect((await openRecordVersions(dk, caseId, [at({ ...v1, text: toBase64(bytes) })]))[0]).toMatchObject({ text: null, verified: false });
    // A stored hash that is not the text's: the text opens, the mismatch is named.
    const wrongHash = await openRecordVersions(dk, caseId, [at({ ...v1, sha256: v2.sha256 })]);
    expect(wrongHash[0]).toMatchObject({ text: 'Called on Monday.', verified: false });
    // Another case's id, or another key: nothing opens.
    expect((await openRecordVersions(dk, '00000000-0000-4000-8000-000000000000', [at(v1)]))[0]!.text).toBeNull();
    expect((await openRecordVersions(makeDataKey(), caseId, [at(v1)]))[0]!.text).toBeNull();
  });

  it('seals comments to their id', async () => {
    const dk = makeDataKey();
    const a = await sealComment(dk, caseId, 'Not Monday.');
    const b = await sealComment(dk, caseId, 'Tuesday.');
    const opened = await openComments(dk, caseId, [{ ...a, created: 'x' }, { id: a.id, body: b.body, created: 'y' }]);
    expect(opened).toEqual([{ id: a.id, created: 'x', text: 'Not Monday.' }, { id: a.id, created: 'y', text: null }]);
  });

  it('after a revocation, opens each version and comment with whichever epoch key sealed it; without that key it is unopened', async () => {
    const old = makeDataKey();
    const next = makeDataKey();
    const v1 = await sealRecordVersion(old, caseId, 1, 'Before the revocation.');
    const v2 = await sealRecordVersion(next, caseId, 2, 'After it.');
    const c = await sealComment(old, caseId, 'An old comment.');
    const keys = { epoch: 2, dataKey: next, byEpoch: new Map([[1, old], [2, next]]) };
    expect((await openRecordVersions(keys, caseId, [at(v1), at(v2)])).map((v) => [v.text, v.verified])).toEqual([['Before the revocation.', true], ['After it.', true]]);
    expect((await openComments(keys, caseId, [{ ...c, created: 'x' }]))[0]!.text).toBe('An old comment.');
    const onlyNew = { epoch: 2, dataKey: next, byEpoch: new Map([[2, next]]) };
    expect((await openRecordVersions(onlyNew, caseId, [at(v1), at(v2)])).map((v) => [v.text, v.verified])).toEqual([[null, false], ['After it.', true]]);
  });
});
