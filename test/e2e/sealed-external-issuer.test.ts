/**
 * A sealed case signed in through an external OpenID issuer (issue 37; docs/identity.md
 * "Pointing the portal at another OpenID provider"; machines/session.ts
 * `askingPassword`): no sign-in page of ours derived the reporter key, so the private
 * area asks for the case password once, derives the key in the page and opens the case.
 * Real Chromium, the real server with OIDC_ISSUER set and SEALED_CASES=browser. The
 * other provider is a minimal stand-in serving discovery and a JWKS (it is not our
 * code); what its sign-in leaves in the tab (oidc-client-ts's stored user, an access
 * token it signed) is put there before the page loads. A wrong password is refused and
 * asked again; the right one opens the case; a reload opens it without asking; neither
 * the password nor the key is in any request; axe finds nothing on the prompt.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchBrowser, openPage, startPortal, type OpenedPage, type Portal } from './harness.ts';
import { firstOfficerId } from './reporter.ts';
import { sendFollowedSealedCase } from '../helpers/sealed-case.ts';
import { sealingCompany } from '../helpers/sealed-e2e.ts';
import { storedUserKey } from '../../core/earlyRead.ts';
import { REPORTER_KEY_HANDOVER } from '../../machines/config.ts';

const read = (area: string) => JSON.parse(readFileSync(path.resolve(import.meta.dirname, `../../src/i18n/${area}/en.json`), 'utf8')) as Record<string, string>;
const en = { ...read('common'), ...read('private'), ...read('unlock') };
const HOST = 'localhost';
const COMPANY = 'nordlys-energi';
const tag = () => randomBytes(5).toString('hex');
const MARKER = `External-${tag()}-marker`;
const PASSWORD = `Case-${tag()}-pw`;
const WRONG = `Wrong-${tag()}-pw`;

let browser: Browser;
let portal: Portal;
let idp: http.Server;
let issuer: string;
let sign: (claims: Record<string, unknown>) => Promise<string>;
const opened: OpenedPage[] = [];

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'RS256', use: 'sig' };
  idp = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/realms/whistleblower/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }));
    else if (req.url === '/realms/whistleblower/protocol/openid-connect/certs') res.end(JSON.stringify({ keys: [jwk] }));
    else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/realms/whistleblower`;
  sign = (claims) =>
    new SignJWT({ typ: 'Bearer', azp: 'whistleblower-app', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'ext-1', typ: 'JWT' })
      .setIssuer(issuer)
      .setSubject('external-user-id')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  [browser, portal] = await Promise.all([launchBrowser(), startPortal({ sealedCases: 'browser', identity: { externalIssuer: issuer } })]);
  // The recovery key and a certified handler key for the officer, made here as a handler's browser would.
  await sealingCompany(portal, HOST, { name: 'Hanne External', officerId: await firstOfficerId(portal) });
}, 60_000);

afterAll(async () => {
  for (const p of opened) await p.close().catch(() => undefined);
  await browser?.close();
  await portal?.server.cleanup();
  await new Promise((r) => idp?.close(r));
});

/** A followed sealed case, sealed as the report form seals it. */
async function sealedCase(officerId: string) {
  const details = { description: `Stock sold off the books: ${MARKER}`, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: null };
  return (await sendFollowedSealedCase(portal.server, HOST, { password: PASSWORD, officerId, details, reservationHeader: true })).caseNumber;
}

describe('a sealed case signed in through an external issuer', () => {
  it('asks for the case password once, derives the key in the page, opens the case; a wrong password is asked again; nothing secret on the wire', async () => {
    const caseNumber = await sealedCase(await firstOfficerId(portal));
    const token = await sign({ case_number: caseNumber, company: COMPANY });
    // What the other provider's sign-in leaves in this tab: oidc-client-ts's stored user.
    const user = JSON.stringify({ access_token: token, token_type: 'Bearer', scope: 'openid', profile: { sub: 'external-user-id' }, expires_at: Math.floor(Date.now() / 1000) + 600 });
    const o = await openPage(browser, { locale: 'en-GB' });
    opened.push(o);
    const page: Page = o.page;
    page.setDefaultTimeout(60_000);
    const bodies: string[] = [];
    o.context.on('request', (req) => void bodies.push(`${req.url()}\n${JSON.stringify(req.headers())}\n${req.postDataBuffer()?.toString('latin1') ?? ''}`));
    await o.context.addInitScript(({ key, value }) => {
      if (!sessionStorage.getItem(key)) sessionStorage.setItem(key, value);
    }, { key: storedUserKey(issuer, 'whistleblower-app'), value: user });

    await page.goto(portal.url(HOST, '/private/status'));
    await page.getByRole('heading', { level: 1, name: en['unlock.title'] }).waitFor();
    expect(await page.getByRole('navigation', { name: en['private.nav.label'] }).count()).toBe(0);
    expect(await axeViolations(page), 'the case password prompt').toEqual([]);

    const field = page.getByLabel(en['unlock.password']!);
    await page.getByRole('button', { name: en['unlock.submit'] }).click();
    await page.getByText(en['unlock.empty']!).waitFor();
    await field.fill(WRONG);
    await page.getByRole('button', { name: en['unlock.submit'] }).click();
    await page.getByText(en['unlock.refused']!).waitFor();
    expect(await axeViolations(page), 'the prompt after a wrong password').toEqual([]);
    // The wrong password's key is not kept.
    expect(await page.evaluate((k) => sessionStorage.getItem(k), REPORTER_KEY_HANDOVER)).toBeNull();

    await field.fill(PASSWORD);
    await field.press('Enter');
    await page.getByRole('navigation', { name: en['private.nav.label'] }).waitFor();
    await page.getByRole('link', { name: en['private.nav.report'] }).first().click();
    await page.getByText(MARKER, { exact: false }).waitFor();
    const key = await page.evaluate((k) => (JSON.parse(sessionStorage.getItem(k) ?? 'null') as { k?: string } | null)?.k ?? null, REPORTER_KEY_HANDOVER);
    expect(key).toBeTruthy();

    // Once: a reload opens the case with the key this tab holds, without asking.
    await page.reload();
    await page.getByText(MARKER, { exact: false }).waitFor();
    expect(await page.getByRole('heading', { level: 1, name: en['unlock.title'] }).count()).toBe(0);

    const secrets = [PASSWORD, WRONG, encodeURIComponent(PASSWORD), Buffer.from(PASSWORD).toString('base64'), key!, encodeURIComponent(key!)];
    const leaks = bodies.flatMap((b) => secrets.filter((s) => b.includes(s)).map((s) => `${s.slice(0, 8)}… in ${b.split('\n')[0]}`));
    expect(leaks).toEqual([]);
    // What went instead: the salt look-up with the case number only.
    expect(bodies.filter((b) => b.includes('/signin/kdf')).map((b) => JSON.parse(b.split('\n')[2]!))).toEqual([{ caseNumber }, { caseNumber }]);
  }, 240_000);
});
