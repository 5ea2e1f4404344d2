/**
 * The public calls of spec §7: company info, look and feel, logos and the three
 * ways to create a case. The company is the one named by the request's host
 * (docs/decisions/tenant-resolution.md).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import { parseCategories } from '../keys/statistics-key.ts';
import { LANGUAGES, caseDtoSchema, isAudioType, sealedCaseDtoSchema, submissionByPhoneDtoSchema, type Language, type CaseAccount, type OralSubmissionDto, type SubmissionType } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { requireCompany, type Company } from '../companies/service.ts';
import { lookAndFeelResponse, voiceSettings, type CompanyFile } from '../companies/format.ts';
import { createCase, type AccountInput } from '../cases/service.ts';
import { reserveCase } from '../cases/reservations.ts';
import { refuseSealedMultipart, sealedParts, sealedRecipients, sealingKeys } from '../cases/sealed.ts';
import { discardStaged, receiveUpload } from '../cases/upload.ts';
import { parseJsonPartAs, parseOr400 } from './parse.ts';
import { companyInfoResponse, representation, sendRepresentation, type Representation } from '../spa.ts';
import { LIMITS } from '../../machines/schema.ts';
import { UPLOAD_SESSION_HEADER, assertSessionCompany, assertSessionFor, type ResumableUploads } from '../uploads/resumable.ts';


/** Names the database may be asked about: logo file names and officer ids (a NUL byte would upset PostgreSQL). */
const ASSET_NAME = /^[\w.-]{1,200}$/;

async function sendAsset(ctx: AppContext, reply: FastifyReply, company: Company, kind: 'logo' | 'officer-logo', name: string) {
  const asset = !ASSET_NAME.test(name) ? undefined : await ctx.db
    .selectFrom('company_asset')
    .select(['content_type', 'bytes'])
    .where('company_id', '=', company.id)
    .where('kind', '=', kind)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!asset) throw new HttpError(404, 'NOT_FOUND', kind === 'logo' ? 'No such logo.' : 'This protection officer has no logo.');
  // SVG logos come from the operator's company file; still, never let one run script.
  if (asset.content_type === 'image/svg+xml') reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  return reply
    .type(asset.content_type)
    .header('cache-control', kind === 'logo' ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
    .header('content-disposition', 'inline')
    .send(Buffer.from(asset.bytes));
}

/** Browser tags for the portal's language codes (`se` is the spec's Swedish). */
const LANGUAGE_ALIASES: Record<string, Language> = { sv: 'se', nb: 'no', nn: 'no' };

/**
 * The language a report is sent in: the SPA sends its interface language as
 * `Accept-Language`; the first tag the portal speaks wins. Mails to the reporter
 * are written in it.
 */
