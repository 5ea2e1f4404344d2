// core/crypto statistics: categories sealed to the company's statistics key and counted in the browser.
import { describe, expect, it } from 'vitest';
import { openStatisticsPrivateKey, sealStatisticsPrivateKey, signStatisticsKey, verifyStatisticsKey, verifyStatisticsKeyChain, countCategories, keyId, makeDataKey, makeHandlerKeys, makeStatisticsKey, openCategories, openSealedBox, fromBase64, sealCategories, sealNotifyAddress, sealToPublicKey, toBase64 } from '../../core/crypto/index.ts';

const ids = ['a1', 'b2', 'c3', 'd4', 'e5'].map((s) => `0f6b7c2e-4d1a-4c5b-9f7e-2a3b4c5d6e${s}`);

describe('core statistics key', () => {
  it('counts violation categories and channels of the boxes it opens, and counts the rest apart', async () => {
    const stats = await makeStatisticsKey();
    expect(stats.keyId).toBe(await keyId(stats.spki));
    const pub = { spki: toBase64(stats.spki), keyId: stats.keyId };
    const boxes = [
      { caseId: ids[0]!, box: (await sealCategories(pub, ids[0]!, { violation: 'THEFT', channel: 'ONLINE' })).box },
      { caseId: ids[1]!, box: (await sealCategories(pub, ids[1]!, { violation: 'THEFT', channel: 'BY_PHONE' })).box },
      { caseId: ids[2]!, box: (await sealCategories(pub, ids[2]!, { violation: null, channel: 'ONLINE' })).box },
    ];
    // A box moved to another case, and one sealed to another statistics key, do not count as categories.
    boxes.push({ caseId: ids[3]!, box: boxes[0]!.box });
    const other = await makeStatisticsKey();
    boxes.push({ caseId: ids[4]!, box: (await sealCategories({ spki: other.spki, keyId: other.keyId }, ids[4]!, { violation: 'FRAUD', channel: 'ONLINE' })).box });
    const counts = await countCategories(stats, boxes);
    expect(counts).toEqual({ violation: { THEFT: 2, none: 1 }, channel: { ONLINE: 2, BY_PHONE: 1 }, unopened: 2, total: 5 });
  });

  it('opens categories only: neither a data key\'s wrap nor a mail box opens as one, nor a categories box as a wrap', async () => {
    const stats = await makeStatisticsKey();
    const h = await makeHandlerKeys();
    const caseId = ids[0]!;
    // A wrap of a data key to the statistics key's public half (epoch 0, same case): no categories come out.
    const wrap = await sealToPublicKey(stats.spki, makeDataKey(), { caseId, epoch: 0, recipientKeyId: stats.keyId });
    expect(await openCategories(stats, caseId, toBase64(wrap))).toBeNull();
    const mail = await sealNotifyAddress({ spki: toBase64(stats.spki), keyId: stats.keyId }, caseId, 'a@example.org');
    expect(await openCategories(stats, caseId, mail.box)).toBeNull();
    const sealed = await sealCategories({ spki: stats.spki, keyId: stats.keyId }, caseId, { violation: 'THEFT', channel: 'ONLINE' });
    await expect(openSealedBox({ privateKey: stats.privateKey, publicKey: stats.spki }, fromBase64(sealed.box), { caseId, epoch: 0, recipientKeyId: stats.keyId })).rejects.toThrow();
    // A handler's key opens nothing of it.
    expect(await openCategories({ privateKey: h.ecdh.privateKey, spki: h.ecdhSpki, keyId: await keyId(h.ecdhSpki) }, caseId, sealed.box)).toBeNull();
    expect(await openCategories(stats, caseId, sealed.box)).toEqual({ violation: 'THEFT', channel: 'ONLINE' });
  });

  it('publishes the key signed by the anchor or an active handler key, and refuses a swapped, re-signed or unknown one', async () => {
    const anchor = await makeHandlerKeys();
    const hilde = await makeHandlerKeys();
    const stranger = await makeHandlerKeys();
    const stats = await makeStatisticsKey();
    const certifiers = [{ ecdsaSpki: hilde.ecdsaSpki, ecdsaKeyId: await keyId(hilde.ecdsaSpki) }];
    const byAnchor = await signStatisticsKey({ privateKey: anchor.ecdsa.privateKey, keyId: await keyId(anchor.ecdsaSpki) }, stats.spki);
    const byHilde = await signStatisticsKey({ privateKey: hilde.ecdsa.privateKey, keyId: await keyId(hilde.ecdsaSpki) }, stats.spki);
    expect((await verifyStatisticsKey(byAnchor, anchor.ecdsaSpki, []))?.keyId).toBe(stats.keyId);
    expect((await verifyStatisticsKey(byHilde, anchor.ecdsaSpki, certifiers))?.keyId).toBe(stats.keyId);
    // Hilde's signature counts only while the verified log lists her key.
    expect(await verifyStatisticsKey(byHilde, anchor.ecdsaSpki, [])).toBeNull();
    const byStranger = await signStatisticsKey({ privateKey: stranger.ecdsa.privateKey, keyId: await keyId(stranger.ecdsaSpki) }, stats.spki);
    expect(await verifyStatisticsKey(byStranger, anchor.ecdsaSpki, certifiers)).toBeNull();
    // A server swapping in its own key under the anchor's signature, or naming another id.
    const swapped = await makeStatisticsKey();
    expect(await verifyStatisticsKey({ ...byAnchor, spki: toBase64(swapped.spki), keyId: swapped.keyId }, anchor.ecdsaSpki, [])).toBeNull();
    expect(await verifyStatisticsKey({ ...byAnchor, keyId: swapped.keyId }, anchor.ecdsaSpki, [])).toBeNull();
    expect(await verifyStatisticsKey({ ...byAnchor, signature: 'AAAA' }, anchor.ecdsaSpki, [])).toBeNull();
    expect(await verifyStatisticsKey(null, anchor.ecdsaSpki, [])).toBeNull();
  });

  it('seals the private half to a handler, who counts with it; another handler, or another key, opens nothing', async () => {
    const stats = await makeStatisticsKey();
    const hilde = await makeHandlerKeys();
    const other = await makeHandlerKeys();
    const hildeId = await keyId(hilde.ecdhSpki);
    const sealed = await sealStatisticsPrivateKey(stats, { spki: hilde.ecdhSpki, keyId: hildeId });
    expect(sealed.recipientKeyId).toBe(hildeId);
    const opened = await openStatisticsPrivateKey({ privateKey: hilde.ecdh.privateKey, publicKey: hilde.ecdhSpki, keyId: hildeId }, stats, sealed.box);
    expect(opened).not.toBeNull();
    const box = (await sealCategories({ spki: stats.spki, keyId: stats.keyId }, ids[0]!, { violation: 'FRAUD', channel: 'ONLINE' })).box;
    expect(await countCategories(opened!, [{ caseId: ids[0]!, box }])).toEqual({ violation: { FRAUD: 1 }, channel: { ONLINE: 1 }, unopened: 0, total: 1 });
    expect(await openStatisticsPrivateKey({ privateKey: other.ecdh.privateKey, publicKey: other.ecdhSpki, keyId: await keyId(other.ecdhSpki) }, stats, sealed.box)).toBeNull();
    const another = await makeStatisticsKey();
    expect(await openStatisticsPrivateKey({ privateKey: hilde.ecdh.privateKey, publicKey: hilde.ecdhSpki, keyId: hildeId }, another, sealed.box)).toBeNull();
    // The private half's box is no categories box.
    expect(await openCategories(stats, stats.keyId, sealed.box)).toBeNull();
  });

  it('takes a rotated key only with `replaces` under its signature, and the keys only as one chain, newest first', async () => {
    const anchor = await makeHandlerKeys();
    const left = await makeHandlerKeys();
    const hilde = await makeHandlerKeys();
    const certifier = (k: typeof hilde) => keyId(k.ecdsaSpki).then((id) => ({ privateKey: k.ecdsa.privateKey, keyId: id }));
    const [k1, k2, k3] = [await makeStatisticsKey(), await makeStatisticsKey(), await makeStatisticsKey()];
    // The first key's certifier has left the log since; the newer keys are Hilde's.
    const p1 = await signStatisticsKey(await certifier(left), k1.spki);
    const p2 = await signStatisticsKey(await certifier(hilde), k2.spki, k1.keyId);
    const p3 = await signStatisticsKey(await certifier(hilde), k3.spki, k2.keyId);
    const active = [{ ecdsaSpki: hilde.ecdsaSpki, ecdsaKeyId: await keyId(hilde.ecdsaSpki) }];
    expect(p3.replaces).toBe(k2.keyId);
    expect((await verifyStatisticsKey(p3, anchor.ecdsaSpki, active))?.keyId).toBe(k3.keyId);
    // `replaces` changed or added after signing: the statement no longer verifies.
    expect(await verifyStatisticsKey({ ...p3, replaces: k1.keyId }, anchor.ecdsaSpki, active)).toBeNull();
    expect(await verifyStatisticsKey({ ...(await signStatisticsKey(await certifier(hilde), k3.spki)), replaces: k2.keyId }, anchor.ecdsaSpki, active)).toBeNull();
    expect((await verifyStatisticsKeyChain([p3, p2, p1], anchor.ecdsaSpki, active))?.map((k) => k.keyId)).toEqual([k3.keyId, k2.keyId, k1.keyId]);
    expect(await verifyStatisticsKeyChain([], anchor.ecdsaSpki, active)).toEqual([]);
    // Out of order, a key left out, cut short, or an older key's SPKI swapped: none.
    expect(await verifyStatisticsKeyChain([p2, p3, p1], anchor.ecdsaSpki, active)).toBeNull();
    expect(await verifyStatisticsKeyChain([p3, p1], anchor.ecdsaSpki, active)).toBeNull();
    expect(await verifyStatisticsKeyChain([p3, p2], anchor.ecdsaSpki, active)).toBeNull();
    expect(await verifyStatisticsKeyChain([p3, { ...p2, spki: toBase64(k1.spki) }, p1], anchor.ecdsaSpki, active)).toBeNull();
    // The newest must verify now: signed by a key that left, the chain is refused.
    expect(await verifyStatisticsKeyChain([p1], anchor.ecdsaSpki, active)).toBeNull();
  });
});
