/**
 * The company's settings as numbered versions (docs/decisions/company-editor.md).
 * Every write of a company — an import of its file, a save from the browser's editor,
 * a revert to an earlier version — goes through `storeCompany`: one transaction that
 * adds the version, writes the rows the public pages read (`company`, `company_host`,
 * `company_asset`) and the administration trail, so a company is never half saved and
 * never changed without a trace.
 *
 * Images live in `company_image` by content hash and stay: an old version is restored
 * with its own logos. The editor uploads an image first (`storeImage`) and then names
 * it in the draft by its hash.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { HttpError } from '../errors.ts';
import { companyCacheOf } from './cache.ts';
import { CompanyFileError, imageMatches, logoFileName } from './service.ts';
import { parseCompanyFile, type CompanyFile } from './format.ts';
import { recordAdministration, type AdministrationActor } from './trail.ts';

export interface ImageRef {
  sha256: string;
  contentType: string;
}

/** What the editor holds: the company file and the images it names, by path. */
export interface CompanyDraft {
  file: CompanyFile;
  images: Record<string, ImageRef>;
}

export type VersionAction = 'import' | 'save' | 'revert';

export interface VersionMeta {
  action: VersionAction;
  actor: AdministrationActor;
  /** The version the editor started from: another save in between is a 409. */
  baseVersion?: number;
  /**
   * Write the trail entry in this transaction. The editor's routes do; the operator's
   * import route (server/routes/admin.ts) writes its own COMPANY_CREATED/IMPORTED.
   */
  trail?: boolean;
  revertedTo?: number;
}

export const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Images a company may keep, saved or not: uploads are bounded, old versions' images stay. */
export const MAX_IMAGES_PER_COMPANY = 500;

function imagePaths(company: CompanyFile): { field: string; file: string; contentType: string; officerId?: string }[] {
  const refs: { field: string; file: string; contentType: string; officerId?: string }[] = [{ field: 'logo.file', file: company.logo.file, contentType: company.logo.contentType }];
  company.protectionOfficers.forEach((o, i) => {
    if (o.logo) refs.push({ field: `protectionOfficers.${i}.logo.file`, file: o.logo.file, contentType: o.logo.contentType, officerId: o.id });
  });
  return refs;
}

async function currentVersion(trx: Transaction<DB> | Database, companyId: string): Promise<number> {
  const row = await trx.selectFrom('company_version').select((eb) => eb.fn.max('version').as('v')).where('company_id', '=', companyId).executeTakeFirst();
  return Number(row?.v ?? 0);
}

/**
 * Creates or replaces a company as a new version. `images`: for each path the file
 * names, its hash and type, and its bytes when they are new (an import); without
 * bytes the image must be in company_image already (an upload, an old version).
 */
