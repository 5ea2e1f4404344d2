/**
 * The statistics page's effects (machines/handler/statistics.ts; docs/decisions/sealed-workspace.md
 * "The statistics key, published and counted"): the key log verified here (./keys.ts
 * verifiedLog), the statistics keys' chain checked against it, the private halves this
 * handler holds opened with her own key, every case's categories box opened and counted
 * here (core/crypto countCategories). Only numbers and names reach the page.
 *
 * Publishing and rotating: the pair is made here, its public half signed by this
 * handler's certified key (a rotation names the newest key it replaces), its private half
 * sealed to every handler key the verified log certifies now whose account is live (so
 * each of them can count); the server checks the same. Giving: the keys she holds and a
 * colleague lacks are opened again here and sealed to the colleague's key as the
 * verified log has it, never the server's copy.
 */
import {
  countCategories,
  keyId,
  makeStatisticsKey,
  openStatisticsPrivateKey,
  sealStatisticsPrivateKey,
  signStatisticsKey,
  fromBase64,
  verifyStatisticsKeyChain,
  type ActiveKey,
  type PublishedStatisticsKey,
} from '../../core/crypto/index.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { StatisticsAnswer, StatisticsColleague, StatisticsCounts } from '../../machines/handler/statistics.ts';
import type { OpenedKeys } from '../../machines/handler/session.ts';
import type { Colleague, HandlerKeysApi } from './keys.ts';

interface Wrap {
  recipientKeyId: string;
  box: string;
}
interface StatisticsData {
  key: PublishedStatisticsKey | null;
  wrap: Wrap | null;
  keys: { key: PublishedStatisticsKey; wrap: Wrap | null; holders: string[] }[];
  boxes: { caseId: string; keyId: string; box: string }[];
  notHeld: number;
}

type Pair = { privateKey: CryptoKey; spki: Uint8Array; keyId: string };

