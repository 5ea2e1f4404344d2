/**
 * The report form's sealing effects (src/forms/seal.ts) against key logs built with
 * core/crypto, as the server publishes them: the plain path when the portal or the
 * company takes no sealed cases; the verified keys (and what the browser remembers:
 * the anchor's keyId and the head, per host); every refusal the form names (a swapped
 * key, another anchor, a missing anchor where one was seen, a shortened log, no key for
 * the officer); and a sealed request that carries only envelopes the entitled handler
 * opens, with the server's WRAP_MISSING told apart.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  deriveReporterKeys, fieldContext, fromBase64, hashKeyLogEntry, keyId, makeHandlerKeys, openFieldText, openSealedBox, signKeyLogEntry, toBase64,
  PBKDF2_DEFAULT, type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';
import { checkKeyLog, sealReport } from '../../src/forms/seal.ts';
import type { ApiClient } from '../../src/api/client.ts';
import type { SealReportInput } from '../../machines/report.ts';

const HOST = 'portal.test';
const api = { url: (p: string) => `http://portal.test${p}` } as unknown as ApiClient;

class MemoryStorage {
  items = new Map<string, string>();
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.items.set(k, v);
  }
}

let recovery: HandlerKeys;
let hanne: HandlerKeys;
let entries: KeyLogEntry[];

beforeAll(async () => {
  [recovery, hanne] = await Promise.all([makeHandlerKeys(), makeHandlerKeys()]);
  entries = [
    await signKeyLogEntry(recovery.ecdsa.privateKey, {
      seq: 1, handlerId: 'h-hanne', ecdhSpki: toBase64(hanne.ecdhSpki), ecdsaSpki: toBase64(hanne.ecdsaSpki), officerIds: ['officer-a'],
      addedAt: '2026-01-01T00:00:00.000Z', action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
    }),
  ];
});
afterEach(() => vi.unstubAllGlobals());

const anchor = () => ({ ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) });

/** The server's key-log answer, and what the browser asked for. */
function serve(body: unknown) {
  const asked: { url: string; headers: Record<string, string> }[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    asked.push({ url, headers: init.headers as Record<string, string> });
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  return asked;
}

describe('checkKeyLog', () => {
  it('the plain path without sealed cases or without an anchor; the verified keys otherwise, remembered per host', async () => {
    const storage = new MemoryStorage() as unknown as Storage;
    serve({ anchor: anchor(), entries });
    expect(await checkKeyLog(api, HOST, 'officer-a', storage)).toEqual({ plain: true });
    serve({ anchor: null, entries: [], sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-a', storage)).toEqual({ plain: true });
    const asked = serve({ anchor: anchor(), entries, sealedCases: 'browser' });
    const ok = await checkKeyLog(api, HOST, 'officer-a', storage);
    expect(asked[0]).toMatchObject({ url: 'http://portal.test/api/public/key-log', headers: { 'x-company-host': HOST } });
    expect(ok && 'recipients' in ok).toBe(true);
    const recipients = (ok as { recipients: { handlers: { handlerId: string }[] } }).recipients;
    expect(recipients.handlers.map((h) => h.handlerId)).toEqual(['h-hanne']);
    expect(JSON.parse(storage.getItem(`wb:key-log:${HOST}`)!)).toEqual({ anchorKeyId: await keyId(recovery.ecdsaSpki), head: { seq: 1, hash: await hashKeyLogEntry(entries[0]!) } });
  });

  it('refuses a swapped key, another anchor, a lost anchor, a shortened log and no key for the officer', async () => {
    const evil = await makeHandlerKeys();
    const fresh = () => new MemoryStorage() as unknown as Storage;
    serve({ anchor: anchor(), entries: [{ ...entries[0]!, ecdhSpki: toBase64(evil.ecdhSpki) }], sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-a', fresh())).toEqual({ refused: 'signature' });
    serve({ anchor: anchor(), entries, sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-b', fresh())).toEqual({ refused: 'no-keys' });

    // A browser that saw this anchor and head before.
    const seen = fresh();
    serve({ anchor: anchor(), entries, sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-a', seen)).toHaveProperty('recipients');
    serve({ anchor: { ecdhSpki: toBase64(evil.ecdhSpki), ecdsaSpki: toBase64(evil.ecdsaSpki) }, entries: [], sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-a', seen)).toEqual({ refused: 'anchor' });
    serve({ anchor: null, entries: [], sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-a', seen)).toEqual({ refused: 'anchor' });
    serve({ anchor: anchor(), entries: [], sealedCases: 'browser' });
    expect(await checkKeyLog(api, HOST, 'officer-a', seen)).toEqual({ refused: 'fork' });
    // Another host is another company: nothing remembered there.
    serve({ anchor: anchor(), entries: [], sealedCases: 'browser' });
    expect(await checkKeyLog(api, 'other.test', 'officer-a', seen)).toEqual({ refused: 'no-keys' });
  });

  it('no answer is a network failure, a refused read none of the above', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(await checkKeyLog(api, HOST, 'officer-a', undefined)).toEqual({ networkFailure: true });
    vi.stubGlobal('fetch', async () => new Response('{}', { status: 503 }));
    expect(await checkKeyLog(api, HOST, 'officer-a', undefined)).toBeNull();
  });
});

describe('sealReport', () => {
  const dto = {
    whistleblowerRelation: 'Employee',
    subsidiary: null,
    protectionOfficer: { id: 'officer-a' },
    whistleblower: { name: 'MARKER-name', email: null, phone: null, phoneCountryCode: null, notification: false },
    creationChannel: 'BY_ONLINE_FORM' as const,
    description: 'MARKER-description',
    voiceMessage: false,
    violation: 'FRAUD' as const,
    repeatedViolations: false,
    reportedPersons: [],
    reportedUnit: 'MARKER-unit',
    uploads: [],
  };

  it('sends only envelopes and wraps, with the reservation; the handler opens the details; WRAP_MISSING is told apart', async () => {
    const storage = new MemoryStorage() as unknown as Storage;
    serve({ anchor: anchor(), entries, sealedCases: 'browser' });
    const ok = (await checkKeyLog(api, HOST, 'officer-a', storage)) as { recipients: unknown };
    const { reporterKey } = await deriveReporterKeys({ caseNumber: '1234567812345678', password: 'a password', salt: new Uint8Array(16), kdf: PBKDF2_DEFAULT });
    const caseAccount = { follow: true, reservation: 'r'.repeat(43), verifier: 'v'.repeat(43), kdf: PBKDF2_DEFAULT };
    const input: SealReportInput = {
      submission: { channel: 'online', dto: { ...dto, caseAccount } as never, files: [] },
      recipients: ok.recipients,
      reporterKey,
      proof: null,
      resealed: false,
    };
    const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
    let answer: () => Response = () => new Response(JSON.stringify({ caseDto: { caseNumber: '1234567812345678' } }), { status: 201 });
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      sent.push({ url, headers: init.headers as Record<string, string>, body: String(init.body) });
      return answer();
    });
    expect(await sealReport(api, HOST, input)).toEqual({ caseDto: { caseNumber: '1234567812345678' } });
    expect(sent[0]!.url).toBe('http://portal.test/api/public/case/new/sealed');
    expect(sent[0]!.headers['x-case-reservation']).toBe('r'.repeat(43));
    expect(sent[0]!.body).not.toMatch(/MARKER|Employee|FRAUD/);
    const body = JSON.parse(sent[0]!.body);
    expect(Object.keys(body).sort()).toEqual(['caseAccount', 'caseId', 'envelopes', 'protectionOfficer', 'subsidiary', 'wraps']);
    expect(body.caseAccount).toEqual(caseAccount);
    expect(body.wraps.map((w: { kind: string }) => w.kind).sort()).toEqual(['handler', 'recovery', 'reporter']);
    const hanneId = await keyId(hanne.ecdhSpki);
    const wrap = body.wraps.find((w: { recipientKeyId: string }) => w.recipientKeyId === hanneId);
    const dk = await openSealedBox(hanne.ecdh, fromBase64(wrap.wrap), { caseId: body.caseId, epoch: 1, recipientKeyId: hanneId });
    const details = JSON.parse(await openFieldText(dk, fieldContext(body.caseId, 'report_case.details_enc'), fromBase64(body.envelopes.details)));
    expect(details).toEqual({ description: 'MARKER-description', violation: 'FRAUD', repeatedViolations: false, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'MARKER-unit' });
    expect(JSON.parse(await openFieldText(dk, fieldContext(body.caseId, 'report_case.whistleblower_enc'), fromBase64(body.envelopes.whistleblower))).name).toBe('MARKER-name');

    answer = () => new Response(JSON.stringify({ error: { code: 'WRAP_MISSING', field: 'wraps' } }), { status: 400 });
    expect(await sealReport(api, HOST, input)).toEqual({ wrapMissing: true });
    answer = () => new Response(JSON.stringify({ error: { code: 'BAD_ENVELOPE' } }), { status: 400 });
    expect(await sealReport(api, HOST, input)).toBeNull();
    answer = () => new Response('', { status: 429, headers: { 'retry-after': '120' } });
    expect(await sealReport(api, HOST, input)).toEqual({ rateLimited: { retryAfterSeconds: 120 } });
    // A followed case without its derived account never goes: no password on this path.
    expect(await sealReport(api, HOST, { ...input, submission: { ...input.submission, dto: { ...dto, caseAccount: { follow: true, password: 'pw' } } as never } })).toBeNull();
  });
});
