/**
 * Verifies the reporter's bearer token on every private call, with jose against
 * the provider's published keys (the same keys its JWKS endpoint serves):
 *
 * - missing, malformed, expired, wrongly signed or foreign-issuer tokens → 401;
 * - the issuer must be one this portal answers as (a company host's realm URL), the
 *   audience that issuer's private API, the type `at+jwt` (an ID token is refused);
 * - the case and its follow account must still exist, and the token must be of the
 *   account's current generation (sign-out and a password change move it on);
 * - a valid token used with another company's host (`X-Company-Host`, else
 *   `Host`) → 403.
 *
 * The case is always the token's own: routes never take a case id from the client.
 *
 * With OIDC_ISSUER set, tokens of that provider are accepted too: verified against
 * the keys its discovery document names, the case found by `case_number` and
 * `company` (docs/identity.md, "Pointing the portal at another OpenID provider").
 */
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import { companyByHost } from '../companies/service.ts';
import { CLIENT_ID, isUuid, resourceFor } from './provider.ts';
import type { IdentityService } from './index.ts';
import { bindCompany } from '../logging.ts';
import { caseCacheOf, type TokenRow } from '../cases/view-cache.ts';

export interface Reporter {
  caseId: string;
  caseNumber: string;
  companyId: string;
}

const unauthorized = (message = 'Sign in again: the access token is missing, expired or not valid here.') =>
  new HttpError(401, 'UNAUTHORIZED', message);

export class TokenVerifier {
  private externalJwks?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  /** The local key set, made once per set of keys: jose caches each imported key inside it. */
  private localJwks?: { version: string; set: ReturnType<typeof createLocalJWKSet> };

  constructor(private readonly identity: IdentityService) {}

  private localKeys() {
    const keys = this.identity.currentKeys;
    if (this.localJwks?.version !== keys.version) this.localJwks = { version: keys.version, set: createLocalJWKSet(keys.publicJwks as never) };
    return this.localJwks.set;
  }

