/**
 * A scripted client of sealed cases (issue 37 Build 5, docs/api.md "A scripted client of
 * sealed cases"; docs/decisions/sealed-migration.md "Scripted clients; the CLI"): what the
 * reporter's browser does, written out for integrators and auditors with core/crypto and
 * fetch only. The server sees the verifier, never the password or the reporter key; the
 * case and its messages leave here sealed.
 *
 * Invariants: one derivation (Argon2id where WebAssembly runs) per case and password per
 * run: the verifier that signs in and the key that opens come out of the same one. Keys
 * are sealed to only what this client verified itself in the key log (`recipientsFor`);
 * the server's word makes no key trustworthy. Nothing here writes a file or logs a
 * secret; the caller decides what to print.
 *
 * `origin` is the company's portal (the company comes from its host name), e.g.
 * `https://report.example.org`.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chooseKdf, deriveReporterKeys, makeDataKey, normaliseCaseNumber, openCaseKey, openCaseParts, recipientsFor, sealMessage, sealNewCase, sealNotifyAddress, SealedFileSource,
  type Kdf, type OpenedCase, type PublishedKeyLog, type SealedCaseAnswer, type SealedCaseView,
} from '../../core/crypto/index.ts';
import { POW_HEADER, proofHeader, solveProof } from '../../core/pow.ts';

const MOUNT = '/idp/realms/whistleblower';
const CLIENT_ID = 'whistleblower-app';

export class SealedClientError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

async function json<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const e = body?.error as { code?: string; message?: string; field?: string } | undefined;
    throw new SealedClientError(`${what}: ${res.status} ${e ? `${e.code}: ${e.message}${e.field ? ` (field ${e.field})` : ''}` : text.slice(0, 200)}`, res.status, e?.code);
  }
  return body as T;
}

/** A solved proof-of-work for one state-changing public call (docs/api.md "Proof of work"). */
export async function proofOfWork(origin: string): Promise<Record<string, string>> {
  const c = await json<{ challenge: string; difficulty: number }>(await fetch(`${origin}/api/public/pow/challenge`), 'challenge');
  const nonce = await solveProof(c.challenge, c.difficulty);
  if (nonce === null) throw new SealedClientError('challenge: no nonce found');
  return { [POW_HEADER]: proofHeader({ challenge: c.challenge, nonce }) };
}

export interface Reservation {
  reservation: string;
  caseNumber: string;
  salt: string;
}

/** A case number and its salt, reserved before sealing (single use, 30 minutes). */
export async function reserve(origin: string): Promise<Reservation> {
  return json(await fetch(`${origin}/api/public/case/reservation`, { method: 'POST', headers: await proofOfWork(origin) }), 'reservation');
}

/** The salt and derivation a case signs in with (an unknown number gets a look-alike). */
export async function kdfOf(origin: string, caseNumber: string): Promise<{ salt: string; kdf: Kdf | { name: 'legacy' } }> {
  return json(await fetch(`${origin}${MOUNT}/signin/kdf`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ caseNumber }) }), 'salt');
}

export interface Derived {
  caseNumber: string;
  kdf: Kdf;
  /** base64url: what the server checks at sign-in. */
  verifier: string;
  /** Never leaves this process: it opens the reporter's wrap of the data key. */
  reporterKey: CryptoKey;
}

/** The one derivation: verifier and reporter key from case number, password, salt and `kdf`. */
export async function derive(caseNumber: string, password: string, salt: string, kdf: Kdf): Promise<Derived> {
  const keys = await deriveReporterKeys({ caseNumber, password, salt: Buffer.from(salt, 'base64url'), kdf });
  return { caseNumber: normaliseCaseNumber(caseNumber), kdf, verifier: Buffer.from(keys.verifier).toString('base64url'), reporterKey: keys.reporterKey };
}

/** For a case made before: asks its salt and `kdf`, derives once. */
export async function deriveForCase(origin: string, caseNumber: string, password: string): Promise<Derived> {
  const digits = normaliseCaseNumber(caseNumber);
  const { salt, kdf } = await kdfOf(origin, digits);
  if (kdf.name === 'legacy') throw new SealedClientError('this case was made before verifiers: sign in once with the password in the portal');
  return derive(digits, password, salt, kdf);
}

