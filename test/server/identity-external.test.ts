/**
 * Pointing the portal at another OpenID provider (docs/identity.md): with
 * OIDC_ISSUER set, config.json names that issuer and the private API accepts its
 * access tokens, checked against the keys its discovery document names. The other
 * provider here is a minimal stand-in serving discovery and a JWKS (it is not our
 * code); the portal is the real server. Also: the operator's key rotation route.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { call, expectError } from './api.ts';
import { newCase } from './identity-flow.ts';
import { companyByHost } from '../../server/companies/service.ts';
import { runtimeConfig } from '../../server/spa.ts';
import type { FastifyRequest } from 'fastify';

let server: TestServer;
let idp: http.Server;
let issuer: string;
let sign: (claims: Record<string, unknown>, opts?: { typ?: string; iss?: string }) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'kc-1', alg: 'RS256', use: 'sig' };
  idp = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/realms/whistleblower/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }));
    } else if (req.url === '/realms/whistleblower/protocol/openid-connect/certs') {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/realms/whistleblower`;
  sign = (claims, opts = {}) =>
    new SignJWT({ typ: 'Bearer', azp: 'whistleblower-app', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'kc-1', typ: opts.typ ?? 'JWT' })
      .setIssuer(opts.iss ?? issuer)
      .setSubject('keycloak-user-id')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  server = await startTestServer({ identity: { externalIssuer: issuer } });
});
afterAll(async () => {
  await server?.cleanup();
  await new Promise((r) => idp?.close(r));
});

describe('another OpenID provider', () => {
  it('is published to the SPA in config.json', async () => {
    const res = await call(server, 'GET', '/config/config.json');
    expect(res.status).toBe(200);
    expect(res.data.idSettings).toEqual({ authority: issuer, realm: 'whistleblower', clientId: 'whistleblower-app' });
    // The copy the pages carry inlined (server/spa.ts bootData) names it too: the SPA signs in there, not at the embedded provider.
    const inlined = runtimeConfig(server.ctx, { protocol: 'http', host: 'localhost' } as FastifyRequest);
    expect(inlined.idSettings.authority).toBe(issuer);
  });

  it('signs reporters in to the private API with its access tokens', async () => {
    const caseNumber = await newCase(server);
    const company = (await companyByHost(server.ctx.db, 'localhost'))!.id;
    const token = await sign({ case_number: caseNumber, company });
    const res = await call(server, 'GET', '/api/private/case/my-case', { token, host: 'localhost' });
    expect(res.status).toBe(200);
    expect(res.data.caseNumber).toBe(caseNumber);

    expectError(await call(server, 'GET', '/api/private/case/my-case', { token, host: 'group.localhost' }), 403, 'FORBIDDEN');
    // Refused: another client's token, an ID token, a case of another company, an unknown case, a forged issuer.
    for (const bad of [
      await sign({ case_number: caseNumber, company, azp: 'other-app' }),
      await sign({ case_number: caseNumber, company, typ: 'ID' }),
      await sign({ case_number: caseNumber, company: 'someone-else' }),
      await sign({ case_number: '0000000000000000', company }),
      await sign({ case_number: caseNumber, company }, { iss: 'http://127.0.0.1:1/realms/whistleblower' }),
    ]) {
      expectError(await call(server, 'GET', '/api/private/case/my-case', { token: bad, host: 'localhost' }), 401, 'UNAUTHORIZED');
    }
  });
});

describe('operator key rotation route', () => {
  it('needs the admin token, then rotates', async () => {
    expectError(await call(server, 'POST', '/api/admin/identity/rotate-signing-key'), 401, 'UNAUTHORIZED');
    expectError(await call(server, 'POST', '/api/admin/identity/rotate-signing-key', { token: 'nope' }), 401, 'UNAUTHORIZED');
    const before = await server.ctx.db.selectFrom('idp_key').select('kid').where('kind', '=', 'signing').where('retired_at', 'is', null).execute();
    const res = await call(server, 'POST', '/api/admin/identity/rotate-signing-key', { token: server.ctx.adminToken });
    expect(res.status).toBe(201);
    const after = await server.ctx.db.selectFrom('idp_key').select(['kid', 'retired_at']).where('kind', '=', 'signing').execute();
    expect(after.filter((k) => !k.retired_at).map((k) => k.kid)).toEqual([res.data.kid]);
    expect(after.map((k) => k.kid)).toEqual(expect.arrayContaining(before.map((k) => k.kid)));
  });
});