export function statisticsEffects(api: ApiClient, keys: Pick<HandlerKeysApi, 'verifiedLog'>) {
  const status = async (send: () => Promise<unknown>): Promise<{ status: number }> => {
    try {
      await send();
      return { status: 201 };
    } catch (err) {
      if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status };
      throw err;
    }
  };

  /** The verified log, the statistics, the keys' chain and the private halves this handler holds, opened. */
  const open = async (own: OpenedKeys, extractable = false) => {
    const v = await keys.verifiedLog();
    if (!v.ok) return { refused: v.reason } as const;
    const ownEcdh = await keyId(own.ecdhSpki);
    if (!v.log.anchor || !v.result) return { log: null, ownEcdh, data: null, pairs: [] as Pair[] } as const;
    const data = await api.json<StatisticsData>('/api/handler/statistics');
    const chain = await verifyStatisticsKeyChain(
      data.keys.map((k) => k.key),
      fromBase64(v.log.anchor.ecdsaSpki),
      v.result.keys,
    );
    if (!chain) return { refused: 'statistics-key' } as const;
    const pairs: Pair[] = [];
    for (let i = 0; i < chain.length; i++) {
      const wrap = data.keys[i]!.wrap;
      if (!wrap || wrap.recipientKeyId !== ownEcdh) continue;
      const pair = await openStatisticsPrivateKey({ privateKey: own.ecdh.privateKey, publicKey: own.ecdhSpki, keyId: ownEcdh }, chain[i]!, wrap.box, { extractable });
      if (pair) pairs.push(pair);
    }
    return { log: v.result.keys, ownEcdh, data, pairs } as const;
  };

  const colleaguesList = () => api.json<{ handlers: Colleague[] }>('/api/handler/keys/colleagues').then((r) => r.handlers, () => [] as Colleague[]);
  /** The account a logged key stands for, when it is live and holds that very key now. */
  const liveHolder = async (k: ActiveKey, handlers: Colleague[]) => {
    const account = handlers.find((h) => h.id === k.handlerId);
    return account && !account.disabled && (await keyId(fromBase64(account.ecdhSpki))) === k.ecdhKeyId ? account : null;
  };

  const load = async (own: OpenedKeys): Promise<StatisticsAnswer> => {
    const o = await open(own);
    if ('refused' in o) return { status: 'refused', reason: o.refused ?? 'statistics-key' };
    const certified = !!o.log?.some((k) => k.ecdhKeyId === o.ownEcdh);
    if (!o.log || !o.data?.key) return { status: 'none', canPublish: certified };
    const handlers = await colleaguesList();
    if (!o.pairs.length) {
      // Who can give it: the live, certified colleagues holding the newest key.
      const newest = new Set(o.data.keys[0]!.holders);
      const holders: string[] = [];
      for (const k of o.log) if (k.ecdhKeyId !== o.ownEcdh && newest.has(k.ecdhKeyId)) {
        const account = await liveHolder(k, handlers);
        if (account) holders.push(account.name);
      }
      return { status: 'notHolder', holders: holders.sort((a, b) => a.localeCompare(b)), certified };
    }
    const counts: StatisticsCounts = { violation: {}, channel: {}, unopened: 0, total: 0, notHeld: o.data.notHeld };
    for (const pair of o.pairs) {
      const part = await countCategories(pair, o.data.boxes.filter((b) => b.keyId === pair.keyId));
      for (const [k, n] of Object.entries(part.violation)) counts.violation[k] = (counts.violation[k] ?? 0) + n;
      for (const [k, n] of Object.entries(part.channel)) counts.channel[k] = (counts.channel[k] ?? 0) + n;
      counts.unopened += part.unopened;
      counts.total += part.total;
    }
    // A box of a key she holds but could not open with it is still hers to count apart.
    const opened = new Set(o.pairs.map((p) => p.keyId));
    const stray = o.data.boxes.filter((b) => !opened.has(b.keyId)).length;
    counts.unopened += stray;
    counts.total += stray;
    const colleagues: StatisticsColleague[] = [];
    for (const k of o.log) {
      if (k.ecdhKeyId === o.ownEcdh) continue;
      const account = await liveHolder(k, handlers);
      const lacks = o.data.keys.some((s) => opened.has(s.key.keyId) && !s.holders.includes(k.ecdhKeyId));
      if (account && lacks) colleagues.push({ handlerId: account.id, name: account.name, recipientKeyId: k.ecdhKeyId });
    }
    colleagues.sort((a, b) => a.name.localeCompare(b.name));
    return { status: 'counted', counts, colleagues, canRotate: certified };
  };

  const publish = async (own: OpenedKeys): Promise<{ status: number }> => newKey(own, false);
  const rotate = async (own: OpenedKeys): Promise<{ status: number }> => newKey(own, true);

  async function newKey(own: OpenedKeys, rotation: boolean): Promise<{ status: number }> {
    const v = await keys.verifiedLog();
    if (!v.ok || !v.result) return { status: 409 };
    const ownEcdh = await keyId(own.ecdhSpki);
    let replaces: string | undefined;
    if (rotation) {
      const data = await api.json<StatisticsData>('/api/handler/statistics');
      if (!data.key) return { status: 409 };
      replaces = data.key.keyId;
    }
    const handlers = await colleaguesList();
    const stats = await makeStatisticsKey();
    const key = await signStatisticsKey({ privateKey: own.ecdsa.privateKey, keyId: await keyId(own.ecdsaSpki) }, stats.spki, replaces);
    const wraps: { recipientKeyId: string; box: string }[] = [];
    // Hers always; a colleague's only while her account is live and holds the logged key (a rotation is often made because one left).
    for (const k of v.result.keys) if (k.ecdhKeyId === ownEcdh || (await liveHolder(k, handlers))) wraps.push(await sealStatisticsPrivateKey(stats, { spki: k.ecdhSpki, keyId: k.ecdhKeyId }));
    return status(() => api.json('/api/handler/statistics-key', { method: 'POST', body: { key, wraps } }));
  }

  const give = async (own: OpenedKeys, recipient: StatisticsColleague): Promise<{ status: number }> => {
    const o = await open(own, true);
    if ('refused' in o || !o.log || !o.data) return { status: 409 };
    const logged = o.log.find((k) => k.ecdhKeyId === recipient.recipientKeyId);
    if (!logged) return { status: 409 };
    const wraps: { statsKeyId: string; box: string }[] = [];
    for (const pair of o.pairs) {
      const held = o.data.keys.find((s) => s.key.keyId === pair.keyId);
      if (held?.holders.includes(recipient.recipientKeyId)) continue;
      const sealed = await sealStatisticsPrivateKey(pair, { spki: logged.ecdhSpki, keyId: logged.ecdhKeyId });
      wraps.push({ statsKeyId: pair.keyId, box: sealed.box });
    }
    if (!wraps.length) return { status: 201 };
    return status(() => api.json('/api/handler/statistics-key/wraps', { method: 'POST', body: { recipientKeyId: recipient.recipientKeyId, wraps } }));
  };

  return { load, publish, rotate, give };
}
