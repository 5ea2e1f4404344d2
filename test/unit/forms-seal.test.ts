/**
 * The report form's sealing effects (src/forms/seal.ts) against key logs built with
 * core/crypto, as the server publishes them: the plain path when the portal or the
 * company takes no sealed cases; the verified keys (and what the browser remembers:
 * the anchor's keyId and the head, per host); every refusal the form names (a swapped
 * key, another anchor, a missing anchor where one was seen, a shortened log, no key for
 * the officer); and a sealed request that carries only envelopes the entitled handler
 * opens, with the server's WRAP_MISSING told apart; the categories sealed to the statistics
 * key only when this page verified it.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  deriveReporterKeys, fieldContext, fromBase64, hashKeyLogEntry, keyId, makeDataKey, makeHandlerKeys, openFieldText, openNotifyAddress, openSealedBox, signKeyLogEntry, toBase64,
  PBKDF2_DEFAULT, type HandlerKeys, type KeyLogEntry,
} from '../../core/crypto/index.ts';
import { checkKeyLog, sealReport } from '../../src/forms/seal.ts';
import { makeStatisticsKey, openCategories, signStatisticsKey } from '../../core/crypto/index.ts';
import { contentFits, newSealedUploadMemory } from '../../src/forms/sealFiles.ts';
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
      uploads: null,
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
    expect(sent[0]!.headers['x-upload-session']).toBeUndefined();
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

  /** A followed case's input, as the chart builds it, with the log's keys (and a mail key) verified. */
  async function followed(over: Partial<SealReportInput> = {}, mailKey?: { spki: string; keyId: string }) {
    serve({ anchor: anchor(), entries, sealedCases: 'browser', ...(mailKey ? { mailKey } : {}) });
    const ok = (await checkKeyLog(api, HOST, 'officer-a', new MemoryStorage() as unknown as Storage)) as { recipients: unknown };
    const { reporterKey } = await deriveReporterKeys({ caseNumber: '1234567812345678', password: 'a password', salt: new Uint8Array(16), kdf: PBKDF2_DEFAULT });
    const caseAccount = { follow: true, reservation: 'r'.repeat(43), verifier: 'v'.repeat(43), kdf: PBKDF2_DEFAULT };
    const input: SealReportInput = { submission: { channel: 'online', dto: { ...dto, caseAccount } as never, files: [] }, recipients: ok.recipients, reporterKey, proof: null, resealed: false, uploads: null, ...over };
    return { input, caseAccount };
  }
  function record(answer: () => Response = () => new Response(JSON.stringify({ caseDto: { caseNumber: '1234567812345678' } }), { status: 201 })) {
    const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      sent.push({ url, headers: init.headers as Record<string, string>, body: String(init.body) });
      return answer();
    });
    return sent;
  }
  const openDk = async (body: { caseId: string; wraps: { recipientKeyId: string; wrap: string }[] }) => {
    const hanneId = await keyId(hanne.ecdhSpki);
    const wrap = body.wraps.find((w) => w.recipientKeyId === hanneId)!;
    return openSealedBox(hanne.ecdh, fromBase64(wrap.wrap), { caseId: body.caseId, epoch: 1, recipientKeyId: hanneId });
  };

  it('seals a notification address to the mail key, apart from the identity; MAIL_KEY_CHANGED reads the log again; no mail key, no send', async () => {
    const mail = await makeHandlerKeys();
    const mailKey = { spki: toBase64(mail.ecdhSpki), keyId: await keyId(mail.ecdhSpki) };
    const who = { name: 'MARKER-name', email: 'marker.address@example.org', phone: null, phoneCountryCode: null, notification: true };
    const { input, caseAccount } = await followed({}, mailKey);
    const notified: SealReportInput = { ...input, submission: { channel: 'online', dto: { ...dto, whistleblower: who, caseAccount } as never, files: [] } };
    let sent = record();
    expect(await sealReport(api, HOST, notified, undefined, 'da')).toEqual({ caseDto: { caseNumber: '1234567812345678' } });
    expect(sent[0]!.body).not.toContain('marker.address');
    const body = JSON.parse(sent[0]!.body);
    expect(body.notify.keyId).toBe(mailKey.keyId);
    const opened = await openNotifyAddress({ privateKey: mail.ecdh.privateKey, publicKey: mail.ecdhSpki, keyId: mailKey.keyId }, body.caseId, fromBase64(body.notify.box));
    expect(opened).toEqual({ address: 'marker.address@example.org', language: 'da' });
    // The identity the handlers open holds no address: only the mail worker's key opens it.
    const dk = await openDk(body);
    const identity = JSON.parse(await openFieldText(dk, fieldContext(body.caseId, 'report_case.whistleblower_enc'), fromBase64(body.envelopes.whistleblower)));
    expect(identity).toMatchObject({ name: 'MARKER-name', email: null, notification: true });
    // The interface language goes sealed with the details, for the handlers' inbox (docs/decisions/inbox-search.md).
    const details = JSON.parse(await openFieldText(dk, fieldContext(body.caseId, 'report_case.details_enc'), fromBase64(body.envelopes.details)));
    expect(details.language).toBe('da');

    sent = record(() => new Response(JSON.stringify({ error: { code: 'MAIL_KEY_CHANGED', field: 'notify.keyId' } }), { status: 409 }));
    expect(await sealReport(api, HOST, notified)).toEqual({ wrapMissing: true });
    // A log with no mail key: the address could be opened by nobody; nothing is sent.
    const without = await followed();
    sent = record();
    expect(await sealReport(api, HOST, { ...without.input, submission: notified.submission })).toBeNull();
    expect(sent).toEqual([]);
  });

  it('a phone or meeting report: sealed on the same route with its channel, the relation its only detail', async () => {
    for (const [channel, type] of [['oral', 'PHONE'], ['meeting', 'MEETING']] as const) {
      const { input, caseAccount } = await followed();
      const oral = { whistleblowerRelation: 'MARKER-relation', subsidiary: null, protectionOfficer: { id: 'officer-a' }, whistleblower: dto.whistleblower, creationChannel: 'BY_PHONE' as const, caseAccount };
      const sent = record();
      expect(await sealReport(api, HOST, { ...input, submission: { channel, dto: oral as never, files: [] } })).toEqual({ caseDto: { caseNumber: '1234567812345678' } });
      expect(sent[0]!.url).toBe('http://portal.test/api/public/case/new/sealed');
      expect(sent[0]!.body).not.toMatch(/MARKER/);
      const body = JSON.parse(sent[0]!.body);
      expect(body.submissionType).toBe(type);
      const details = JSON.parse(await openFieldText(await openDk(body), fieldContext(body.caseId, 'report_case.details_enc'), fromBase64(body.envelopes.details)));
      expect(details).toEqual({ description: null, violation: null, repeatedViolations: null, whistleblowerRelation: 'MARKER-relation', reportedPersons: [], reportedUnit: null });
    }
  });

  it('a report with files goes under the uploads\' case id and data key, naming them with their session; the memory is dropped once a case names them', async () => {
    const memory = newSealedUploadMemory();
    const dataKey = makeDataKey();
    memory.caseId = crypto.randomUUID();
    memory.dataKey = dataKey;
    memory.session = 'session.secret';
    const uploads = { caseId: memory.caseId, dataKey, session: 'session.secret', ids: [crypto.randomUUID(), crypto.randomUUID()] };
    const files = [{ name: 'a.pdf', size: 10, type: 'application/pdf' }, { name: 'b.txt', size: 3, type: 'text/plain' }];
    const { input, caseAccount } = await followed({ uploads });
    const withFiles: SealReportInput = { ...input, submission: { channel: 'online', dto: { ...dto, caseAccount } as never, files } };
    // Without the uploads (or with fewer than the files) nothing goes: files never travel in this call.
    const none = record();
    expect(await sealReport(api, HOST, { ...withFiles, uploads: null }, undefined, undefined, memory)).toBeNull();
    expect(await sealReport(api, HOST, { ...withFiles, uploads: { ...uploads, ids: [uploads.ids[0]!] } }, undefined, undefined, memory)).toBeNull();
    expect(none).toEqual([]);
    const keyCopy = Uint8Array.from(dataKey);
    const sent = record();
    expect(await sealReport(api, HOST, withFiles, undefined, undefined, memory)).toEqual({ caseDto: { caseNumber: '1234567812345678' } });
    const body = JSON.parse(sent[0]!.body);
    expect(sent[0]!.headers['x-upload-session']).toBe('session.secret');
    expect(body.caseId).toBe(uploads.caseId);
    expect(body.uploads).toEqual(uploads.ids);
    expect(Buffer.from(await openDk(body)).equals(Buffer.from(keyCopy))).toBe(true);
    expect(memory).toMatchObject({ caseId: null, dataKey: null, session: null });
    expect(dataKey.every((b) => b === 0)).toBe(true);
  });
});

