/**
 * Companies (tenants): import from a company file (server/companies/format.ts),
 * look-up by host name, and the demo seed on first start.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { HttpError } from '../errors.ts';
import { parseCompanyFile, type CompanyFile, type CompanyAsset, LOGO_CONTENT_TYPES } from './format.ts';
import type { VocabularyWarning } from './vocabulary.ts';
import { bindCompany } from '../logging.ts';
import { companyCacheOf } from './cache.ts';
import { storeCompany } from './versions.ts';
import { OPERATOR_CLI, type AdministrationActor } from './trail.ts';
import { svgProblem } from '../../core/svg.ts';
import { seedDemoTemplates } from './templates.ts';

export interface AssetBytes {
  contentType: string;
  bytes: Buffer;
}

/** A validated company file with the bytes of every image it names, keyed by relative path. */
export interface CompanyBundle {
  company: CompanyFile;
  assets: Record<string, AssetBytes>;
  /** Company texts using a synonym the glossary forbids: told, never refused (format.ts). */
  warnings?: VocabularyWarning[];
}

export class CompanyFileError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const MAX_ASSET_BYTES = 2 * 1024 * 1024;

function assetRefs(company: CompanyFile): { field: string; asset: CompanyAsset }[] {
  const refs = [{ field: 'logo.file', asset: company.logo }];
  company.protectionOfficers.forEach((o, i) => {
    if (o.logo) refs.push({ field: `protectionOfficers.${i}.logo.file`, asset: o.logo });
  });
  return refs;
}

/** Validates the JSON and checks that every referenced image is given, small enough and of its stated type. */
export function validateBundle(json: unknown, assets: Record<string, AssetBytes>): CompanyBundle {
  const parsed = parseCompanyFile(json);
  if (!parsed.ok) throw new CompanyFileError(parsed.field, parsed.message);
  for (const { field, asset } of assetRefs(parsed.company)) {
    const a = assets[asset.file];
    if (!a) throw new CompanyFileError(field, `file "${asset.file}" is missing`);
    if (a.bytes.length > MAX_ASSET_BYTES) throw new CompanyFileError(field, `file "${asset.file}" is larger than 2 MB`);
    if (!imageMatches(asset.contentType, a.bytes)) {
      throw new CompanyFileError(field, `file "${asset.file}" is not a ${asset.contentType} image`);
    }
  }
  return { company: parsed.company, assets, warnings: parsed.warnings };
}

/** The image's bytes must be what the file says, because the server sends them with that type. */
export function imageMatches(contentType: string, b: Buffer): boolean {
  switch (contentType as (typeof LOGO_CONTENT_TYPES)[number]) {
    case 'image/png':
      return b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    case 'image/jpeg':
      return b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
    case 'image/webp':
      return b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP';
    case 'image/svg+xml': {
      // Plain drawing only (core/svg.ts): an SVG with anything else is refused, never rewritten.
      return svgProblem(b.toString('utf8')) === null;
    }
    default:
      return false;
  }
}

/** Reads a company file and the images it names from disk (the CLI and the demo seed). */
export function readCompanyBundle(file: string): CompanyBundle {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CompanyFileError('(file)', `cannot read ${file} as JSON: ${(err as Error).message}`);
  }
  const parsed = parseCompanyFile(json);
  if (!parsed.ok) throw new CompanyFileError(parsed.field, parsed.message);
  const dir = path.dirname(path.resolve(file));
  const assets: Record<string, AssetBytes> = {};
  for (const { asset } of assetRefs(parsed.company)) {
    const p = path.join(dir, asset.file);
    if (existsSync(p) && statSync(p).isFile()) assets[asset.file] = { contentType: asset.contentType, bytes: readFileSync(p) };
  }
  return validateBundle(json, assets);
}

