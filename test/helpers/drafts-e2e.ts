/** The handler drafts' IndexedDB read from a page, and the check that it holds no plaintext (test/e2e/*drafts*.test.ts). */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

export interface StoredDraft {
  fields: string[];
  id: string;
  handlerId: string;
  sealed: string;
}

/** Every record of the drafts' IndexedDB, read from the page: its field names, id, handler and sealed bytes (base64). */
export async function storedDrafts(page: Page): Promise<StoredDraft[]> {
  return page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes('wb-handler-drafts')) return [];
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open('wb-handler-drafts');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const all = await new Promise<Record<string, unknown>[]>((resolve, reject) => {
      const r = db.transaction('drafts').objectStore('drafts').getAll();
      r.onsuccess = () => resolve(r.result as Record<string, unknown>[]);
      r.onerror = () => reject(r.error);
    });
    db.close();
    return all.map((x) => {
      let bin = '';
      for (const b of new Uint8Array(x.sealed as Uint8Array)) bin += String.fromCharCode(b);
      return { fields: Object.keys(x).sort(), id: String(x.id), handlerId: String(x.handlerId), sealed: btoa(bin) };
    });
  });
}

/** No stored byte, as text, base64 or JSON, holds any of `secrets`. */
export function expectNoPlaintext(stored: StoredDraft[], secrets: string[]) {
  for (const d of stored) {
    expect(d.fields).toEqual(['handlerId', 'id', 'sealed']);
    const bytes = Buffer.from(d.sealed, 'base64');
    const views = [bytes.toString('latin1'), bytes.toString('utf8'), d.sealed, JSON.stringify(d)];
    for (const s of secrets) {
      for (const word of s.split(/\s+/).filter((w) => w.length >= 5)) {
        for (const v of views) expect(v).not.toContain(word);
        expect(d.sealed).not.toContain(Buffer.from(word).toString('base64').replace(/=+$/, '').slice(0, 6));
      }
    }
  }
}

