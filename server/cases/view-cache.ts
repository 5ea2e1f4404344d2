/**
 * Recently read cases kept in memory per database handle, so that the reporter's
 * 60-second refresh and repeated private calls cost no database statement
 * (docs/decisions/performance.md, "my-case from memory"):
 *
 * - `token`: the access-token check's row (case number, company, token generation);
 * - `view`: the private view as the API sends it (JSON text and its ETag).
 *
 * Invariants:
 * - A write is seen by the next read: this process's own writes to any table the view
 *   or the token check reads drop the cache at once (server/db/write-watch.ts, after the
 *   statement, its commit and its connection's release); other processes' writes
 *   arrive as `wb_case_changed` notifications (migration 0140) and company changes as
 *   `wb_company_changed`. While notifications may be missed, nothing is cached.
 * - A load that overlaps any invalidation is used for its own answer but not kept.
 * - Entries are keyed by case id and carry their company; callers check the company.
 * - Decrypted data stays only briefly: at most MAX_CASES entries, each at most TTL_MS old.
 */
import type { Database, OpenedDatabase } from '../db/database.ts';
import { COMPANY_CHANNEL } from '../companies/cache.ts';
import { CASE_TABLES } from '../db/migrations/0140_case_change_notify.ts';

export const CASE_CHANNEL = 'wb_case_changed';
const MAX_CASES = 500;
const TTL_MS = 30_000;

export interface TokenRow {
  id: string;
  case_number: string;
  company_id: string;
  token_generation: number;
}

export interface CachedView {
  companyId: string;
  body: string;
  etag: string;
}

interface Entry {
  expires: number;
  token?: TokenRow;
  view?: CachedView;
}

export class CaseCache {
  private entries = new Map<string, Entry>();
  private generation = 0;
  private live = false;

  constructor(private readonly now: () => number = Date.now) {}

  invalidate(caseId?: string): void {
    this.generation++;
    if (caseId) this.entries.delete(caseId);
    else this.entries.clear();
  }

  setLive(live: boolean): void {
    this.live = live;
    this.invalidate();
  }

  get size(): number {
    return this.entries.size;
  }

  private fresh(caseId: string): Entry | undefined {
    const e = this.entries.get(caseId);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(caseId);
      return undefined;
    }
    // Most recently used last: the oldest goes first when full.
    this.entries.delete(caseId);
    this.entries.set(caseId, e);
    return e;
  }

  private async through<K extends 'token' | 'view'>(caseId: string, part: K, load: () => Promise<Entry[K] | null>): Promise<Entry[K] | null> {
    if (!this.live) return load();
    const hit = this.fresh(caseId)?.[part];
    if (hit) return hit;
    const generation = this.generation;
    const value = await load();
    if (value && generation === this.generation) {
      let e = this.entries.get(caseId);
      if (!e) {
        if (this.entries.size >= MAX_CASES) this.entries.delete(this.entries.keys().next().value!);
        e = { expires: this.now() + TTL_MS };
        this.entries.set(caseId, e);
      }
      e[part] = value;
    }
    return value;
  }

  token(caseId: string, load: () => Promise<TokenRow | null>): Promise<TokenRow | null> {
    return this.through(caseId, 'token', load) as Promise<TokenRow | null>;
  }

  view(caseId: string, load: () => Promise<CachedView | null>): Promise<CachedView | null> {
    return this.through(caseId, 'view', load) as Promise<CachedView | null>;
  }
}

const caches = new WeakMap<Database, CaseCache>();

export function caseCacheOf(db: Database): CaseCache | undefined {
  return caches.get(db);
}

/** Turns the cache on for this database handle (the server); resolves with a function that turns it off. */
export async function attachCaseCache(opened: Pick<OpenedDatabase, 'db' | 'listen' | 'watchWrites'>): Promise<() => Promise<void>> {
  const cache = new CaseCache();
  caches.set(opened.db, cache);
  // Own writes: at once. The company's settings feed the view (retention), so a company change drops it too.
  const unwatch = opened.watchWrites([...CASE_TABLES, 'company', 'company_host'], () => cache.invalidate());
  let caseLive = false;
  let companyLive = false;
  const update = () => cache.setLive(caseLive && companyLive);
  const stopCase = await opened.listen(CASE_CHANNEL, (payload) => cache.invalidate(payload || undefined), (live) => ((caseLive = live), update()));
  const stopCompany = await opened.listen(COMPANY_CHANNEL, () => cache.invalidate(), (live) => ((companyLive = live), update()));
  return async () => {
    caches.delete(opened.db);
    unwatch();
    await stopCase();
    await stopCompany();
  };
}
