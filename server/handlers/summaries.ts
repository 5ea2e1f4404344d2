/**
 * The inbox's searchable parts of a batch of cases (issue 38 Build 3;
 * docs/decisions/inbox-search.md): what the handler's browser opens for the category and
 * language columns and for the search over content.
 *
 * - A **sealed** case goes as envelopes: this handler's newest wrap, the links back to
 *   older epochs, the details envelope and each message's envelope. The browser opens
 *   them (src/handler/searchIndex.ts); the server holds no key and learns no word.
 * - A **server-keyed** case is opened here with the case's key, as its page is: the
 *   category, the language and the words to search (description, unit, persons,
 *   messages). The same view a read of the case gives, reduced to what the inbox uses.
 *
 * Only cases `visibleCases` holds (officer scoping, one place) are answered; a number it
 * does not hold is left out, so the answer says nothing of cases the caller cannot see.
 * No audit entry and no "seen" mark: nothing of a case is shown beyond its row, and the
 * unread count must not drop because the inbox was searched. Internal notes join the
 * searched parts once they exist (`NOTE_PARTS`, the hook notes38 fills).
 */
import type { AppContext } from '../context.ts';
import { visibleCases, type HandlerIdentity } from './cases.ts';
import { caseKey, COLUMNS, type CaseDetails } from '../cases/service.ts';
import { handlerRecipientId } from '../cases/sealed.ts';
import { LANGUAGE_COLUMN } from '../mail/notify.ts';

export interface SealedSummaryWire {
  caseNumber: string;
  sealed: true;
  caseId: string;
  epoch: number;
  wrap: { recipientKeyId: string; kind: string; wrap: string } | null;
  links: { epoch: number; kind: 'previous'; link: string }[];
  envelopes: { details: string; whistleblower: null };
  messages: { id: string; epoch: number; body: string }[];
  /** Internal notes' envelopes (the notes' own table, when it exists); the browser opens them as messages. */
  notes: { id: string; epoch: number; body: string; column: string }[];
}

export interface OpenSummaryWire {
  caseNumber: string;
  sealed: false;
  violation: string | null;
  language: string | null;
  /** The words the search runs over: description, unit, persons, messages (and notes). */
  texts: string[];
}

export type SummaryWire = SealedSummaryWire | OpenSummaryWire;

/**
 * The hook for internal notes (notes38): each returns the notes of the given cases as
 * envelopes (sealed cases) or opened texts (server-keyed), keyed by case id. None yet.
 */
export const NOTE_PARTS: {
  sealed: (ctx: AppContext, caseIds: string[]) => Promise<Map<string, SealedSummaryWire['notes']>>;
  open: (ctx: AppContext, caseIds: string[]) => Promise<Map<string, string[]>>;
} = {
  sealed: async () => new Map(),
  open: async () => new Map(),
};

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export async function caseSummaries(ctx: AppContext, h: HandlerIdentity, caseNumbers: readonly string[]): Promise<SummaryWire[]> {
  const rows = await visibleCases(ctx, h)
    .select(['report_case.id', 'report_case.case_number', 'report_case.sealed', 'report_case.wrapped_key', 'report_case.details_enc', 'report_case.language_enc'])
    .where('report_case.case_number', 'in', [...new Set(caseNumbers)])
    .execute();
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const messages = await ctx.db.selectFrom('case_message').select(['id', 'case_id', 'body_enc', 'epoch']).where('case_id', 'in', ids).orderBy('created_at').orderBy('id').execute();
  const byCase = new Map<string, typeof messages>();
  for (const m of messages) byCase.set(m.case_id, [...(byCase.get(m.case_id) ?? []), m]);
  const sealedIds = rows.filter((r) => r.sealed).map((r) => r.id);
  const recipient = sealedIds.length ? await handlerRecipientId(ctx, h.id) : null;
  // This account's newest wrap of each sealed case, and the links back (never the forward links: those are the reporter's).
  const wraps = recipient && sealedIds.length
    ? await ctx.db.selectFrom('case_key_wrap').select(['case_id', 'recipient_key_id', 'kind', 'wrap', 'epoch']).where('case_id', 'in', sealedIds).where('recipient_key_id', '=', recipient).orderBy('epoch', 'desc').execute()
    : [];
  const links = sealedIds.length ? await ctx.db.selectFrom('case_key_wrap').select(['case_id', 'epoch', 'wrap']).where('case_id', 'in', sealedIds).where('kind', '=', 'previous').orderBy('epoch').execute() : [];
  // A revoked account gets no envelopes, as on every sealed route (sealed.ts refuseRevoked).
  const revoked = sealedIds.length ? new Set((await ctx.db.selectFrom('case_key_revocation').select('case_id').where('case_id', 'in', sealedIds).where('handler_id', '=', h.id).execute()).map((r) => r.case_id)) : new Set<string>();
  const sealedNotes = await NOTE_PARTS.sealed(ctx, sealedIds);
  const openNotes = await NOTE_PARTS.open(ctx, rows.filter((r) => !r.sealed).map((r) => r.id));
  const out: SummaryWire[] = [];
  for (const r of rows) {
    const msgs = byCase.get(r.id) ?? [];
    if (r.sealed) {
      const wrap = revoked.has(r.id) ? undefined : wraps.find((w) => w.case_id === r.id);
      out.push({
        caseNumber: r.case_number,
        sealed: true,
        caseId: r.id,
        epoch: wrap?.epoch ?? 1,
        wrap: wrap ? { recipientKeyId: wrap.recipient_key_id, kind: wrap.kind, wrap: b64(wrap.wrap) } : null,
        links: wrap ? links.filter((l) => l.case_id === r.id).map((l) => ({ epoch: l.epoch, kind: 'previous' as const, link: b64(l.wrap) })) : [],
        envelopes: { details: b64(r.details_enc), whistleblower: null },
        messages: wrap ? msgs.map((m) => ({ id: m.id, epoch: m.epoch, body: b64(m.body_enc) })) : [],
        notes: wrap ? (sealedNotes.get(r.id) ?? []) : [],
      });
      continue;
    }
    const key = await caseKey(ctx, r);
    const d = ctx.crypto.openJson<CaseDetails>(key, r.id, COLUMNS.details, r.details_enc);
    const persons = (d.reportedPersons ?? []).flatMap((p) => Object.values(p).filter((x): x is string => typeof x === 'string'));
    out.push({
      caseNumber: r.case_number,
      sealed: false,
      violation: d.violation ?? null,
      language: r.language_enc ? ctx.crypto.open(key, r.id, LANGUAGE_COLUMN, r.language_enc).toString('utf8') : null,
      texts: [d.description ?? '', d.reportedUnit ?? '', ...persons, ...msgs.map((m) => ctx.crypto.open(key, r.id, COLUMNS.messageBody, m.body_enc, m.id).toString('utf8')), ...(openNotes.get(r.id) ?? [])].filter(Boolean),
    });
  }
  return out;
}
