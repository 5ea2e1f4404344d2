/**
 * A report that came by letter, e-mail or in person, entered by a handler (issue 38
 * Build 8; docs/decisions/handler-entered-reports.md).
 *
 * - `GET  /api/handler/case-entry`: the officers this handler may enter for, and the subsidiaries.
 * - `POST /api/handler/case-entry/reservation`: a case number and salt, as the form's
 *   reservation, so the handler's browser derives the reporter's keys before it seals.
 * - `POST /api/handler/case-entry/sealed`: a company that takes sealed cases: envelopes
 *   and wraps the handler's browser made, checked as the form's sealed route checks them.
 * - `POST /api/handler/case-entry`: a server-keyed company: the content in clear and the
 *   generated password, sealed here as on the spec's plain routes.
 *
 * Invariants: the caller is a handler of the company (the one authorisation entry point,
 * `who`) entitled to the officer named (`assertMayEnterFor`, the rule of `visibleCases`);
 * a company that seals is never sent plaintext (the plain route refuses it, 409
 * SEALING_REQUIRED); the clocks start at the received day, never in the future nor more
 * than ENTRY_RECEIVED_MAX_DAYS back; each entry writes CASE_ENTERED with its channel.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enteredCaseDtoSchema, receivedInstant, sealedEnteredCaseDtoSchema, type EntryChannel, type SealedCaseDto } from '../../machines/schema.ts';
import type { AppContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { companyById, type Company } from '../companies/service.ts';
import { createCase } from '../cases/service.ts';
import { reserveCase } from '../cases/reservations.ts';
import { refuseSealedMultipart, sealedParts, sealedRecipients, sealingKeys } from '../cases/sealed.ts';
import { appendAudit, assertMayEnterFor, type HandlerIdentity } from '../handlers/cases.ts';
import { parseOr400 } from './parse.ts';

export function registerCaseEntryRoutes(app: FastifyInstance, ctx: AppContext, who: (req: FastifyRequest) => Promise<HandlerIdentity>) {
  const companyOf = async (h: HandlerIdentity): Promise<Company> => {
    const company = await companyById(ctx.db, h.company_id);
    if (!company) throw new HttpError(404, 'UNKNOWN_COMPANY', 'No such company.');
    return company;
  };
  const body = (req: FastifyRequest, what: string) => {
    if (!req.body || typeof req.body !== 'object') throw new HttpError(400, 'BAD_JSON', `Send ${what} as a JSON object.`);
    return req.body;
  };
  const audit = (h: HandlerIdentity, row: { id: string; wrapped_key: Uint8Array | null; sealed: boolean }, detail: { channel: EntryChannel; receivedOn: string; follow: boolean }) =>
    appendAudit(ctx, h, row, 'CASE_ENTERED', detail);

  app.get('/api/handler/case-entry', async (req, reply) => {
    const h = await who(req);
    const company = await companyOf(h);
    const tied = new Set((await ctx.db.selectFrom('handler_officer').select('officer_id').where('handler_id', '=', h.id).execute()).map((t) => t.officer_id));
    const officers = company.settings.protectionOfficers.filter((o) => !tied.size || tied.has(o.id)).map((o) => ({ id: o.id, name: o.name }));
    const subsidiaries = company.settings.subsidiaries.map((s) => ({ id: s.id, name: s.name }));
    return reply.header('cache-control', 'no-store').send({ officers, subsidiaries });
  });

  // A number and salt first: the handler's browser derives the reporter key and verifier from them and the password it generates.
  app.post('/api/handler/case-entry/reservation', async (req, reply) => {
    const h = await who(req);
    const company = await companyOf(h);
    return reply.status(201).header('cache-control', 'no-store').send(await reserveCase(ctx.db, company.id));
  });

  app.post('/api/handler/case-entry/sealed', { bodyLimit: 5 * 1024 * 1024 }, async (req, reply) => {
    const h = await who(req);
    if (ctx.config.sealedCases !== 'browser') throw new HttpError(409, 'SEALED_CASES_OFF', 'This portal does not take sealed cases (SEALED_CASES is off).');
    refuseSealedMultipart(req);
    const dto = parseOr400(sealedEnteredCaseDtoSchema, body(req, 'sealedEnteredCaseDto'), 'sealedEnteredCaseDto');
    const company = await companyOf(h);
    await assertMayEnterFor(ctx, h, company, dto.protectionOfficer.id);
    const recipients = await sealedRecipients(ctx, company.id, dto.protectionOfficer.id);
    if (!recipients) throw new HttpError(409, 'SEALING_UNAVAILABLE', 'No certified handler key is entitled to this protection officer: enter the report on the plain path.', 'protectionOfficer.id');
    // The same checks as the form's sealed route: exactly the entitled wraps, the reporter's when followed, envelopes of the right shape.
    const sealed = sealedParts({ ...dto, submissionType: 'ONLINE_FORM', uploads: [], notify: null, categories: null } satisfies SealedCaseDto, recipients, null);
    const created = await createCase(ctx, {
      company,
      caseId: dto.caseId,
      key: null,
      wrappedKey: null,
      sealed,
      submissionType: 'ONLINE_FORM',
      creationChannel: 'BY_ONLINE_FORM',
      whistleblowerRelation: '',
      protectionOfficerId: dto.protectionOfficer.id,
      subsidiaryId: dto.subsidiary,
      follow: dto.caseAccount.follow,
      account: dto.caseAccount.follow ? { reservation: dto.caseAccount.reservation, verifier: dto.caseAccount.verifier, kdf: dto.caseAccount.kdf } : null,
      language: null,
      entered: { channel: dto.channel, receivedAt: receivedInstant(dto.receivedOn) },
    });
    await audit(h, { id: dto.caseId, wrapped_key: null, sealed: true }, { channel: dto.channel, receivedOn: dto.receivedOn, follow: dto.caseAccount.follow });
    return reply.status(201).header('cache-control', 'no-store').send({ caseDto: { ...created, entryChannel: dto.channel } });
  });

  app.post('/api/handler/case-entry', async (req, reply) => {
    const h = await who(req);
    const dto = parseOr400(enteredCaseDtoSchema, body(req, 'enteredCaseDto'), 'enteredCaseDto');
    const company = await companyOf(h);
    await assertMayEnterFor(ctx, h, company, dto.protectionOfficer.id);
    // A company whose handlers' browsers seal: the report's words must not reach the server in clear.
    if (await sealingKeys(ctx, company.id, dto.protectionOfficer.id)) {
      throw new HttpError(409, 'SEALING_REQUIRED', 'This company takes sealed cases: seal the report in the browser and send it to /api/handler/case-entry/sealed.', 'protectionOfficer.id');
    }
    const caseId = randomUUID();
    const { key, wrapped } = await ctx.caseKeys.create(caseId);
    let created;
    try {
      created = await createCase(ctx, {
        company,
        caseId,
        key,
        wrappedKey: wrapped,
        submissionType: 'ONLINE_FORM',
        creationChannel: 'BY_ONLINE_FORM',
        whistleblowerRelation: dto.whistleblowerRelation,
        protectionOfficerId: dto.protectionOfficer.id,
        subsidiaryId: dto.subsidiary,
        whistleblower: dto.whistleblower ? { ...dto.whistleblower, email: dto.whistleblower.email ?? '', notification: false } : null,
        follow: dto.caseAccount.follow,
        account: dto.caseAccount.follow ? { password: dto.caseAccount.password } : null,
        description: dto.description,
        violation: dto.violation,
        repeatedViolations: dto.repeatedViolations,
        reportedPersons: dto.reportedPersons,
        reportedUnit: dto.reportedUnit,
        language: null,
        entered: { channel: dto.channel, receivedAt: receivedInstant(dto.receivedOn) },
      });
    } catch (err) {
      await ctx.caseKeys.destroy(caseId);
      throw err;
    }
    await audit(h, { id: caseId, wrapped_key: wrapped, sealed: false }, { channel: dto.channel, receivedOn: dto.receivedOn, follow: dto.caseAccount.follow });
    return reply.status(201).header('cache-control', 'no-store').send({ caseDto: { ...created, entryChannel: dto.channel } });
  });
}
