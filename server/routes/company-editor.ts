/**
 * The company editor's API (issue 39 item 5, docs/decisions/company-editor.md): the
 * browser reads the company's settings as one draft, saves it as a new version, lists
 * and restores versions, previews the landing page of an unsaved draft, uploads logos,
 * and exports or imports the company file. The draft is checked by the very schema
 * the import applies (machines/companyFile.ts); only the operator changes host names.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as v from 'valibot';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { parseOr400 } from './parse.ts';
import { LANGUAGES, LOGO_CONTENT_TYPES, type CompanyFile } from '../../machines/companyFile.ts';
import { CompanyFileError, validateBundle, type AssetBytes, type Company, type StoredCompany } from '../companies/service.ts';
import { exportBundle, latestDraft, listVersions, parseDraft, readImage, storeCompany, storeImage, versionDraft, type ImageRef } from '../companies/versions.ts';
import { editorCaller } from '../companies/editor-access.ts';
import { svgProblem } from '../../core/svg.ts';
import { CannotClean, detectFormat, stripJpeg, stripPng, stripWebp } from '../../core/metadata/scan.ts';
import type { Spa } from '../spa.ts';

const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
const PREVIEW_MS = 10 * 60_000;
const PREVIEWS_PER_COMPANY = 20;

const sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256'));
const imageRef = v.object({ sha256, contentType: v.picklist(LOGO_CONTENT_TYPES, `must be one of ${LOGO_CONTENT_TYPES.join(', ')}`) });
const images = v.pipe(v.record(v.pipe(v.string(), v.maxLength(300)), imageRef), v.check((r) => Object.keys(r).length <= 60, 'too many images'));
const version = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 31 - 1));

export const draftSchema = v.object({ baseVersion: version, file: v.unknown(), images });
export const previewSchema = v.object({ file: v.unknown(), images });
export const revertSchema = v.object({ baseVersion: version });
export const imageSchema = v.object({
  contentType: v.picklist(LOGO_CONTENT_TYPES, `must be one of ${LOGO_CONTENT_TYPES.join(', ')}`),
  base64: v.pipe(v.string(), v.maxLength(Math.ceil(MAX_IMAGE_BYTES / 3) * 4 + 4, 'validation.tooLong'), v.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')),
});
export const editorImportSchema = v.object({
  baseVersion: v.optional(version),
  file: v.unknown(),
  assets: v.optional(v.record(v.pipe(v.string(), v.maxLength(300)), v.object({ contentType: v.string(), base64: v.string() })), {}),
});

const EXT: Record<string, string> = { 'image/svg+xml': 'svg', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
const FORMAT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

/** The path an uploaded image gets in the company file: its hash, so two uploads never collide. */
export const imageFileName = (ref: ImageRef) => `images/${ref.sha256.slice(0, 16)}.${EXT[ref.contentType] ?? 'img'}`;

/** The same image checks as the import's, and the metadata a raster logo carries is removed (core/metadata). */
export function checkedImage(contentType: string, bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0 || bytes.length > MAX_IMAGE_BYTES) throw new HttpError(413, 'IMAGE_TOO_LARGE', 'A logo must be between 1 byte and 2 MB.', 'base64');
  if (contentType === 'image/svg+xml') {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new HttpError(400, 'IMAGE_REFUSED', 'This SVG is not UTF-8 text.', 'base64');
    }
    const problem = svgProblem(text);
    if (problem) throw new HttpError(400, 'IMAGE_REFUSED', `This SVG is refused: it holds ${problem}. Only plain drawing is taken (no script, style sheet, link or embedded content).`, 'base64');
    return bytes;
  }
  if (detectFormat(bytes) !== FORMAT[contentType]) throw new HttpError(400, 'IMAGE_REFUSED', `The bytes are not a ${contentType} image.`, 'base64');
  try {
    return contentType === 'image/png' ? stripPng(bytes) : contentType === 'image/jpeg' ? stripJpeg(bytes) : stripWebp(bytes);
  } catch (err) {
    if (err instanceof CannotClean) throw new HttpError(400, 'IMAGE_REFUSED', `The image cannot be read: ${err.message}`, 'base64');
    throw err;
  }
}

function sendImage(reply: FastifyReply, img: { contentType: string; bytes: Uint8Array }) {
  if (img.contentType === 'image/svg+xml') reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  return reply.type(img.contentType).send(Buffer.from(img.bytes));
}

