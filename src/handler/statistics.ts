/**
 * The statistics page's effects (machines/handler/statistics.ts; docs/decisions/sealed-cases.md
 * "The statistics key"): the key log verified here (./keys.ts verifiedLog), the
 * statistics key's signature checked against it, its private half opened with this
 * handler's own key, every case's categories box opened and counted here
 * (core/crypto countCategories). Only numbers reach the page; nothing is sent back.
 *
 * Publishing: the pair is made here, its public half signed by this handler's certified
 * key, its private half sealed to every handler key the verified log certifies now
 * (so each of them can count); the server checks the same and keeps it once.
 */
import {
  countCategories,
  keyId,
  makeStatisticsKey,
  openStatisticsPrivateKey,
  sealStatisticsPrivateKey,
  signStatisticsKey,
  fromBase64,
  verifyStatisticsKey,
  type PublishedStatisticsKey,
} from '../../core/crypto/index.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { StatisticsAnswer } from '../../machines/handler/statistics.ts';
import type { OpenedKeys } from '../../machines/handler/session.ts';
import type { HandlerKeysApi } from './keys.ts';

interface StatisticsData {
  key: PublishedStatisticsKey | null;
  wrap: { recipientKeyId: string; box: string } | null;
  boxes: { caseId: string; box: string }[];
}

export function statisticsEffects(api: ApiClient, keys: Pick<HandlerKeysApi, 'verifiedLog'>) {
  const load = async (own: OpenedKeys): Promise<StatisticsAnswer> => {
    const v = await keys.verifiedLog();
    if (!v.ok) return { status: 'refused', reason: v.reason };
    if (!v.log.anchor || !v.result) return { status: 'none', canPublish: false };
    const ownEcdh = await keyId(own.ecdhSpki);
    const certified = v.result.keys.some((k) => k.ecdhKeyId === ownEcdh);
    const data = await api.json<StatisticsData>('/api/handler/statistics');
    if (!data.key) return { status: 'none', canPublish: certified };
    const verified = await verifyStatisticsKey(data.key, fromBase64(v.log.anchor.ecdsaSpki), v.result.keys);
    if (!verified) return { status: 'refused', reason: 'statistics-key' };
    if (!data.wrap || data.wrap.recipientKeyId !== ownEcdh) return { status: 'notHolder' };
    const pair = await openStatisticsPrivateKey({ privateKey: own.ecdh.privateKey, publicKey: own.ecdhSpki, keyId: ownEcdh }, verified, data.wrap.box);
    if (!pair) return { status: 'notHolder' };
    const counts = await countCategories(pair, data.boxes);
    return { status: 'counted', counts };
  };

  const publish = async (own: OpenedKeys): Promise<{ status: number }> => {
    const v = await keys.verifiedLog();
    if (!v.ok || !v.result) return { status: 409 };
    const stats = await makeStatisticsKey();
    const key = await signStatisticsKey({ privateKey: own.ecdsa.privateKey, keyId: await keyId(own.ecdsaSpki) }, stats.spki);
    const wraps = [];
    for (const k of v.result.keys) wraps.push(await sealStatisticsPrivateKey(stats, { spki: k.ecdhSpki, keyId: k.ecdhKeyId }));
    try {
      await api.json('/api/handler/statistics-key', { method: 'POST', body: { key, wraps } });
      return { status: 201 };
    } catch (err) {
      if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status };
      throw err;
    }
  };

  return { load, publish };
}