const EXT: Record<string, string> = { 'image/svg+xml': 'svg', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** Logo names carry a content hash, so a new logo gets a new URL. */
export function logoFileName(companyId: string, a: AssetBytes): string {
  const h = createHash('sha256').update(a.bytes).digest('hex').slice(0, 12);
  return `${companyId}-${h}.${EXT[a.contentType] ?? 'img'}`;
}

/** Creates or replaces a company (by id) as a new version: settings, host names and images. Cases stay. */
export async function importCompany(db: Database, bundle: CompanyBundle, actor: AdministrationActor = OPERATOR_CLI, baseVersion?: number): Promise<{ id: string; created: boolean; version: number }> {
  const images = Object.fromEntries(Object.entries(bundle.assets).map(([p, a]) => [p, { sha256: '', contentType: a.contentType, bytes: new Uint8Array(a.bytes) }]));
  return storeCompany(db, bundle.company, images, { action: 'import', actor, baseVersion });
}

export interface StoredCompany extends CompanyFile {
  logoFileName: string;
}

export interface Company {
  id: string;
  name: string;
  settings: StoredCompany;
}

/** `Host` or `X-Company-Host` value → the name looked up: port dropped, lower-cased. */
export function normalizeHost(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) return v.slice(0, v.indexOf(']') + 1);
  const colon = v.lastIndexOf(':');
  return colon >= 0 && v.indexOf(':') === colon ? v.slice(0, colon) : v;
}

/** The company served on `host` (settings parsed once per process, see cache.ts); the result is frozen. */
export async function companyByHost(db: Database, host: string): Promise<Company | null> {
  const name = normalizeHost(host);
  const cache = companyCacheOf<Company>(db);
  return cache ? cache.get(`host:${name}`, () => loadByHost(db, name)) : loadByHost(db, name);
}

async function loadByHost(db: Database, name: string): Promise<Company | null> {
  const row = await db
    .selectFrom('company_host')
    .innerJoin('company', 'company.id', 'company_host.company_id')
    .select(['company.id', 'company.name', 'company.settings'])
    .where('company_host.host', '=', name)
    .executeTakeFirst();
  return row ? { id: row.id, name: row.name, settings: row.settings as StoredCompany } : null;
}

export async function companyById(db: Database, id: string): Promise<Company | null> {
  const cache = companyCacheOf<Company>(db);
  return cache ? cache.get(`id:${id}`, () => loadById(db, id)) : loadById(db, id);
}

async function loadById(db: Database, id: string): Promise<Company | null> {
  const row = await db.selectFrom('company').select(['id', 'name', 'settings']).where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, name: row.name, settings: row.settings as StoredCompany } : null;
}

/** The host a public request names (docs/decisions/tenant-resolution.md). */
export function requestHost(req: FastifyRequest): string {
  const header = req.headers['x-company-host'];
  const named = Array.isArray(header) ? header[0] : header;
  return named?.trim() ? named : (req.headers.host ?? '');
}

/** The company of a public request, or 404 UNKNOWN_COMPANY. */
export async function requireCompany(db: Database, req: FastifyRequest): Promise<Company> {
  const host = requestHost(req);
  const company = host ? await companyByHost(db, host) : null;
  if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', `No company is served on host "${normalizeHost(host).slice(0, 253)}".`);
  bindCompany(req, company.id);
  return company;
}

/** Company files of the demo seed: every `*.json` directly inside a folder of `seedDir`, or in it. */
export function seedFiles(seedDir: string): string[] {
  if (!existsSync(seedDir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(seedDir).sort()) {
    const p = path.join(seedDir, name);
    if (statSync(p).isDirectory()) {
      for (const inner of readdirSync(p).sort()) if (inner.endsWith('.json')) out.push(path.join(p, inner));
    } else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}

/** On first start (no company at all), imports the demo companies. */
export async function seedDemoCompanies(db: Database, seedDir: string): Promise<string[]> {
  const any = await db.selectFrom('company').select('id').limit(1).executeTakeFirst();
  if (any) return [];
  const ids: string[] = [];
  for (const file of seedFiles(seedDir)) {
    const bundle = readCompanyBundle(file);
    const id = (await importCompany(db, bundle)).id;
    await seedDemoTemplates(db, id, bundle.company.languages, bundle.company.defaultLanguage);
    ids.push(id);
  }
  return ids;
}