describe('contentFits (the check before sealing, which the server cannot make on ciphertext)', () => {
  it('takes a file whose first bytes fit its name and refuses one that does not', async () => {
    const pdf = new File([new TextEncoder().encode('%PDF-1.7\n%...\n')], 'Bilag.pdf', { type: 'application/pdf' });
    const fake = new File([new TextEncoder().encode('MZ\x90\x00 not a pdf at all')], 'Bilag.pdf', { type: 'application/pdf' });
    const text = new File([new TextEncoder().encode('plain words, æøå\n')], 'notes.txt', { type: 'text/plain' });
    expect(await contentFits(pdf)).toBe(true);
    expect(await contentFits(fake)).toBe(false);
    expect(await contentFits(text)).toBe(true);
    expect(await contentFits(new File([new Uint8Array([0, 1, 2, 0, 0, 255])], 'notes.txt'))).toBe(false);
  });
});

describe('categories for statistics', () => {
  const dto = {
    whistleblowerRelation: 'Employee', subsidiary: null, protectionOfficer: { id: 'officer-a' }, whistleblower: null, creationChannel: 'BY_ONLINE_FORM' as const,
    description: 'MARKER-description', voiceMessage: false, violation: 'FRAUD' as const, repeatedViolations: false, reportedPersons: [], reportedUnit: null, uploads: [],
    caseAccount: { follow: false },
  };
  async function send(statisticsKey: unknown) {
    serve({ anchor: anchor(), entries, sealedCases: 'browser', ...(statisticsKey === undefined ? {} : { statisticsKey }) });
    const ok = (await checkKeyLog(api, HOST, 'officer-a', new MemoryStorage() as unknown as Storage)) as { recipients: unknown };
    expect(ok).toHaveProperty('recipients');
    const sent: string[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      sent.push(String(init.body));
      return new Response(JSON.stringify({ caseDto: { caseNumber: '1234567812345678' } }), { status: 201 });
    });
    const input: SealReportInput = { submission: { channel: 'online', dto: dto as never, files: [] }, recipients: ok.recipients, reporterKey: null, proof: { challenge: 'x', nonce: '0', expiresAt: new Date(Date.now() + 3600_000).toISOString() }, resealed: false, uploads: null };
    expect(await sealReport(api, HOST, input)).toEqual({ caseDto: { caseNumber: '1234567812345678' } });
    return JSON.parse(sent.at(-1)!) as { caseId: string; categories?: { keyId: string; box: string } };
  }

  it('seals the violation category and the channel to a statistics key the log certifies, and nothing to one it does not, or to none', async () => {
    const stats = await makeStatisticsKey();
    const byHanne = await signStatisticsKey({ privateKey: hanne.ecdsa.privateKey, keyId: await keyId(hanne.ecdsaSpki) }, stats.spki);
    const body = await send(byHanne);
    expect(body.categories?.keyId).toBe(stats.keyId);
    expect(JSON.stringify(body)).not.toMatch(/FRAUD|ONLINE_FORM/);
    expect(await openCategories(stats, body.caseId, body.categories!.box)).toEqual({ violation: 'FRAUD', channel: 'ONLINE_FORM' });
    // A key the server swapped in under Hanne's signature, one signed by a stranger, or none: no categories at all.
    const swapped = await makeStatisticsKey();
    expect((await send({ ...byHanne, spki: toBase64(swapped.spki), keyId: swapped.keyId })).categories).toBeUndefined();
    const stranger = await makeHandlerKeys();
    expect((await send(await signStatisticsKey({ privateKey: stranger.ecdsa.privateKey, keyId: await keyId(stranger.ecdsaSpki) }, swapped.spki))).categories).toBeUndefined();
    expect((await send(null)).categories).toBeUndefined();
    expect((await send(undefined)).categories).toBeUndefined();
  });
});
