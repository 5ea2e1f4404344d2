/**
 * A company's reply templates (issue 38 Build 7, docs/decisions/reply-templates.md):
 * company configuration in clear, read by the company's handlers, kept by its
 * administrators. Every query here takes the company id the roles module authorised
 * (server/security/roles.ts, through the routes in server/routes/templates.ts) and
 * filters by it, so no template of one company is read, changed or removed through
 * another's: a template id of another company answers as if it did not exist.
 * Every change writes its administration trail entry in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { HttpError } from '../errors.ts';
import { appendTrail, type Actor } from '../handlers/administration.ts';
import { REPLY_TEMPLATE_LIMITS, replyTemplateSchema, type Language, type ReplyTemplate } from '../../machines/schema.ts';
import { parseOr400 } from '../routes/parse.ts';
import type { Company } from './service.ts';
import { DEMO_TEMPLATES } from './demo-templates.ts';

type Row = { id: string; name: string; texts: unknown; updated_at: Date | string };

const asTemplate = (r: Row): ReplyTemplate => ({
  id: r.id,
  name: r.name,
  texts: (typeof r.texts === 'string' ? JSON.parse(r.texts) : r.texts) as ReplyTemplate['texts'],
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** What both sides read: the templates in the administrator's order, and the company's languages to pick the text by. */
export interface TemplatesAnswer {
  templates: ReplyTemplate[];
  languages: Language[];
  defaultLanguage: Language;
}

export async function listTemplates(db: Database, company: Company): Promise<TemplatesAnswer> {
  const rows = await db.selectFrom('reply_template').select(['id', 'name', 'texts', 'updated_at']).where('company_id', '=', company.id).orderBy('position').orderBy('created_at').execute();
  return { templates: rows.map(asTemplate), languages: [...company.settings.languages], defaultLanguage: company.settings.defaultLanguage };
}

/** The body of a create or an edit, under the shared rules for this company's languages (400 VALIDATION naming `texts.pl`). */
export function parseTemplate(company: Company, body: unknown) {
  return parseOr400(replyTemplateSchema(company.settings.languages), body ?? {}, 'body');
}

const unknownTemplate = () => new HttpError(404, 'UNKNOWN_TEMPLATE', 'This company has no such reply template.', 'id');
const isUuid = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export async function createTemplate(db: Database, company: Company, body: unknown, actor: Actor): Promise<ReplyTemplate> {
  const input = parseTemplate(company, body);
  return db.transaction().execute(async (trx) => {
    // The company row's lock makes the count and the insert one step: two saves at once cannot pass the limit together.
    await trx.selectFrom('company').select('id').where('id', '=', company.id).forUpdate().executeTakeFirst();
    const { n, last } = (await trx
      .selectFrom('reply_template')
      .select([sql<number>`count(*)::int`.as('n'), sql<number>`coalesce(max(position), 0)::int`.as('last')])
      .where('company_id', '=', company.id)
      .executeTakeFirst())!;
    if (n >= REPLY_TEMPLATE_LIMITS.perCompany) throw new HttpError(409, 'TEMPLATE_LIMIT', `A company keeps at most ${REPLY_TEMPLATE_LIMITS.perCompany} reply templates; remove one first.`);
    const now = new Date();
    const row = await trx
      .insertInto('reply_template')
      .values({ id: randomUUID(), company_id: company.id, name: input.name, texts: JSON.stringify(input.texts), position: last + 1, created_at: now, updated_at: now, updated_by: actor.actorName })
      .returning(['id', 'name', 'texts', 'updated_at'])
      .executeTakeFirstOrThrow();
    await appendTrail(trx, company.id, actor, 'TEMPLATE_CREATED', { id: row.id, name: row.name }, { languages: Object.keys(input.texts) });
    return asTemplate(row);
  });
}

export async function updateTemplate(db: Database, company: Company, id: string, body: unknown, actor: Actor): Promise<ReplyTemplate> {
  const input = parseTemplate(company, body);
  if (!isUuid(id)) throw unknownTemplate();
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('reply_template')
      .set({ name: input.name, texts: JSON.stringify(input.texts), updated_at: new Date(), updated_by: actor.actorName })
      .where('id', '=', id)
      .where('company_id', '=', company.id)
      .returning(['id', 'name', 'texts', 'updated_at'])
      .executeTakeFirst();
    if (!row) throw unknownTemplate();
    await appendTrail(trx, company.id, actor, 'TEMPLATE_UPDATED', { id: row.id, name: row.name }, { languages: Object.keys(input.texts) });
    return asTemplate(row);
  });
}

export async function deleteTemplate(db: Database, company: Company, id: string, actor: Actor): Promise<void> {
  if (!isUuid(id)) throw unknownTemplate();
  await db.transaction().execute(async (trx) => {
    const row = await trx.deleteFrom('reply_template').where('id', '=', id).where('company_id', '=', company.id).returning(['id', 'name']).executeTakeFirst();
    if (!row) throw unknownTemplate();
    await appendTrail(trx, company.id, actor, 'TEMPLATE_DELETED', { id: row.id, name: row.name });
  });
}

/** The demo seed: the two templates every demo company starts with, in each of its languages. */
export async function seedDemoTemplates(db: Database, companyId: string, languages: readonly Language[], defaultLanguage: Language): Promise<void> {
  const now = new Date();
  let position = 0;
  for (const t of DEMO_TEMPLATES) {
    const texts = Object.fromEntries(languages.map((l) => [l, t.texts[l]]));
    position += 1;
    await db
      .insertInto('reply_template')
      .values({ id: randomUUID(), company_id: companyId, name: t.names[defaultLanguage], texts: JSON.stringify(texts), position, created_at: now, updated_at: now, updated_by: 'operator (command line)' })
      .execute();
  }
}
