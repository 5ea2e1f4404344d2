/**
 * A case sealed as the reporter's browser seals it (docs/decisions/blind-server.md
 * "Sealed cases"), with core/crypto/case.ts: the keys from the verified key log, a fresh
 * data key, the fields sealed, the key wrapped. The body is what
 * `POST /api/public/case/new/sealed` takes.
 *
 * Also the key setup a sealed case needs, done as the browsers and the admin API do it:
 * the company's recovery key (the anchor), a handler key certified in the key log, a
 * followed case's reporter key from a reservation. The server suites and the browser
 * suites (test/helpers/sealed-e2e.ts) share these, so every suite builds the same log.
 */
import { expect } from 'vitest';
import {
  deriveReporterKeys, hashKeyLogEntry, keyId, makeHandlerKeys, recipientsFor, sealNewCase, signKeyLogEntry, toBase64, PBKDF2_DEFAULT, SEALED_COLUMNS,
  type HandlerKeys, type KeyLogEntry, type PublishedKeyLog,
} from '../../core/crypto/index.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { call } from '../server/api.ts';
import type { TestServer } from './server.ts';

export const DETAILS_COLUMN = SEALED_COLUMNS.details;
export type PublicKeyLog = PublishedKeyLog;

/** `submissionType`: a phone or meeting case through the same sealed route (its record is sealed too, docs/decisions/record-versions.md). */
export async function sealCase(log: PublicKeyLog, input: { officerId: string; details: unknown; whistleblower?: unknown; account?: { caseAccount: unknown; reporterKey: CryptoKey }; submissionType?: 'ONLINE_FORM' | 'PHONE' | 'MEETING' }) {
  const recipients = await recipientsFor(log, input.officerId);
  // An officer with no certified key: sealed to the recovery key alone, so the server's refusal can be tested.
  const usable = recipients.ok ? recipients : recipients.reason === 'no-keys' ? await recoveryOnly(log) : null;
  if (!usable) throw new Error(`key log: ${(recipients as { reason: string }).reason}`);
  const sealed = await sealNewCase(usable, { details: input.details, whistleblower: input.whistleblower, reporterKey: input.account?.reporterKey });
  return {
    caseId: sealed.caseId,
    dataKey: sealed.dataKey,
    body: {
      caseId: sealed.caseId,
      protectionOfficer: { id: input.officerId },
      caseAccount: input.account?.caseAccount ?? { follow: false },
      envelopes: sealed.envelopes,
      wraps: sealed.wraps,
      ...(input.submissionType ? { submissionType: input.submissionType } : {}),
    },
  };
}

async function recoveryOnly(log: PublicKeyLog) {
  const { fromBase64, keyId } = await import('../../core/crypto/index.ts');
  const spki = fromBase64(log.anchor!.ecdhSpki);
  return { ok: true as const, handlers: [], recovery: { spki, keyId: await keyId(spki) }, head: null };
}

/** The key log the company of `host` publishes (what the reporter's browser verifies). */
export async function publicKeyLog(server: TestServer, host: string): Promise<PublicKeyLog> {
  return (await call(server, 'GET', '/api/public/key-log', { host })).data as PublicKeyLog;
}

/** The company's recovery key, made here and set as its key anchor through the admin API. */
export async function setKeyAnchor(server: TestServer, companyId: string): Promise<HandlerKeys> {
  const recovery = await makeHandlerKeys();
  const res = await call(server, 'PUT', `/api/admin/companies/${companyId}/key-anchor`, {
    headers: { authorization: `Bearer ${server.ctx.adminToken}` },
    json: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) },
  });
  expect(res.status).toBe(201);
  return recovery;
}

/** `certifier` signs the next entry of the key log for `subject`'s keys (handler `handlerId` of `officerIds`); the handler posts it with `token`. */
export async function certifyKey(server: TestServer, host: string, c: { certifier: HandlerKeys; subject: HandlerKeys; handlerId: string; officerIds: string[]; token: string }): Promise<void> {
  const { entries } = (await publicKeyLog(server, host)) as unknown as { entries: KeyLogEntry[] };
  const prev = entries.at(-1);
  const entry = await signKeyLogEntry(c.certifier.ecdsa.privateKey, {
    seq: entries.length + 1, handlerId: c.handlerId, ecdhSpki: toBase64(c.subject.ecdhSpki), ecdsaSpki: toBase64(c.subject.ecdsaSpki), officerIds: c.officerIds,
    addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(c.certifier.ecdsaSpki),
  });
  expect((await call(server, 'POST', '/api/handler/key-log', { token: c.token, json: entry })).status).toBe(201);
}

/** The public halves enrolment stores (server/handlers/keys.ts): the handler's sealed read names her wrap by them. */
export async function storePublicHalves(server: TestServer, handlerId: string, keys: HandlerKeys): Promise<void> {
  await server.ctx.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(keys.ecdhSpki), ecdsa_spki: Buffer.from(keys.ecdsaSpki) }).where('id', '=', handlerId).execute();
}

/** A handler account (with an API token) whose keys, made here, `certifier` certifies for `officerIds`; the public halves stored as enrolment stores them. */
export async function certifiedHandler(server: TestServer, host: string, h: { companyId: string; name: string; officerIds: string[]; certifier: HandlerKeys }) {
  const account = await createHandlerAccount(server.ctx.db, h.companyId, h.name, { officers: h.officerIds });
  const keys = await makeHandlerKeys();
  await certifyKey(server, host, { certifier: h.certifier, subject: keys, handlerId: account.id, officerIds: h.officerIds, token: account.token });
  await storePublicHalves(server, account.id, keys);
  return { account, keys };
}

/** A reservation and the reporter keys `password` gives for it: the `caseAccount` a followed sealed case is sent with. */
export async function followedAccount(server: TestServer, host: string, password: string) {
  const r = await call(server, 'POST', '/api/public/case/reservation', { host });
  expect(r.status, JSON.stringify(r.data)).toBe(201);
  const keys = await deriveReporterKeys({ caseNumber: r.data.caseNumber, password, salt: Buffer.from(r.data.salt, 'base64url'), kdf: PBKDF2_DEFAULT });
  return {
    caseNumber: r.data.caseNumber as string,
    reservation: r.data.reservation as string,
    reporterKey: keys.reporterKey,
    caseAccount: { follow: true, reservation: r.data.reservation as string, verifier: Buffer.from(keys.verifier).toString('base64url'), kdf: PBKDF2_DEFAULT },
  };
}

/**
 * A followed case sealed to the key log of `host` and sent to the sealed route; the
 * reservation goes in its header too where `reservationHeader` (as the report form sends it).
 */
export async function sendFollowedSealedCase(
  server: TestServer,
  host: string,
  c: { password: string; officerId: string; details: unknown; whistleblower?: unknown; submissionType?: 'ONLINE_FORM' | 'PHONE' | 'MEETING'; reservationHeader?: boolean },
) {
  const account = await followedAccount(server, host, c.password);
  const sealed = await sealCase(await publicKeyLog(server, host), { officerId: c.officerId, details: c.details, whistleblower: c.whistleblower, submissionType: c.submissionType, account });
  const created = await call(server, 'POST', '/api/public/case/new/sealed', { host, json: sealed.body, headers: c.reservationHeader ? { 'x-case-reservation': account.reservation } : {} });
  expect(created.status, JSON.stringify(created.data)).toBe(201);
  return { ...sealed, caseNumber: created.data.caseDto.caseNumber as string, reporterKey: account.reporterKey, account };
}
