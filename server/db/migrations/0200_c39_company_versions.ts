import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * The company's settings as versions (docs/decisions/company-editor.md):
 * - `company_image`: every image a company has had (logo, officer logos), by content
 *   hash, so an old version can be restored with its images;
 * - `company_version`: every saved company file, numbered per company, with the map
 *   of its image paths to hashes and how it came (`import`, `save`, `revert`).
 * `company`, `company_host` and `company_asset` stay what the public pages read: a
 * save writes the new version and those rows in one transaction.
 *
 * - `company_preview`: a draft the editor wants to see as the landing page, kept a
 *   few minutes so the preview frame can load it by id from any server process.
 *
 * Companies that exist already get their current settings as version 1.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_image')
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('company_image_pk', ['company_id', 'sha256'])
    .execute();
  await db.schema
    .createTable('company_version')
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('file', 'jsonb', (c) => c.notNull())
    .addColumn('images', 'jsonb', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reverted_to', 'integer')
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('actor_role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('company_version_pk', ['company_id', 'version'])
    .execute();
  await db.schema
    .createTable('company_preview')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('company.id').onDelete('cascade'))
    .addColumn('file', 'jsonb', (c) => c.notNull())
    .addColumn('images', 'jsonb', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();

  const companies = await db.selectFrom('company').select(['id', 'settings', 'created_at']).execute();
  for (const c of companies) {
    const settings = (typeof c.settings === 'string' ? JSON.parse(c.settings) : c.settings) as Record<string, any>;
    const { logoFileName, ...file } = settings;
    const assets = await db.selectFrom('company_asset').select(['kind', 'name', 'content_type', 'bytes']).where('company_id', '=', c.id).execute();
    const images: Record<string, { sha256: string; contentType: string }> = {};
    const keep = async (path: string | undefined, a: { content_type: string; bytes: Uint8Array } | undefined) => {
      if (!path || !a) return;
      const sha256 = createHash('sha256').update(a.bytes).digest('hex');
      images[path] = { sha256, contentType: a.content_type };
      await db.insertInto('company_image').values({ company_id: c.id, sha256, content_type: a.content_type, bytes: a.bytes }).onConflict((oc) => oc.doNothing()).execute();
    };
    await keep(file.logo?.file, assets.find((a) => a.kind === 'logo' && a.name === logoFileName) ?? assets.find((a) => a.kind === 'logo'));
    for (const o of (file.protectionOfficers ?? []) as { id: string; logo?: { file: string } }[]) {
      await keep(o.logo?.file, assets.find((a) => a.kind === 'officer-logo' && a.name === o.id));
    }
    await db
      .insertInto('company_version')
      .values({ company_id: c.id, version: 1, file: JSON.stringify(file), images: JSON.stringify(images), action: 'import', actor_name: 'before versions', actor_role: 'operator-cli', created_at: c.created_at ?? new Date() })
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('company_preview').ifExists().execute();
  await db.schema.dropTable('company_version').ifExists().execute();
  await db.schema.dropTable('company_image').ifExists().execute();
}