function asFileError(err: unknown): never {
  if (err instanceof CompanyFileError) throw new HttpError(400, 'INVALID_COMPANY_FILE', err.message, err.field);
  throw err;
}

export function registerCompanyEditorRoutes(app: FastifyInstance, ctx: AppContext, spa: Pick<Spa, 'renderPreview'>) {
  type P = { Params: { company: string } };

  /** The caller may edit this company, and it exists (404 otherwise, whatever the reason). */
  const open = (req: FastifyRequest<P>) => editorCaller(ctx, req, req.params.company);

  /** A draft's file for this company: the shared rules, the same id, and the same hosts unless the operator asks. */
  function checkDraft(json: unknown, company: Company, isOperator: boolean): CompanyFile {
    const file = parseDraft(json);
    if (file.id !== company.id) throw new HttpError(400, 'COMPANY_ID_MISMATCH', `The file is of company "${file.id}", not "${company.id}".`, 'id');
    const hosts = company.settings.hosts;
    if (!isOperator && (file.hosts.length !== hosts.length || file.hosts.some((h, i) => h !== hosts[i]))) {
      throw new HttpError(403, 'HOSTS_OPERATOR_ONLY', "Only the portal's operator changes a company's host names.", 'hosts');
    }
    return file;
  }

  app.get<P>('/api/admin/companies/:company/editor', async (req) => {
    const { caller, company } = await open(req);
    const latest = await latestDraft(ctx.db, company.id);
    if (!latest) throw new HttpError(404, 'UNKNOWN_COMPANY', 'This company has no saved settings.');
    return { version: latest.version, file: latest.draft.file, images: latest.draft.images, canEditHosts: caller.isOperator };
  });

  app.put<P>('/api/admin/companies/:company/settings', async (req) => {
    const { caller, company } = await open(req);
    const body = parseOr400(draftSchema, req.body ?? {}, 'body');
    const file = checkDraft(body.file, company, caller.isOperator);
    const saved = await storeCompany(ctx.db, file, body.images, { action: 'save', actor: caller.actor, baseVersion: body.baseVersion, trail: true }).catch(asFileError);
    return { version: saved.version };
  });

  app.get<P>('/api/admin/companies/:company/versions', async (req) => {
    const { company } = await open(req);
    return { versions: await listVersions(ctx.db, company.id) };
  });

  app.post<P & { Params: { version: string } }>('/api/admin/companies/:company/versions/:version/revert', async (req) => {
    const { caller, company } = await open(req);
    const { baseVersion } = parseOr400(revertSchema, req.body ?? {}, 'body');
    const n = /^\d{1,9}$/.test(req.params.version) ? Number(req.params.version) : NaN;
    const old = Number.isFinite(n) ? await versionDraft(ctx.db, company.id, n) : null;
    if (!old) throw new HttpError(404, 'UNKNOWN_VERSION', `This company has no version ${req.params.version.slice(0, 12)}.`, 'version');
    // The old version under today's rules and hosts: a rule made stricter since refuses it with the field named.
    const file = checkDraft(old.file, company, caller.isOperator);
    const saved = await storeCompany(ctx.db, file, old.images, { action: 'revert', actor: caller.actor, baseVersion, revertedTo: n, trail: true }).catch(asFileError);
    return { version: saved.version };
  });

  app.get<P>('/api/admin/companies/:company/export', async (req, reply) => {
    const { company } = await open(req);
    const bundle = await exportBundle(ctx.db, company.id);
    reply.header('content-disposition', `attachment; filename="${company.id}.company.json"`);
    return bundle;
  });

  app.post<P>('/api/admin/companies/:company/import', { bodyLimit: 32 * 1024 * 1024 }, async (req) => {
    const { caller, company } = await open(req);
    const body = parseOr400(editorImportSchema, req.body ?? {}, 'body');
    const assets: Record<string, AssetBytes> = {};
    for (const [p, a] of Object.entries(body.assets)) assets[p] = { contentType: a.contentType, bytes: Buffer.from(a.base64, 'base64') };
    const file = checkDraft(body.file, company, caller.isOperator);
    let bundle;
    try {
      bundle = validateBundle(body.file, assets);
    } catch (err) {
      asFileError(err);
    }
    const byPath = Object.fromEntries(Object.entries(bundle.assets).map(([p, a]) => [p, { sha256: '', contentType: a.contentType, bytes: new Uint8Array(a.bytes) }]));
    const saved = await storeCompany(ctx.db, file, byPath, { action: 'import', actor: caller.actor, baseVersion: body.baseVersion, trail: true }).catch(asFileError);
    return { version: saved.version };
  });

  app.post<P>('/api/admin/companies/:company/images', { bodyLimit: 4 * 1024 * 1024 }, async (req, reply) => {
    const { company } = await open(req);
    const body = parseOr400(imageSchema, req.body ?? {}, 'body');
    const bytes = checkedImage(body.contentType, new Uint8Array(Buffer.from(body.base64, 'base64')));
    const ref = await storeImage(ctx.db, company.id, body.contentType, bytes);
    return reply.status(201).send({ ...ref, file: imageFileName(ref) });
  });

  app.get<P & { Params: { sha256: string } }>('/api/admin/companies/:company/images/:sha256', async (req, reply) => {
    const { company } = await open(req);
    const img = /^[0-9a-f]{64}$/.test(req.params.sha256) ? await readImage(ctx.db, company.id, req.params.sha256) : null;
    if (!img) throw new HttpError(404, 'NOT_FOUND', 'No such image.');
    return sendImage(reply, img);
  });

  app.post<P>('/api/admin/companies/:company/preview', async (req, reply) => {
    const { caller, company } = await open(req);
    const body = parseOr400(previewSchema, req.body ?? {}, 'body');
    const file = checkDraft(body.file, company, caller.isOperator);
    const logo = body.images[file.logo.file];
    if (!logo || logo.contentType !== file.logo.contentType) throw new HttpError(400, 'INVALID_COMPANY_FILE', `logo.file: file "${file.logo.file}" is missing`, 'logo.file');
    const now = Date.now();
    await ctx.db.deleteFrom('company_preview').where('expires_at', '<', new Date(now)).execute();
    const kept = await ctx.db.selectFrom('company_preview').select('id').where('company_id', '=', company.id).orderBy('expires_at', 'desc').offset(PREVIEWS_PER_COMPANY - 1).execute();
    if (kept.length) await ctx.db.deleteFrom('company_preview').where('id', 'in', kept.map((k) => k.id)).execute();
    const id = randomUUID();
    await ctx.db.insertInto('company_preview').values({ id, company_id: company.id, file: JSON.stringify(file), images: JSON.stringify(body.images), expires_at: new Date(now + PREVIEW_MS) }).execute();
    return reply.status(201).send({ id, languages: file.languages, expiresAt: new Date(now + PREVIEW_MS).toISOString() });
  });

  app.get<P & { Params: { previewId: string; language: string } }>('/api/admin/companies/:company/preview/:previewId/:language', async (req, reply) => {
    const { company } = await open(req);
    const { previewId, language } = req.params;
    const row = /^[0-9a-f-]{36}$/.test(previewId)
      ? await ctx.db.selectFrom('company_preview').select(['file', 'images']).where('id', '=', previewId).where('company_id', '=', company.id).where('expires_at', '>', new Date()).executeTakeFirst()
      : undefined;
    if (!row) throw new HttpError(404, 'UNKNOWN_PREVIEW', 'This preview has expired; ask for it again.');
    const file = row.file as CompanyFile;
    const refs = row.images as Record<string, ImageRef>;
    if (!(LANGUAGES as readonly string[]).includes(language) || !file.languages.includes(language as never)) {
      throw new HttpError(404, 'UNKNOWN_LANGUAGE', `The draft does not offer the language "${language.slice(0, 20)}".`, 'language');
    }
    const logo = refs[file.logo.file]!;
    const logoFileName = `${company.id}-${logo.sha256.slice(0, 12)}.${EXT[logo.contentType] ?? 'img'}`;
    const draft: Company = { id: company.id, name: file.name, settings: { ...file, logoFileName } as StoredCompany };
    const html = await spa.renderPreview(req, draft, language as never, () => `/api/admin/companies/${company.id}/images/${logo.sha256}`);
    if (!html) throw new HttpError(503, 'PREVIEW_UNAVAILABLE', 'This server has no build of the public pages to draw the preview with.');
    reply.header('content-security-policy', "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'");
    reply.header('x-frame-options', 'SAMEORIGIN');
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