export function requestLanguage(req: FastifyRequest): Language | null {
  for (const part of String(req.headers['accept-language'] ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase().split('-')[0]!;
    const lang = LANGUAGE_ALIASES[tag] ?? tag;
    if ((LANGUAGES as readonly string[]).includes(lang)) return lang as Language;
  }
  return null;
}

/**
 * Public answers per company object, made once: only answers that exist are kept, so
 * the keys are bounded by the company's languages (an unknown language is a 404,
 * computed each time). A re-imported company is a new object, so nothing is stale.
 */
const publicBodies = new WeakMap<Company, Map<string, Representation>>();
function publicBody(company: Company, key: string, make: () => unknown): Representation | null {
  // A company read past the cache (its invalidations not arriving) is not frozen: not kept, and not compressed hard.
  if (!Object.isFrozen(company)) {
    const value = make();
    return value == null ? null : { body: Buffer.from(JSON.stringify(value)), etag: '' };
  }
  let bodies = publicBodies.get(company);
  if (!bodies) publicBodies.set(company, (bodies = new Map()));
  const kept = bodies.get(key);
  if (kept) return kept;
  const value = make();
  if (value == null) return null;
  const rep = representation(JSON.stringify(value));
  bodies.set(key, rep);
  return rep;
}

export function registerPublicRoutes(app: FastifyInstance, ctx: AppContext, uploads: ResumableUploads) {
  // Both answers are computed once per company object (the cache makes one per import)
  // and kept with their ETag and compressed forms: a request costs a map read.
  const JSON_TYPE = 'application/json; charset=utf-8';
  app.get('/api/public/case/company-info', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    return sendRepresentation(req, reply, publicBody(company, 'info', () => companyInfoResponse(company))!, JSON_TYPE);
  });

  app.get<{ Params: { languageCode: string }; Querystring: { orDefault?: string } }>('/api/public/site-look-and-feel/language/:languageCode', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    const orDefault = req.query.orDefault === 'true';
    const { languageCode } = req.params;
    // Kept under the language answered, so `?orDefault=true` with made-up codes keeps one answer, not one per code.
    const code = orDefault && !(company.settings.languages as readonly string[]).includes(languageCode) ? company.settings.defaultLanguage : languageCode;
    const rep = publicBody(company, `look-and-feel ${code}`, () => lookAndFeelResponse(company.settings, code, company.settings.logoFileName));
    if (!rep) throw new HttpError(404, 'UNKNOWN_LANGUAGE', `This company does not offer the language "${languageCode.slice(0, 20)}".`, 'languageCode');
    return sendRepresentation(req, reply, rep, JSON_TYPE);
  });

  app.get<{ Params: { logoFileName: string } }>('/api/public/site-look-and-feel/logo/:logoFileName', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    return sendAsset(ctx, reply, company, 'logo', req.params.logoFileName);
  });

  app.get<{ Params: { poUuid: string } }>('/api/public/case/protection-officer/:poUuid/logo', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    return sendAsset(ctx, reply, company, 'officer-logo', req.params.poUuid.toLowerCase());
  });

  app.post('/api/public/case/new/by-form', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    // With resumable uploads the case takes the id and data key its session fixed
    // (its uploads are sealed under them); without, a fresh pair.
    const session = req.headers[UPLOAD_SESSION_HEADER] === undefined ? null : await uploads.session(req.headers[UPLOAD_SESSION_HEADER]);
    // A reporter's session for a message of an existing case never makes a new case.
    if (session) assertSessionFor(session, null);
    // Made at another company's portal: no case here, not even with its uploads' key.
    if (session) assertSessionCompany(session, company.id);
    if (session?.usedAt) throw new HttpError(409, 'UPLOAD_SESSION_USED', 'This upload session already made its case.');
    // Its uploads are ciphertext under a key the server never had: they join only a case sealed in the browser.
    if (session?.sealed) throw new HttpError(409, 'UPLOAD_SESSION_SEALED', 'This upload session is for a sealed case: send its uploads with POST /api/public/case/new/sealed.', UPLOAD_SESSION_HEADER);
    const caseId = session?.caseId ?? randomUUID();
    // Without a session the data key is made here and wrapped only once the case is known
    // not to be sealed on arrival: the files stream in encrypted under it either way.
    const key = session ? session.key! : randomBytes(32);
    // A refused submission leaves no key behind (the session's key belongs to the session).
    return withKeyDroppedOnFailure(ctx, session ? null : caseId, async () => {
    const budget = uploads.quotas.budget(req, { caseId, sessionId: session?.id ?? null });
    const upload = await receiveUpload(ctx, req, { jsonField: 'caseDto', caseId, key, budget });
    try {
      const dto = parseJsonPartAs(caseDtoSchema, upload.json, 'caseDto');
      // A company that takes sealed cases: sealed here, at once (docs/decisions/sealed-migration.md "Sealed on arrival; migration"),
      // when the server holds all it seals (see sealableOnArrival); otherwise server-keyed as before, for the key-wraps job.
      const onArrival = sealableOnArrival(dto.caseAccount, session) ? await sealingKeys(ctx, company.id, dto.protectionOfficer.id) : null;
      const wrapped = session ? session.wrappedKey : onArrival ? null : await ctx.caseKeys.wrap(caseId, key);
      if (dto.uploads.length && !session) throw new HttpError(400, 'UPLOAD_SESSION_REQUIRED', 'Uploads are taken only with their upload session in X-Upload-Session.', 'uploads');
      if (upload.files.length + dto.uploads.length > LIMITS.maxFiles) throw new HttpError(400, 'TOO_MANY_FILES', `At most ${LIMITS.maxFiles} files may be sent.`, 'uploads');
      if (new Set(dto.uploads).size !== dto.uploads.length) throw new HttpError(400, 'DUPLICATE_UPLOAD', 'Name each upload once.', 'uploads');
      if (!session) assertVoiceMessage(company, dto.voiceMessage, upload.files);
      const created = await createCase(ctx, {
        company,
        caseId,
        key,
        wrappedKey: wrapped,
        ...(onArrival ? { sealOnArrival: onArrival } : {}),
        submissionType: 'ONLINE_FORM',
        creationChannel: 'BY_ONLINE_FORM',
        whistleblowerRelation: dto.whistleblowerRelation,
        protectionOfficerId: dto.protectionOfficer.id,
        subsidiaryId: dto.subsidiary,
        whistleblower: dto.whistleblower,
        follow: dto.caseAccount.follow,
        account: accountInput(req, dto.caseAccount),
        description: dto.description,
        violation: dto.violation,
        repeatedViolations: dto.repeatedViolations,
        reportedPersons: dto.reportedPersons,
        reportedUnit: dto.reportedUnit,
        files: upload.files,
        uploads: session
          ? {
              claim: async (trx) => {
                const claimed = await uploads.claim(trx, session, dto.uploads);
                assertVoiceMessage(company, dto.voiceMessage, [...upload.files, ...claimed]);
                return claimed;
              },
              commit: (files) => uploads.commit(files),
            }
          : undefined,
        language: requestLanguage(req),
      });
      return reply.status(201).send({ caseDto: created });
    } catch (err) {
      await discardStaged(ctx, upload.files);
      throw err;
    }
    });
  });

  // A case sealed in the reporter's browser (server/cases/sealed.ts): the server never
  // has its data key, so it takes only what the browser sealed, checked for shape and
  // for a wrap set that is exactly the keys the verified log entitles to the officer.
  app.post('/api/public/case/new/sealed', { bodyLimit: 5 * 1024 * 1024 }, async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    if (ctx.config.sealedCases !== 'browser') throw new HttpError(409, 'SEALED_CASES_OFF', 'This portal does not take sealed cases (SEALED_CASES is off).');
    refuseSealedMultipart(req);
    if (!req.body || typeof req.body !== 'object') throw new HttpError(400, 'BAD_JSON', 'Send sealedCaseDto as a JSON object.');
    const dto = parseOr400(sealedCaseDtoSchema, req.body, 'sealedCaseDto');
    // A phone or meeting report asks to be called or met: someone must follow it (spec §2), and it carries no files.
    const oralChannel = dto.submissionType !== 'ONLINE_FORM';
    if (oralChannel && !dto.caseAccount.follow) throw new HttpError(400, 'FOLLOW_REQUIRED', 'A phone or meeting report is always followed: send a derived case account.', 'caseAccount.follow');
    if (oralChannel && dto.uploads.length) throw new HttpError(400, 'FILES_UNEXPECTED', 'A phone or meeting report carries no files.', 'uploads');
    const recipients = await sealedRecipients(ctx, company.id, dto.protectionOfficer.id);
    if (!recipients) throw new HttpError(409, 'SEALING_UNAVAILABLE', 'No certified handler key is entitled to this protection officer: send the case on the plain path.', 'protectionOfficer.id');
    const sealed = sealedParts(dto, recipients, dto.notify ? (await ctx.mailKeys.publicKey()).keyId : null);
    // Categories for statistics, sealed to the published statistics key; none while the company has none.
    sealed.categories = await parseCategories(ctx, company.id, dto.categories);
    // Files sealed in the browser arrive first by tus, in a sealed upload session (docs/decisions/sealed-cases.md "Sealed files").
    const session = await uploads.sealedSession(req.headers[UPLOAD_SESSION_HEADER], null, dto.uploads);
    if (session) assertSessionCompany(session, company.id);
    const created = await createCase(ctx, {
      company,
      caseId: dto.caseId,
      key: null,
      wrappedKey: null,
      sealed,
      submissionType: dto.submissionType,
      creationChannel: oralChannel ? 'BY_PHONE' : 'BY_ONLINE_FORM',
      // Sealed in details_enc; the server's own copy of the details is never made.
      whistleblowerRelation: '',
      protectionOfficerId: dto.protectionOfficer.id,
      subsidiaryId: dto.subsidiary,
      follow: dto.caseAccount.follow,
      account: accountInput(req, dto.caseAccount.follow ? dto.caseAccount : { follow: false, password: '' }),
      uploads: session ? { claim: (trx) => uploads.claim(trx, session, dto.uploads), commit: (files) => uploads.commit(files) } : undefined,
      language: requestLanguage(req),
    });
    return reply.status(201).send({ caseDto: created });
  });

  // A case number and salt before the case is sealed (issue 37; server/cases/reservations.ts).
  // A POST under /api/public/: the submission budget and a proof-of-work guard it.
  app.post('/api/public/case/reservation', async (req, reply) => {
    const company = await requireCompany(ctx.db, req);
    return reply.status(201).header('cache-control', 'no-store').send(await reserveCase(ctx.db, company.id));
  });

  const oral = (type: SubmissionType, what: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const company = await requireCompany(ctx.db, req);
    if (!req.body || typeof req.body !== 'object') throw new HttpError(400, 'BAD_JSON', `Send ${what} as a JSON object.`);
    const dto: OralSubmissionDto = parseOr400(submissionByPhoneDtoSchema, req.body, what);
    const caseId = randomUUID();
    // A company that takes sealed cases: sealed here, at once, when it can be (sealableOnArrival); no server wrapping or shred key is made.
    const onArrival = sealableOnArrival(dto.caseAccount, null) ? await sealingKeys(ctx, company.id, dto.protectionOfficer.id) : null;
    const { key, wrapped } = onArrival ? { key: randomBytes(32), wrapped: null } : await ctx.caseKeys.create(caseId);
    const created = await withKeyDroppedOnFailure(ctx, onArrival ? null : caseId, () => createCase(ctx, {
      company,
      caseId,
      key,
      wrappedKey: wrapped,
      ...(onArrival ? { sealOnArrival: onArrival } : {}),
      submissionType: type,
      creationChannel: 'BY_PHONE',
      whistleblowerRelation: dto.whistleblowerRelation,
      protectionOfficerId: dto.protectionOfficer.id,
      subsidiaryId: dto.subsidiary,
      whistleblower: dto.whistleblower,
      follow: true,
      account: accountInput(req, dto.caseAccount),
      language: requestLanguage(req),
    }));
    return reply.status(201).send({ caseDto: created });
  };
  app.post('/api/public/case/new/by-phone', oral('PHONE', 'submissionByPhoneDto'));
  app.post('/api/public/case/new/by-meeting', oral('MEETING', 'submissionByMeetingDto'));
}