  /** The external provider's keys, from its discovery document's `jwks_uri` (fetched once, then cached by jose). */
  private externalKeys(issuer: string) {
    this.externalJwks ??= (async () => {
      const res = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`discovery of ${issuer} answered ${res.status}`);
      const d = (await res.json()) as { issuer?: string; jwks_uri?: string };
      if (d.issuer !== issuer || !d.jwks_uri) throw new Error(`discovery of ${issuer} does not name it or its keys`);
      return createRemoteJWKSet(new URL(d.jwks_uri), { timeoutDuration: 5000 });
    })().catch((err) => {
      this.externalJwks = undefined;
      throw err;
    });
    return this.externalJwks;
  }

  /** A token of the configured external provider (Keycloak, say): the case comes from `case_number` and `company`. */
  private async verifyExternal(token: string, issuer: string): Promise<{ caseNumber: unknown; companyId: unknown; caseId?: undefined }> {
    const { externalAudience } = this.identity.settings;
    let payload: JWTPayload;
    try {
      const header = decodeProtectedHeader(token);
      if (header.typ && !['JWT', 'at+jwt', 'application/at+jwt'].includes(header.typ)) throw new Error('not an access token');
      payload = (
        await jwtVerify(token, await this.externalKeys(issuer), {
          issuer,
          algorithms: ['RS256', 'PS256', 'ES256'],
          ...(externalAudience ? { audience: externalAudience } : {}),
        })
      ).payload;
    } catch {
      throw unauthorized();
    }
    // Keycloak marks ID tokens `typ: ID`; without a configured audience the token must be for our client.
    if (payload.typ === 'ID') throw unauthorized();
    if (!externalAudience && payload.azp !== CLIENT_ID && payload.client_id !== CLIENT_ID) throw unauthorized();
    return { caseNumber: payload.case_number, companyId: payload.company };
  }

  private async verifyJwt(token: string, iss: string): Promise<JWTPayload> {
    const opts = {
      issuer: iss,
      audience: resourceFor(new URL(iss).origin),
      algorithms: ['RS256'],
      typ: 'at+jwt',
    };
    try {
      return (await jwtVerify(token, this.localKeys(), opts)).payload;
    } catch (err) {
      // Another process may have rotated the keys: look once more, then give up.
      if (err instanceof joseErrors.JWKSNoMatchingKey && (await this.identity.reloadKeys())) {
        return (await jwtVerify(token, this.localKeys(), opts)).payload;
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
    // `generation` is ours alone: an external provider ends its own sessions.
    let claims: { caseId?: unknown; caseNumber: unknown; companyId: unknown; generation?: unknown };
    const external = this.identity.settings.externalIssuer;
    if (iss && external && iss === external) {
      claims = await this.verifyExternal(token, iss);
    } else {
      if (!iss || !(await this.identity.isOwnIssuer(iss))) throw unauthorized();
      let payload: JWTPayload;
      try {
        payload = await this.verifyJwt(token, iss);
      } catch {
        throw unauthorized();
      }
      if (typeof payload.sub !== 'string' || !isUuid(payload.sub)) throw unauthorized();
      claims = { caseId: payload.sub, caseNumber: payload.case_number, companyId: payload.company, generation: payload.gen };
    }
    const sub = await this.currentCase(claims);
    // currentCase has made sure of both.
    const caseNumber = claims.caseNumber as string;
    const companyId = claims.companyId as string;

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
    bindCompany(req, companyId);
    return { caseId: sub, caseNumber, companyId };
  }

  /**
   * Userinfo's check (provider.ts `/me`): an access token of exactly this issuer, which
   * the private API would accept, granted `openid` (OpenID Connect Core §5.3). Its claims
   * are `sub` alone, as in the ID token; undefined for any other token.
   */
  async userinfo(token: string, issuer: string): Promise<{ sub: string } | undefined> {
    let payload: JWTPayload;
    try {
      if (decodeJwt(token).iss !== issuer) return undefined;
      payload = await this.verifyJwt(token, issuer);
    } catch {
      return undefined;
    }
    if (typeof payload.scope !== 'string' || !payload.scope.split(' ').includes('openid')) return undefined;
    if (typeof payload.sub !== 'string' || !isUuid(payload.sub)) return undefined;
    try {
      return { sub: await this.currentCase({ caseId: payload.sub, caseNumber: payload.case_number, companyId: payload.company, generation: payload.gen }) };
    } catch (err) {
      if (err instanceof HttpError) return undefined;
      throw err;
    }
  }

  /** The case a token's claims name, if it still exists and the token is of its account's current generation; else 401. */
  private async currentCase(claims: { caseId?: unknown; caseNumber: unknown; companyId: unknown; generation?: unknown }): Promise<string> {
    const { caseId, caseNumber, companyId } = claims;
    if (typeof caseNumber !== 'string' || !/^\d{16}$/.test(caseNumber) || typeof companyId !== 'string') throw unauthorized();

    const lookUp = async (): Promise<TokenRow | null> => {
      let q = this.identity.ctx.db
        .selectFrom('report_case')
        .innerJoin('case_account', 'case_account.case_id', 'report_case.id')
        .select(['report_case.id', 'report_case.case_number', 'report_case.company_id', 'case_account.token_generation'])
        .where('report_case.case_number', '=', caseNumber)
        .where('report_case.company_id', '=', companyId);
      if (typeof caseId === 'string') q = q.where('report_case.id', '=', caseId);
      return (await q.executeTakeFirst()) ?? null;
    };
    // Our own tokens name the case: its row comes from the process's case cache, which
    // every write to the case or its account (sign-out moves the generation) drops at once.
    const cache = typeof caseId === 'string' ? caseCacheOf(this.identity.ctx.db) : undefined;
    let row = cache ? await cache.token(caseId as string, lookUp) : await lookUp();
    if (row && (row.case_number !== caseNumber || row.company_id !== companyId)) row = null;
    if (!row) throw unauthorized();
    // Signed out (or the password change asked for) since this token was issued.
    if (typeof caseId === 'string' && claims.generation !== row.token_generation) throw unauthorized();
    return row.id;
  }
}
