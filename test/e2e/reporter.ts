/**
 * A reporter's first steps, done the way a client does them, for the private-area
 * suites: file a case through the public API, then sign in through the embedded
 * provider's own page. One copy, so every suite signs in the same way.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { formatCaseNumber } from '../../machines/schema.ts';
import type { Portal } from './harness.ts';
import { solveChallenge } from '../server/api.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';

const HOST = 'localhost';

/** The first protection officer of the `localhost` demo company. */
export async function firstOfficerId(portal: Portal): Promise<string> {
  const res = await fetch(`${portal.server.url}/api/public/case/company-info`, { headers: { 'x-company-host': HOST } });
  const info = (await res.json()) as { protectionOfficers: Array<{ id: string }> };
  return info.protectionOfficers[0]!.id;
}

async function caseNumberOf(res: Response): Promise<string> {
  expect(res.status).toBe(201);
  return ((await res.json()) as { caseDto: { caseNumber: string } }).caseDto.caseNumber;
}

/** A followed online case (anonymous, about a unit); returns its case number. */
export async function createOnlineCase(
  portal: Portal,
  opts: { officerId: string; password: string; description?: string; relation?: string; unit?: string; repeated?: boolean },
): Promise<string> {
  const dto = {
    whistleblowerRelation: opts.relation ?? 'Employee in accounting',
    protectionOfficer: { id: opts.officerId },
    description: opts.description ?? 'Invoices from one supplier are paid twice.',
    violation: 'FRAUD',
    repeatedViolations: opts.repeated ?? true,
    caseAccount: { follow: true, password: opts.password },
    reportedUnit: opts.unit ?? 'Accounts payable',
  };
  const fd = new FormData();
  fd.append('caseDto', new Blob([JSON.stringify(dto)], { type: 'application/json' }));
  return caseNumberOf(
    await fetch(`${portal.server.url}/api/public/case/new/by-form`, { method: 'POST', body: fd, headers: { 'x-company-host': HOST, ...(await solveChallenge(portal.server)) } }),
  );
}

/** A phone case, whose record the handler writes and the reporter may comment on and approve. */
export async function createPhoneCase(portal: Portal, opts: { officerId: string; password: string }): Promise<string> {
  return caseNumberOf(
    await fetch(`${portal.server.url}/api/public/case/new/by-phone`, {
      method: 'POST',
      headers: { 'x-company-host': HOST, 'content-type': 'application/json', ...(await solveChallenge(portal.server)) },
      body: JSON.stringify({ whistleblowerRelation: 'Former employee', protectionOfficer: { id: opts.officerId }, caseAccount: { follow: true, password: opts.password } }),
    }),
  );
}

/** The handler writes the record of a phone or meeting case (only a written record can be approved). */
export async function writeRecord(portal: Portal, caseNumber: string, text: string): Promise<void> {
  const company = await portal.server.ctx.db.selectFrom('company_host').select('company_id').where('host', '=', HOST).executeTakeFirstOrThrow();
  const { token } = await createHandlerAccount(portal.server.ctx.db, company.company_id, 'Record writer');
  const res = await fetch(`${portal.server.url}/api/handler/cases/${caseNumber}/report`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(200);
}

/**
 * From a private URL through the provider's sign-in page and back to that URL (of `host`,
 * `localhost` unless given). `timeout` for the way back: the page of a sealed case derives
 * the reporter key first.
 */
export async function signInThroughProvider(portal: Portal, page: Page, caseNumber: string, password: string, to = '/private/status', opts: { timeout?: number; host?: string } = {}) {
  await page.goto(portal.url(opts.host ?? HOST, to));
  await page.waitForSelector('#caseNumber');
  expect(new URL(page.url()).pathname).toMatch(/^\/idp\/realms\/whistleblower\//);
  await page.fill('#caseNumber', formatCaseNumber(caseNumber));
  await page.fill('#password', password);
  await page.press('#password', 'Enter');
  await page.waitForURL((u) => u.pathname === to, opts.timeout === undefined ? undefined : { timeout: opts.timeout });
}