export async function storeCompany(
  db: Database,
  company: CompanyFile,
  images: Record<string, ImageRef & { bytes?: Uint8Array }>,
  meta: VersionMeta,
): Promise<{ id: string; created: boolean; version: number }> {
  try {
    return await db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('company').select('id').where('id', '=', company.id).forUpdate().executeTakeFirst();
      const taken = await trx.selectFrom('company_host').select(['host', 'company_id']).where('host', 'in', company.hosts).where('company_id', '!=', company.id).executeTakeFirst();
      if (taken) throw new CompanyFileError(`hosts.${company.hosts.indexOf(taken.host)}`, `host "${taken.host}" already belongs to company "${taken.company_id}"`);
      const version = existing ? await currentVersion(trx, company.id) : 0;
      if (meta.baseVersion !== undefined && meta.baseVersion !== version) {
        throw new HttpError(409, 'VERSION_CONFLICT', `The settings were saved by someone else meanwhile (now version ${version}, this draft is of version ${meta.baseVersion}); reload them and make the change again.`);
      }
      if (existing) {
        await trx.updateTable('company').set({ name: company.name, default_language: company.defaultLanguage }).where('id', '=', company.id).execute();
      } else {
        await trx.insertInto('company').values({ id: company.id, name: company.name, default_language: company.defaultLanguage, settings: '{}' }).execute();
      }

      // The images this version names, with their bytes.
      const used: Record<string, ImageRef> = {};
      const bytesOf = new Map<string, Uint8Array>();
      for (const ref of imagePaths(company)) {
        const img = images[ref.file];
        if (!img) throw new CompanyFileError(ref.field, `file "${ref.file}" is missing`);
        if (img.contentType !== ref.contentType) throw new CompanyFileError(ref.field, `file "${ref.file}" is a ${img.contentType}, not a ${ref.contentType}`);
        let bytes = img.bytes;
        if (bytes) {
          const sha256 = sha256Hex(bytes);
          await trx.insertInto('company_image').values({ company_id: company.id, sha256, content_type: img.contentType, bytes }).onConflict((oc) => oc.doNothing()).execute();
          used[ref.file] = { sha256, contentType: img.contentType };
        } else {
          const row = await trx.selectFrom('company_image').select(['bytes', 'content_type']).where('company_id', '=', company.id).where('sha256', '=', img.sha256).executeTakeFirst();
          if (!row || row.content_type !== img.contentType) throw new CompanyFileError(ref.field, `image "${ref.file}" was not uploaded to this company`);
          bytes = row.bytes;
          used[ref.file] = { sha256: img.sha256, contentType: img.contentType };
        }
        bytesOf.set(ref.file, bytes);
      }

      const logoBytes = bytesOf.get(company.logo.file)!;
      const logoName = logoFileName(company.id, { contentType: company.logo.contentType, bytes: Buffer.from(logoBytes) });
      await trx.updateTable('company').set({ settings: JSON.stringify({ ...company, logoFileName: logoName }) }).where('id', '=', company.id).execute();
      await trx.deleteFrom('company_host').where('company_id', '=', company.id).execute();
      await trx.insertInto('company_host').values(company.hosts.map((host) => ({ host, company_id: company.id }))).execute();
      await trx.deleteFrom('company_asset').where('company_id', '=', company.id).execute();
      const rows = [{ id: randomUUID(), company_id: company.id, kind: 'logo' as const, name: logoName, content_type: company.logo.contentType as string, bytes: logoBytes }];
      for (const ref of imagePaths(company)) {
        if (ref.officerId) rows.push({ id: randomUUID(), company_id: company.id, kind: 'officer-logo' as never, name: ref.officerId, content_type: ref.contentType, bytes: bytesOf.get(ref.file)! });
      }
      await trx.insertInto('company_asset').values(rows).execute();

      const next = version + 1;
      await trx
        .insertInto('company_version')
        .values({
          company_id: company.id,
          version: next,
          file: JSON.stringify(company),
          images: JSON.stringify(used),
          action: meta.action,
          reverted_to: meta.revertedTo ?? null,
          actor_name: meta.actor.actorName,
          actor_role: meta.actor.actorRole,
          created_at: new Date(),
        })
        .execute();
      if (meta.trail) await recordAdministration(trx, {
        companyId: company.id,
        actor: meta.actor,
        action: meta.action === 'save' ? 'COMPANY_SETTINGS_SAVED' : meta.action === 'revert' ? 'COMPANY_SETTINGS_REVERTED' : 'COMPANY_IMPORTED',
        targetId: company.id,
        targetName: company.name,
        detail: { version: next, ...(meta.revertedTo ? { revertedTo: meta.revertedTo } : {}) },
      });
      return { id: company.id, created: !existing, version: next };
    });
  } finally {
    // At once for this process; other processes hear of it from the database (cache.ts).
    companyCacheOf(db)?.invalidate();
  }
}

