/**
 * The inbox's summaries, opened in this browser (machines/handler/inbox.ts
 * `openSummaries`; docs/decisions/inbox-search.md): for a batch of cases, the server's
 * `POST /api/handler/cases/summaries` gives a sealed case's envelopes and this account's
 * wrap, opened here with the session's keys (core/crypto), or a server-keyed case's
 * parts as its page would. What comes out is the category, the reporter's language and
 * the searchable words of each case.
 *
 * Kept for the sitting in this module's memory only, never in storage: a visit to a case
 * and back does not open the same cases again, and sign-out (`forgetSearchIndex`) or a
 * reload drops it. Only opened summaries are kept, so a case that did not open (keys
 * locked) is tried again by the next inbox. The words searched for stay here too
 * (`rememberSearch`), never in the address.
 */
import { fieldContext, fromBase64, keyForEpoch, keyId, openCaseKeys, openCaseParts, openFieldText } from '../../core/crypto/index.ts';
import { searchableText, type CaseSummary, type SummariesAnswer } from '../../machines/handler/inbox.ts';
import type { OpenedKeys } from '../../machines/handler/session.ts';
import type { SealedDetails } from '../../machines/handler/sealedCase.ts';
import type { ApiClient } from '../api/client.ts';

interface SealedSummaryWire {
  caseNumber: string;
  sealed: true;
  caseId: string;
  epoch: number;
  wrap: { recipientKeyId: string; kind: string; wrap: string } | null;
  links: { epoch: number; kind: 'previous'; link: string }[];
  envelopes: { details: string; whistleblower: null };
  messages: { id: string; epoch: number; body: string }[];
  notes: { id: string; epoch: number; body: string; column: string }[];
}
interface OpenSummaryWire {
  caseNumber: string;
  sealed: false;
  violation: string | null;
  language: string | null;
  texts: string[];
}
type SummaryWire = SealedSummaryWire | OpenSummaryWire;

let owner: string | null = null;
const opened = new Map<string, CaseSummary>();
let search = '';

/** Drops every opened summary and the remembered search (sign-out, another account). */
export function forgetSearchIndex(): void {
  opened.clear();
  search = '';
  owner = null;
}

/** The words last searched in this sitting, for the inbox's next visit (memory only). */
export function rememberSearch(handlerId: string | undefined, value: string): void {
  if (handlerId && owner === handlerId) search = value;
}
export function rememberedSearch(handlerId: string | undefined): string {
  return handlerId && owner === handlerId ? search : '';
}

/** Details of a sealed case the form wrote; `language` is the reporter's interface language, when the form kept it. */
type IndexedDetails = SealedDetails & { language?: unknown };

const personWords = (persons: SealedDetails['reportedPersons']) => (Array.isArray(persons) ? persons.flatMap((p) => Object.values(p ?? {}).filter((x): x is string => typeof x === 'string')) : []);

async function openSealed(w: SealedSummaryWire, own: OpenedKeys | null, ownKeyId: string | null): Promise<CaseSummary> {
  if (!own || !ownKeyId || !w.wrap) return { opened: false };
  try {
    const keys = await openCaseKeys(w, { ecdh: { privateKey: own.ecdh.privateKey, publicKey: own.ecdhSpki }, keyId: ownKeyId });
    const parts = await openCaseParts<IndexedDetails>(keys, w);
    const d = parts.details && typeof parts.details === 'object' ? parts.details : null;
    if (!d) return { opened: false };
    // Notes (when notes38's table exists) open as messages do, under their epoch's key and their column.
    const notes = await Promise.all(
      w.notes.map(async (n) => {
        const k = keyForEpoch(keys, n.epoch);
        return k ? openFieldText(k, fieldContext(w.caseId, n.column, n.id), fromBase64(n.body)).catch(() => null) : null;
      }),
    );
    return {
      opened: true,
      category: typeof d.violation === 'string' ? d.violation : null,
      language: typeof d.language === 'string' ? d.language : null,
      text: searchableText([d.description, d.reportedUnit, ...personWords(d.reportedPersons), ...parts.messages.map((m) => m.text), ...notes]),
    };
  } catch {
    return { opened: false };
  }
}

/** The summaries of these cases: the kept ones at once, the others asked for in one call and opened here. */
export async function openSummaries(api: ApiClient, handlerId: string | undefined, own: OpenedKeys | null, caseNumbers: readonly string[]): Promise<SummariesAnswer> {
  if (owner !== handlerId) {
    forgetSearchIndex();
    owner = handlerId ?? null;
  }
  const summaries: Record<string, CaseSummary> = {};
  const asked = caseNumbers.filter((n) => {
    const kept = opened.get(n);
    if (kept) summaries[n] = kept;
    return !kept;
  });
  if (!asked.length) return { summaries };
  const { summaries: wires } = await api.json<{ summaries: SummaryWire[] }>('/api/handler/cases/summaries', { method: 'POST', body: { caseNumbers: asked } });
  const ownKeyId = own ? await keyId(own.ecdhSpki) : null;
  await Promise.all(
    wires.map(async (w) => {
      const s: CaseSummary = w.sealed ? await openSealed(w, own, ownKeyId) : { opened: true, category: w.violation, language: w.language, text: searchableText(w.texts) };
      summaries[w.caseNumber] = s;
      if (s.opened && owner === (handlerId ?? null)) opened.set(w.caseNumber, s);
    }),
  );
  return { summaries };
}
