/**
 * Companies as read from the database, kept in memory per database handle: the
 * settings document (up to ~100 KB of JSON) is parsed once, and a request's
 * company-by-host look-up costs a map read (docs/decisions/performance.md).
 *
 * Invalidation: every change to `company` or `company_host` notifies
 * `wb_company_changed` on commit (migration 0050), however it is made; importing
 * through this process also drops the cache at once. While notifications may be
 * missed (PostgreSQL's listening connection lost), the cache is bypassed.
 */
import type { Database, OpenedDatabase } from '../db/database.ts';

export const COMPANY_CHANNEL = 'wb_company_changed';

/** Unknown host names are remembered too (a typo'd or hostile Host header), up to this many entries in all. */
const MAX_ENTRIES = 2000;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class CompanyCache<C> {
  private entries = new Map<string, C | null>();
  private generation = 0;
  private live = false;

  /** Drops everything; loads already under way are not kept. */
  invalidate(): void {
    this.entries.clear();
    this.generation++;
  }

  /** Whether invalidations are being delivered; the cache is used only while they are. */
  setLive(live: boolean): void {
    this.live = live;
    this.invalidate();
  }

  async get(key: string, load: () => Promise<C | null>): Promise<C | null> {
    if (!this.live) return load();
    if (this.entries.has(key)) return this.entries.get(key)!;
    const generation = this.generation;
    const value = deepFreeze(await load());
    if (generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }
}

const caches = new WeakMap<Database, CompanyCache<unknown>>();

export function companyCacheOf<C>(db: Database): CompanyCache<C> | undefined {
  return caches.get(db) as CompanyCache<C> | undefined;
}

/** Turns the cache on for this database handle (the server); resolves with a function that turns it off. */
export async function attachCompanyCache(opened: Pick<OpenedDatabase, 'db' | 'listen'>): Promise<() => Promise<void>> {
  const cache = new CompanyCache<unknown>();
  caches.set(opened.db, cache);
  const stop = await opened.listen(COMPANY_CHANNEL, () => cache.invalidate(), (live) => cache.setLive(live));
  return async () => {
    caches.delete(opened.db);
    await stop();
  };
}