/** The newest version: what the editor opens. */
export async function latestDraft(db: Database, companyId: string): Promise<{ version: number; draft: CompanyDraft } | null> {
  const row = await db.selectFrom('company_version').select(['version', 'file', 'images']).where('company_id', '=', companyId).orderBy('version', 'desc').limit(1).executeTakeFirst();
  return row ? { version: row.version, draft: { file: row.file as CompanyFile, images: row.images as Record<string, ImageRef> } } : null;
}

export interface VersionSummary {
  version: number;
  action: VersionAction;
  revertedTo: number | null;
  actorName: string;
  actorRole: string;
  createdAt: string;
}

export async function listVersions(db: Database, companyId: string, limit = 100): Promise<VersionSummary[]> {
  const rows = await db
    .selectFrom('company_version')
    .select(['version', 'action', 'reverted_to', 'actor_name', 'actor_role', 'created_at'])
    .where('company_id', '=', companyId)
    .orderBy('version', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ version: r.version, action: r.action, revertedTo: r.reverted_to, actorName: r.actor_name, actorRole: r.actor_role, createdAt: new Date(r.created_at).toISOString() }));
}

export async function versionDraft(db: Database, companyId: string, version: number): Promise<CompanyDraft | null> {
  const row = await db.selectFrom('company_version').select(['file', 'images']).where('company_id', '=', companyId).where('version', '=', version).executeTakeFirst();
  return row ? { file: row.file as CompanyFile, images: row.images as Record<string, ImageRef> } : null;
}

/** An uploaded image, checked as at import and kept by hash; the same bytes twice are one row. */
export async function storeImage(db: Database, companyId: string, contentType: string, bytes: Uint8Array): Promise<ImageRef> {
  const sha256 = sha256Hex(bytes);
  const known = await db.selectFrom('company_image').select('content_type').where('company_id', '=', companyId).where('sha256', '=', sha256).executeTakeFirst();
  if (known) return { sha256, contentType: known.content_type };
  const count = await db.selectFrom('company_image').select((eb) => eb.fn.countAll().as('n')).where('company_id', '=', companyId).executeTakeFirst();
  if (Number(count?.n ?? 0) >= MAX_IMAGES_PER_COMPANY) throw new HttpError(409, 'TOO_MANY_IMAGES', `A company keeps at most ${MAX_IMAGES_PER_COMPANY} images.`);
  await db.insertInto('company_image').values({ company_id: companyId, sha256, content_type: contentType, bytes }).onConflict((oc) => oc.doNothing()).execute();
  return { sha256, contentType };
}

export async function readImage(db: Database, companyId: string, sha256: string): Promise<{ contentType: string; bytes: Uint8Array } | null> {
  const row = await db.selectFrom('company_image').select(['content_type', 'bytes']).where('company_id', '=', companyId).where('sha256', '=', sha256).executeTakeFirst();
  return row ? { contentType: row.content_type, bytes: row.bytes } : null;
}

/** The company file and its images as the admin import takes them (`POST /api/admin/companies`): export → import is the same company. */
export async function exportBundle(db: Database, companyId: string): Promise<{ file: CompanyFile; assets: Record<string, { contentType: string; base64: string }> } | null> {
  const latest = await latestDraft(db, companyId);
  if (!latest) return null;
  const assets: Record<string, { contentType: string; base64: string }> = {};
  for (const [p, ref] of Object.entries(latest.draft.images)) {
    const img = await readImage(db, companyId, ref.sha256);
    if (img) assets[p] = { contentType: img.contentType, base64: Buffer.from(img.bytes).toString('base64') };
  }
  return { file: latest.draft.file, assets };
}

/** A draft from the browser: the file by the shared rules, its images by reference; the first problem as a 400. */
export function parseDraft(json: unknown): CompanyFile {
  const parsed = parseCompanyFile(json);
  if (!parsed.ok) throw new HttpError(400, 'INVALID_COMPANY_FILE', `${parsed.field}: ${parsed.message}`, parsed.field);
  return parsed.company;
}

export { imageMatches };