export type KeyLog = PublishedKeyLog & { sealedCases?: string; mailKey?: { spki: string; keyId: string } };

export async function keyLog(origin: string): Promise<KeyLog> {
  return json(await fetch(`${origin}/api/public/key-log`), 'key log');
}

export interface NewSealedCase {
  officerId: string;
  /** What the form seals as details: { description, violation, repeatedViolations, whistleblowerRelation, reportedPersons, reportedUnit }. */
  details: Record<string, unknown>;
  whistleblower?: Record<string, unknown> | null;
  subsidiaryId?: string | null;
  /** A followed case's password; without it the case is anonymous and unfollowed (no reporter key). */
  password?: string;
  /** Files, sealed here chunk by chunk under the case's data key and sent by tus as ciphertext (after any metadata removal the caller does). */
  files?: { name: string; type?: string; bytes: Uint8Array }[];
  /** The address for "there is news" mails (a followed case only), sealed here to the key log's mail key, apart from the identity. */
  notifyAddress?: string;
  /** The language those mails are written in. */
  language?: string;
}

/** One PATCH of a sealed upload: one range is sealed in memory at a time. */
const UPLOAD_PIECE = 8 * 1024 * 1024;

/** The files sealed and uploaded in a sealed upload session (docs/api.md "Sealed cases"); the ids in order. */
async function uploadSealedFiles(origin: string, caseId: string, dataKey: Uint8Array, files: NonNullable<NewSealedCase['files']>): Promise<{ session: string; ids: string[] }> {
  const { uploadSession: session } = await json<{ uploadSession: string }>(
    await fetch(`${origin}/api/public/upload-sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...(await proofOfWork(origin)) }, body: JSON.stringify({ sealed: true }) }),
    'sealed upload session',
  );
  const tus = { 'tus-resumable': '1.0.0', 'x-upload-session': session };
  const ids: string[] = [];
  for (const f of files) {
    const source = await SealedFileSource.create(dataKey, caseId, new Blob([f.bytes as BlobPart], { type: f.type ?? '' }), { name: f.name, type: f.type ?? '' });
    const b64 = (x: string) => Buffer.from(x).toString('base64');
    const created = await fetch(`${origin}/api/public/uploads`, { method: 'POST', headers: { ...tus, 'upload-length': String(source.size), 'upload-metadata': `fileId ${b64(source.fileId)},name ${b64(source.name)}` } });
    if (created.status !== 201) await json(created, 'sealed upload');
    for (let at = 0; at < source.size; at += UPLOAD_PIECE) {
      const piece = await source.slice(at, Math.min(source.size, at + UPLOAD_PIECE));
      const res = await fetch(`${origin}/api/public/uploads/${source.fileId}`, { method: 'PATCH', headers: { ...tus, 'upload-offset': String(at), 'content-type': 'application/offset+octet-stream' }, body: piece as BodyInit });
      if (res.status !== 204) await json(res, 'sealed upload');
    }
    ids.push(source.fileId);
  }
  return { session, ids };
}

export interface SentCase {
  caseNumber: string;
  caseId: string;
  /** Kept by the caller to sign in and open without deriving again in the same run. */
  derived: Derived | null;
}

/**
 * Seals a case as the reporter's browser does and sends it: reserve (followed cases),
 * derive once, verify the key log itself, seal to the keys it entitles to the officer
 * and the recovery key (and the reporter key), send.
 */
export async function sendSealedCase(origin: string, input: NewSealedCase): Promise<SentCase> {
  const log = await keyLog(origin);
  if (log.sealedCases !== 'browser') throw new SealedClientError('this portal does not take sealed cases (SEALED_CASES is off): use the plain calls of docs/api.md');
  const recipients = await recipientsFor(log, input.officerId);
  // A key the client cannot verify stops the send; the reason names what failed (a swapped key: `signature`).
  if (!recipients.ok) throw new SealedClientError(`the key log does not verify for this officer: ${recipients.reason}${recipients.seq ? ` at entry ${recipients.seq}` : ''}`, undefined, 'KEY_LOG');
  let derived: Derived | null = null;
  let caseAccount: Record<string, unknown> = { follow: false };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (input.password !== undefined) {
    const r = await reserve(origin);
    derived = await derive(r.caseNumber, input.password, r.salt, await chooseKdf());
    caseAccount = { follow: true, reservation: r.reservation, verifier: derived.verifier, kdf: derived.kdf };
    // The reservation paid the proof and the budget for this one call.
    headers['x-case-reservation'] = r.reservation;
  } else {
    Object.assign(headers, await proofOfWork(origin));
  }
  if (input.notifyAddress && !derived) throw new SealedClientError('a case nobody follows gets no mail: give a password with notifyAddress');
  if (input.notifyAddress && !log.mailKey) throw new SealedClientError('this portal gives no mail key: nothing could open the address');
  // Files first, under the data key and case id the case is then sealed with.
  const caseId = globalThis.crypto.randomUUID();
  const dataKey = makeDataKey();
  try {
    const uploads = input.files?.length ? await uploadSealedFiles(origin, caseId, dataKey, input.files) : null;
    if (uploads) headers['x-upload-session'] = uploads.session;
    const sealed = await sealNewCase(recipients, { caseId, dataKey, details: input.details, whistleblower: input.whistleblower ?? null, reporterKey: derived?.reporterKey ?? null });
    const notify = input.notifyAddress ? await sealNotifyAddress(log.mailKey!, caseId, input.notifyAddress, input.language) : null;
    const body = {
      caseId,
      protectionOfficer: { id: input.officerId },
      subsidiary: input.subsidiaryId ? { id: input.subsidiaryId } : null,
      caseAccount,
      envelopes: sealed.envelopes,
      wraps: sealed.wraps,
      ...(uploads ? { uploads: uploads.ids } : {}),
      ...(notify ? { notify } : {}),
    };
    const res = await json<{ caseDto: { caseNumber: string } }>(await fetch(`${origin}/api/public/case/new/sealed`, { method: 'POST', headers, body: JSON.stringify(body) }), 'new sealed case');
    return { caseNumber: res.caseDto.caseNumber, caseId, derived };
  } finally {
    dataKey.fill(0);
  }
}

/** Cookies of the provider's interaction, kept for one sign-in. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (!value || attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a) || /max-age=0\b/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  expires_in: number;
}

/**
 * Signs in with the verifier through the embedded provider, as its page does: the
 * authorization-code flow with PKCE, the form posting `caseNumber` and `verifier` (and
 * a solved proof when the page asks for one), the code exchanged for tokens.
 */
export async function signIn(origin: string, derived: Pick<Derived, 'caseNumber' | 'verifier'>): Promise<Tokens> {
  const jar = new Jar();
  const get = async (url: string) => {
    const res = await fetch(new URL(url, origin), { redirect: 'manual', headers: jar.header() });
    jar.take(res);
    return res;
  };
  const pkce = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const redirectUri = `${origin}/private/callback`;
  const q = new URLSearchParams({
    client_id: CLIENT_ID, response_type: 'code', scope: 'openid offline_access', redirect_uri: redirectUri, state,
    code_challenge: createHash('sha256').update(pkce).digest('base64url'), code_challenge_method: 'S256',
  });
  const auth = await get(`${MOUNT}/auth?${q}`);
  if (auth.status !== 303 && auth.status !== 302) throw new SealedClientError(`sign-in: the provider answered ${auth.status}`, auth.status);
  const page = await get(auth.headers.get('location')!);
  const html = await page.text();
  const action = /<form(?![^>]*class="quick-exit")[^>]* action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  if (!action) throw new SealedClientError(`sign-in: no sign-in form (${page.status})`, page.status);
  const fields: Record<string, string> = { caseNumber: derived.caseNumber, verifier: derived.verifier };
  const challenge = /data-pow-challenge="([^"]+)"/.exec(html)?.[1];
  if (challenge) fields.pow = `${challenge}:${await solveProof(challenge, Number(/data-pow-difficulty="(\d+)"/.exec(html)![1]))}`;
  let res = await fetch(new URL(action, origin), {
    method: 'POST', redirect: 'manual', body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...jar.header() },
  });
  jar.take(res);
  if (res.status !== 303 && res.status !== 302) throw new SealedClientError('sign-in refused: wrong case number or password, or a new password is asked for (the portal\'s page sets it)', res.status, 'SIGNIN_REFUSED');
  for (let i = 0; i < 6; i++) {
    const loc = new URL(res.headers.get('location')!, origin);
    if (!loc.pathname.startsWith('/idp/')) {
      if (loc.searchParams.get('state') !== state) throw new SealedClientError('sign-in: the answer is for another request');
      const code = loc.searchParams.get('code');
      if (!code) throw new SealedClientError(`sign-in: ${loc.searchParams.get('error') ?? 'no code'}`);
      return json<Tokens>(await fetch(`${origin}${MOUNT}/token`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: pkce, redirect_uri: redirectUri, client_id: CLIENT_ID }).toString(),
      }), 'token');
    }
    res = await get(loc.pathname + loc.search);
    if (res.status !== 303 && res.status !== 302) throw new SealedClientError(`sign-in: the provider answered ${res.status}`, res.status);
  }
  throw new SealedClientError('sign-in: too many redirects');
}

export type SealedView = SealedCaseAnswer;

/** The reporter's own sealed case as the server holds it (envelopes, the reporter wrap, the thread). */
export async function readSealed(origin: string, accessToken: string): Promise<SealedView> {
  return json(await fetch(`${origin}/api/private/case/my-case/sealed`, { headers: { authorization: `Bearer ${accessToken}` } }), 'my case');
}

export interface OpenedView {
  caseNumber: string;
  status: string;
  created: string;
  details: unknown;
  whistleblower: unknown;
  /** `text` null: this message could not be opened (altered, or sealed to another key); the rest still shows. */
  messages: { id: string; time: string; from: 'reporter' | 'handler'; answerWanted: boolean; text: string | null }[];
}

/** Opens the reporter wrap with the reporter key, then each part on its own. */
export async function openSealed(view: SealedView, reporterKey: CryptoKey): Promise<{ dataKey: Uint8Array; opened: OpenedView }> {
  const dataKey = await openCaseKey(view, { reporterKey });
  const parts: OpenedCase<unknown, unknown> = await openCaseParts(dataKey, view);
  const byId = new Map(parts.messages.map((m) => [m.id, m.text]));
  return {
    dataKey,
    opened: {
      caseNumber: view.caseNumber,
      status: view.status,
      created: view.created,
      details: parts.details,
      whistleblower: parts.whistleblower,
      messages: view.messages.map((m) => ({ id: m.id, time: m.time, from: m.createdByUserId === view.caseNumber ? 'reporter' : 'handler', answerWanted: m.answerWanted, text: byId.get(m.id) ?? null })),
    },
  };
}

/** A message sealed under the case's data key with the id its additional data names, sent. */
export async function sendSealedMessage(origin: string, accessToken: string, at: { dataKey: Uint8Array; caseId: string }, text: string): Promise<{ id: string }> {
  const msg = await sealMessage(at.dataKey, at.caseId, text);
  await json(await fetch(`${origin}/api/private/case/messages/sealed`, {
    method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: JSON.stringify(msg),
  }), 'message');
  return { id: msg.id };
}

/** Sign in and open in one go, from a derivation already made. */
export async function openMyCase(origin: string, derived: Derived): Promise<{ tokens: Tokens; view: SealedView; dataKey: Uint8Array; opened: OpenedView }> {
  const tokens = await signIn(origin, derived);
  const view = await readSealed(origin, tokens.access_token);
  const { dataKey, opened } = await openSealed(view, derived.reporterKey);
  return { tokens, view, dataKey, opened };
}