/**
 * Whether a plain creation call can be sealed on arrival: not when its files came in an
 * upload session (their key sits under the master key in the session's row) nor when
 * the client derived the reporter's verifier itself (a reservation: the server never
 * had the reporter key to wrap to). Such a case is made server-keyed, as before sealing,
 * and reaches the same keys through the key-wraps job, the reporter's wrap at its next
 * sign-in (docs/decisions/sealed-migration.md "Sealed on arrival; migration"). Only
 * scripted clients come this way: the portal's own form seals every report it sends to
 * a company whose key log it verified (files, a notification address, phone and
 * meeting reports included) and sends it to the sealed route, and a company whose log
 * the form does not verify gets nothing (docs/decisions/sealed-reporter-pages.md "Reporter pages").
 */
function sealableOnArrival(account: CaseAccount | OralSubmissionDto['caseAccount'], session: unknown): boolean {
  return !session && !(account.follow && 'reservation' in account);
}

/**
 * The follow account as the case service takes it: a derived verifier with its
 * reservation, or the plain password. A request that skipped the budget and the proof
 * on a reservation (server/security/abuse.ts) must use exactly that one.
 */
function accountInput(req: FastifyRequest, account: CaseAccount | OralSubmissionDto['caseAccount']): AccountInput | null {
  const paid = (req as FastifyRequest & { reservationPaid?: string | null }).reservationPaid;
  if (paid && !(account.follow && 'reservation' in account && account.reservation === paid)) {
    throw new HttpError(400, 'RESERVATION_MISMATCH', 'X-Case-Reservation names another reservation than caseAccount.reservation.', 'caseAccount.reservation');
  }
  if (!account.follow) return null;
  if ('reservation' in account) return { reservation: account.reservation, verifier: account.verifier, kdf: account.kdf };
  return { password: account.password };
}

/**
 * A report that says it carries a voice message instead of a text (issue 40) must
 * carry an audio file, at a company that takes voice messages.
 */
function assertVoiceMessage(company: { settings: CompanyFile }, voiceMessage: boolean, files: readonly { mimeType: string }[]): void {
  if (!voiceMessage) return;
  if (!voiceSettings(company.settings).enabled) throw new HttpError(400, 'VOICE_MESSAGES_OFF', 'This portal does not take voice messages.', 'voiceMessage');
  if (!files.some((f) => isAudioType(f.mimeType))) throw new HttpError(400, 'VOICE_MESSAGE_MISSING', 'voiceMessage is true but no audio file was sent; send the recording or a description.', 'voiceMessage');
}

/** Runs the creation of case `caseId`; when it fails, the key made for it is removed (null: the key is not this call's to remove). */
async function withKeyDroppedOnFailure<T>(ctx: AppContext, caseId: string | null, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (caseId) await ctx.caseKeys.destroy(caseId);
    throw err;
  }
}
