/**
 * Verifies the reporter's bearer token on every private call, with jose against
 * the provider's published keys (the same keys its JWKS endpoint serves):
 *
 * - missing, malformed, expired, wrongly signed or foreign-issuer tokens → 401;
 * - the issuer must be one this portal answers as (a company host's realm URL), the
 *   audience that issuer's private API, the type `at+jwt` (an ID token is refused);
 * - the case and its follow account must still exist;
 * - a valid token used with another company's host (`X-Company-Host`, else
 *   `Host`) → 403.
 *
 * The case is always the token's own: routes never take a case id from the client.
 */
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import { companyByHost } from '../companies/service.ts';
import { isUuid, resourceFor } from './provider.ts';
import type { IdentityService } from './index.ts';

export interface Reporter {
  caseId: string;
  caseNumber: string;
  companyId: string;
}

const unauthorized = (message = 'Sign in again: the access token is missing, expired or not valid here.') =>
  new HttpError(401, 'UNAUTHORIZED', message);

export class TokenVerifier {
  constructor(private readonly identity: IdentityService) {}

  private async verifyJwt(token: string, iss: string): Promise<JWTPayload> {
    const opts = {
      issuer: iss,
      audience: resourceFor(new URL(iss).origin),
      algorithms: ['RS256'],
      typ: 'at+jwt',
    };
    try {
      return (await jwtVerify(token, createLocalJWKSet(this.identity.currentKeys.publicJwks as never), opts)).payload;
    } catch (err) {
      // Another process may have rotated the keys: look once more, then give up.
      if (err instanceof joseErrors.JWKSNoMatchingKey && (await this.identity.reloadKeys())) {
        return (await jwtVerify(token, createLocalJWKSet(this.identity.currentKeys.publicJwks as never), opts)).payload;
      }
      throw err;
    }
  }

  async verify(req: FastifyRequest): Promise<Reporter> {
    const header = req.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header.trim()) : null;
    if (!m) throw unauthorized('A bearer access token is required.');
    const token = m[1]!;
    let iss: string | undefined;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      throw unauthorized();
    }
    if (!iss || !(await this.identity.isOwnIssuer(iss))) throw unauthorized();
    let payload: JWTPayload;
    try {
      payload = await this.verifyJwt(token, iss);
    } catch {
      throw unauthorized();
    }
    const sub = payload.sub;
    const caseNumber = payload.case_number;
    const companyId = payload.company;
    if (typeof sub !== 'string' || !isUuid(sub) || typeof caseNumber !== 'string' || typeof companyId !== 'string') throw unauthorized();

    const row = await this.identity.ctx.db
      .selectFrom('report_case')
      .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
      .select(['report_case.case_number', 'report_case.company_id'])
      .where('report_case.id', '=', sub)
      .executeTakeFirst();
    if (!row || row.case_number !== caseNumber || row.company_id !== companyId) throw unauthorized();

    // The company the page names must be the token's own.
    const named = req.headers['x-company-host'];
    const namedHost = (Array.isArray(named) ? named[0] : named)?.trim();
    if (namedHost) {
      const company = await companyByHost(this.identity.ctx.db, namedHost);
      if (!company || company.id !== companyId) throw new HttpError(403, 'FORBIDDEN', 'This case belongs to another company.');
    } else {
      const company = await companyByHost(this.identity.ctx.db, req.host ?? '');
      if (company && company.id !== companyId) throw new HttpError(403, 'FORBIDDEN', 'This case belongs to another company.');
    }
    return { caseId: sub, caseNumber, companyId };
  }
}
