/**
 * The private area's sealed case (src/private/sealed.ts), against a sealed view built
 * with core/crypto as the server answers it: the reporter key opens the details, the
 * identity and each message; a part that does not open is named and the rest shows; no
 * key, or a key of another password, answers `keyMissing`; the composer's message is
 * sealed under the case's key before it goes; the files: names opened one by one (an
 * altered one named, the rest listed), a download opened as it streams to the picked file
 * or, without a picker, to one Blob, an altered download failing with the file named and
 * the picked file discarded; the content check before sealing; the identity sealed with the
 * usual rules; the reporter wrap of a migrated case made, checked and sent; the notification
 * address sealed to the mail key of a key log verified here (none sent when it does not verify).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deriveReporterKeys, fieldContext, fromBase64, keyId, makeHandlerKeys, makeNextEpoch, openCaseParts, openFieldText, recipientsFor, sealFileForUpload, sealMessage, sealNewCase, signKeyLogEntry, toBase64,
  unwrapDataKey, FILE_CHUNK, PBKDF2_DEFAULT, SealedFileError, type HandlerKeys,
} from '../../core/crypto/index.ts';
import { MailKeyRefused, offerReporterWrap, postSealedComment, postSealedMessage, putSealedIdentity, putSealedNotify, readSealedCase, sealedIdentityOf, type CaseKey } from '../../src/private/sealed.ts';
import { openNotifyAddress } from '../../core/crypto/index.ts';
import { chunkedReader, contentFits, saveSealedFile, canSaveStreaming } from '../../src/private/sealedFiles.ts';
import { openComments, recordHash, sealComment, sealRecordVersion } from '../../core/crypto/index.ts';
import type { ApiClient } from '../../src/api/client.ts';

let recovery: HandlerKeys;
let hanne: HandlerKeys;
let reporterKey: CryptoKey;
let otherKey: CryptoKey;
let sealed: Awaited<ReturnType<typeof sealNewCase>>;
let view: Record<string, unknown>;

const derive = async (password: string) => (await deriveReporterKeys({ caseNumber: '1234567812345678', password, salt: new Uint8Array(16), kdf: PBKDF2_DEFAULT })).reporterKey;

beforeAll(async () => {
  [recovery, hanne] = await Promise.all([makeHandlerKeys(), makeHandlerKeys()]);
  const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
    seq: 1, handlerId: 'h', ecdhSpki: toBase64(hanne.ecdhSpki), ecdsaSpki: toBase64(hanne.ecdsaSpki), officerIds: ['o'],
    addedAt: '2026-01-01T00:00:00.000Z', action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
  });
  const r = await recipientsFor({ anchor: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }, entries: [entry] }, 'o');
  if (!r.ok) throw new Error(r.reason);
  [reporterKey, otherKey] = await Promise.all([derive('the password'), derive('another password')]);
  sealed = await sealNewCase(r, {
    details: { description: 'Forged invoices', violation: 'FRAUD', repeatedViolations: true, whistleblowerRelation: 'Employee', reportedPersons: [], reportedUnit: 'Finance' },
    whistleblower: { name: 'Ida Jensen', email: null, phone: null, phoneCountryCode: null, notification: false },
    reporterKey,
  });
  const good = await sealMessage(sealed.dataKey, sealed.caseId, 'We read your report.');
  const bad = await sealMessage(sealed.dataKey, sealed.caseId, 'Altered on the server.');
  const flipped = fromBase64(bad.body);
  flipped[flipped.length - 1]! ^= 1;
  const reporterWrap = sealed.wraps.find((w) => w.kind === 'reporter')!;
  view = {
    caseNumber: '1234567812345678',
    caseId: sealed.caseId,
    status: 'RECEIVED',
    created: '2026-12-01T10:00:00.000Z',
    protectionOfficerId: 'o',
    subsidiaryId: null,
    epoch: 1,
    envelopes: sealed.envelopes,
    wrap: reporterWrap,
    messages: [
      { id: good.id, type: 'STANDARD', time: '2026-12-01T11:00:00.000Z', createdByUserId: 'handler', answerWanted: false, body: good.body },
      { id: bad.id, type: 'STANDARD', time: '2026-12-01T12:00:00.000Z', createdByUserId: 'handler', answerWanted: false, body: toBase64(flipped) },
    ],
    pendingWhistleblowerAction: false,
    caseStatusHistory: [{ status: 'RECEIVED', dateTime: '2026-12-01T10:00:00.000Z' }],
    protectionOfficer: { id: 'o', name: 'Anne Sørensen' },
  };
});

const serving = (body: unknown) => {
  const calls: { path: string; init?: { method?: string; body?: unknown } }[] = [];
  const api = {
    request: async (path: string, init?: { method?: string; body?: unknown }) => {
      calls.push({ path, init });
      return new Response(JSON.stringify(body), { status: 200 });
    },
  } as unknown as ApiClient;
  return { api, calls };
};

describe('readSealedCase', () => {
  it('opens details, identity and messages with the reporter key; an altered message is named, the rest shows', async () => {
    const { api, calls } = serving(view);
    let held: CaseKey | null = null;
    const result = await readSealedCase(api, reporterKey, (k) => (held = k));
    expect(calls.map((c) => c.path)).toEqual(['/api/private/case/my-case/sealed']);
    expect(result.status).toBe(200);
    const c = result.data!;
    expect(c).toMatchObject({ description: 'Forged invoices', violation: 'FRAUD', reportedUnit: 'Finance', whistleblowerRelation: 'Employee', whistleblower: { name: 'Ida Jensen' }, sealed: { unopened: [] } });
    expect(c.messages.map((m) => [m.message, m.unopened ?? false])).toEqual([['We read your report.', false], ['', true]]);
    expect(c.events).toEqual([{ status: 'RECEIVED', dateTime: '2026-12-01T10:00:00.000Z' }]);
    expect(held!.caseId).toBe(sealed.caseId);
    expect(Buffer.from(held!.dataKey)).toEqual(Buffer.from(sealed.dataKey));
  });

  it('altered details or identity: named, the dates and the messages still show', async () => {
    const bad = (b64: string) => {
      const b = fromBase64(b64);
      b[b.length - 1]! ^= 1;
      return toBase64(b);
    };
    const envelopes = sealed.envelopes as { details: string; whistleblower: string };
    const { api } = serving({ ...view, envelopes: { details: bad(envelopes.details), whistleblower: bad(envelopes.whistleblower) } });
    const c = (await readSealedCase(api, reporterKey, () => {})).data!;
    expect(c.sealed).toEqual({ unopened: ['details', 'whistleblower'] });
    expect(c.description).toBeNull();
    expect(c.whistleblower).toBeNull();
    expect(c.created).toBe('2026-12-01T10:00:00.000Z');
    expect(c.messages[0]!.message).toBe('We read your report.');
  });

  it('no reporter key, a key of another password, or no wrap: keyMissing, and no data key is held', async () => {
    for (const [key, body] of [
      [null, view],
      [otherKey, view],
      [reporterKey, { ...view, wrap: null }],
    ] as const) {
      const { api } = serving(body);
      let held: CaseKey | null = { caseId: 'x', dataKey: new Uint8Array(32) };
      expect(await readSealedCase(api, key, (k) => (held = k))).toEqual({ status: 200, data: null, keyMissing: true });
      expect(held).toBeNull();
    }
  });
});

describe('readSealedCase after a revocation', () => {
  it('walks forward to the newest key, opens each message under its epoch, holds the newest key and wraps it under the reporter key', async () => {
    const next = await makeNextEpoch({ caseId: sealed.caseId, epoch: 1, dataKey: sealed.dataKey, revoke: 'f'.repeat(64), recipients: [], reporter: true });
    const later = await sealMessage(next.dataKey, sealed.caseId, 'After the revocation.');
    const links = [{ epoch: 2, kind: 'previous', link: next.body.previous }, { epoch: 2, kind: 'next', link: next.body.next }];
    const messages = [...(view.messages as object[]).slice(0, 1), { id: later.id, type: 'STANDARD', time: '2026-12-02T10:00:00.000Z', createdByUserId: 'handler', answerWanted: false, body: later.body, epoch: 2 }];
    const { api, calls } = serving({ ...view, currentEpoch: 2, links, messages });
    let held: CaseKey | null = null;
    const c = (await readSealedCase(api, reporterKey, (k) => (held = k))).data!;
    expect(c.messages.map((m) => m.message)).toEqual(['We read your report.', 'After the revocation.']);
    expect(held!.epoch).toBe(2);
    expect(Buffer.from(held!.dataKey)).toEqual(Buffer.from(next.dataKey));
    const put = calls.find((x) => x.path === '/api/private/case/my-case/epoch-wrap')!;
    expect(put.init!.method).toBe('PUT');
    const body = put.init!.body as { epoch: number; wrap: string };
    expect(body.epoch).toBe(2);
    expect(Buffer.from(await unwrapDataKey(reporterKey, fromBase64(body.wrap), { caseId: sealed.caseId, epoch: 2 }))).toEqual(Buffer.from(next.dataKey));
    // The composer names the epoch its key seals under.
    const { api: api2, calls: sent } = serving({ message: {} });
    await postSealedMessage(api2, held!, 'Thanks');
    expect((sent[0]!.init!.body as { epoch: number }).epoch).toBe(2);
  });
});

describe('postSealedMessage', () => {
  it('sends the message sealed under the case key, bound to the id it names', async () => {
    const { api, calls } = serving({ message: {} });
    await postSealedMessage(api, { caseId: sealed.caseId, dataKey: sealed.dataKey }, 'My answer');
    expect(calls[0]!.path).toBe('/api/private/case/messages/sealed');
    const sent = calls[0]!.init!.body as { id: string; body: string };
    expect(JSON.stringify(sent)).not.toContain('My answer');
    expect(await openFieldText(sealed.dataKey, fieldContext(sealed.caseId, 'case_message.body_enc', sent.id), fromBase64(sent.body))).toBe('My answer');
  });
});

/** Sealed bytes of `plain` as the composer uploads them, and the sealed name the server lists. */
async function sealedFile(name: string, plain: Uint8Array<ArrayBuffer>) {
  const up = await sealFileForUpload(sealed.dataKey, sealed.caseId, new Blob([plain]), { name });
  const bytes = new Uint8Array(await new Response(up.stream as ReadableStream<Uint8Array<ArrayBuffer>>).arrayBuffer());
  return { id: up.fileId, name: up.name, bytes };
}
const pseudo = (n: number, seed = 7) => {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return out;
};

describe('sealed files', () => {
  it('lists each file with its name opened; one whose name was altered is named unopened, the rest shows', async () => {
    const a = await sealedFile('Antwort.pdf', pseudo(1000));
    const b = await sealedFile('voice-message.webm', pseudo(2000));
    const altered = fromBase64(b.name);
    altered[altered.length - 1]! ^= 1;
    const msgId = (view.messages as { id: string }[])[0]!.id;
    const { api } = serving({
      ...view,
      files: [
        { id: a.id, messageId: msgId, name: a.name, size: a.bytes.length, created: '2026-12-01T11:00:00.000Z' },
        { id: b.id, messageId: null, name: toBase64(altered), size: b.bytes.length, created: '2026-12-01T11:00:00.000Z' },
      ],
    });
    const c = (await readSealedCase(api, reporterKey, () => {})).data!;
    expect(c.messages[0]!.files).toEqual([{ id: a.id, name: 'Antwort.pdf', size: 1000, plainSize: 1000, mimeType: 'application/pdf', created: '2026-12-01T11:00:00.000Z' }]);
    expect(c.files).toHaveLength(1);
    expect(c.files[0]).toMatchObject({ id: b.id, unopened: true, name: '' });
  });

  const fileApi = (bytes: Uint8Array) => {
    const paths: string[] = [];
    const api = { request: async (path: string) => (paths.push(path), new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(), { status: 200 })) } as unknown as ApiClient;
    return { api, paths };
  };
  const picker = () => {
    const written: Uint8Array[] = [];
    let aborted = false;
    let closed = false;
    const scope = {
      showSaveFilePicker: async (opts: { suggestedName?: string }) => {
        scope.suggested = opts.suggestedName;
        return {
          createWritable: async () =>
            new WritableStream<Uint8Array>({
              write: (c) => void written.push(c),
              close: () => void (closed = true),
              abort: () => void (aborted = true),
            }),
        };
      },
      suggested: undefined as string | undefined,
    };
    return { scope, written, state: () => ({ aborted, closed }) };
  };
  const key = () => ({ caseId: sealed.caseId, dataKey: sealed.dataKey });

  it('a download streams, opened, into the picked file, identical to what was sealed; padding cut off', async () => {
    const plain = pseudo(3 * FILE_CHUNK + 17);
    const f = await sealedFile('Fragen.docx', plain);
    const { api, paths } = fileApi(f.bytes);
    const p = picker();
    expect(canSaveStreaming(p.scope)).toBe(true);
    const delivered: Blob[] = [];
    expect(await saveSealedFile(api, key(), { id: f.id, name: 'Fragen.docx', plainSize: plain.length }, (b) => delivered.push(b), p.scope)).toBe('saved');
    expect(paths).toEqual([`/api/private/case/files/${f.id}`]);
    expect(p.scope.suggested).toBe('Fragen.docx');
    expect(Buffer.from(Buffer.concat(p.written)).equals(Buffer.from(plain))).toBe(true);
    expect(p.state()).toEqual({ aborted: false, closed: true });
    expect(delivered).toEqual([]);
  });

  it('a closed picker is cancelled, nothing fetched; without a picker the opened file goes as one Blob', async () => {
    const plain = pseudo(5000);
    const f = await sealedFile('a.txt', plain);
    const { api, paths } = fileApi(f.bytes);
    const closedPicker = { showSaveFilePicker: async () => Promise.reject(Object.assign(new Error('closed'), { name: 'AbortError' })) };
    expect(await saveSealedFile(api, key(), { id: f.id, name: 'a.txt', plainSize: plain.length }, () => {}, closedPicker)).toBe('cancelled');
    expect(paths).toEqual([]);
    expect(canSaveStreaming({})).toBe(false);
    const delivered: { blob: Blob; name: string }[] = [];
    expect(await saveSealedFile(api, key(), { id: f.id, name: 'a.txt', plainSize: plain.length }, (blob, name) => delivered.push({ blob, name }), {})).toBe('saved');
    expect(delivered.map((d) => d.name)).toEqual(['a.txt']);
    expect(Buffer.from(await delivered[0]!.blob.arrayBuffer()).equals(Buffer.from(plain))).toBe(true);
  });

  it('an altered download fails naming the file, and the picked file is discarded', async () => {
    const plain = pseudo(2 * FILE_CHUNK);
    const f = await sealedFile('Lager.jpg', plain);
    f.bytes[f.bytes.length - 3]! ^= 1;
    const { api } = fileApi(f.bytes);
    const p = picker();
    const err = await saveSealedFile(api, key(), { id: f.id, name: 'Lager.jpg', plainSize: plain.length }, () => {}, p.scope).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SealedFileError);
    expect((err as SealedFileError).file).toBe('Lager.jpg');
    expect(p.state()).toEqual({ aborted: true, closed: false });
  });

  it('checks content against the name before sealing', async () => {
    const pdf = Object.assign(new Blob([new TextEncoder().encode('%PDF-1.7\n...')]), { name: 'a.pdf' });
    const fake = Object.assign(new Blob([new TextEncoder().encode('MZ not a pdf')]), { name: 'b.pdf' });
    const text = Object.assign(new Blob([new TextEncoder().encode('plain words\n')]), { name: 'c.txt' });
    expect([await contentFits(pdf), await contentFits(fake), await contentFits(text)]).toEqual([true, false, true]);
  });

  it('hands tus-js-client whole chunks of the sealed stream, the bytes unchanged', async () => {
    const plain = pseudo(10_000);
    const pieces = [plain.subarray(0, 3), plain.subarray(3, 4000), plain.subarray(4000, 4001), plain.subarray(4001)];
    const stream = new ReadableStream<Uint8Array>({ start: (c) => (pieces.forEach((p) => c.enqueue(p)), c.close()) });
    const reader = chunkedReader(stream, 4096);
    const got: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
    expect(got.map((g) => g.length)).toEqual([4096, 4096, 10_000 - 8192]);
    expect(Buffer.concat(got).equals(Buffer.from(plain))).toBe(true);
  });
});

describe('the identity of a sealed case', () => {
  it('keeps a given name and the notification wish (which needs an e-mail), and goes sealed under the case key only', async () => {
    expect(sealedIdentityOf({ name: 'Someone Else', email: ' ida@example.com ', phone: '', phoneCountryCode: 'DK' }, { name: 'Ida Jensen', notification: true })).toEqual({ name: 'Ida Jensen', email: 'ida@example.com', phone: null, phoneCountryCode: 'DK', notification: true });
    expect(sealedIdentityOf({ name: 'New Name', email: null, phone: '+4512345678', phoneCountryCode: 'DK' }, { name: null, notification: true })).toEqual({ name: 'New Name', email: '', phone: '+4512345678', phoneCountryCode: 'DK', notification: false });
    const { api, calls } = serving({ stored: true });
    const identity = sealedIdentityOf({ name: 'Ida Jensen', email: 'MARKER-ida@example.com', phone: null, phoneCountryCode: null }, { name: 'Ida Jensen' });
    await putSealedIdentity(api, key2(), identity);
    expect(calls[0]!.path).toBe('/api/private/case/whistleblower/sealed');
    expect(calls[0]!.init!.method).toBe('PUT');
    const sent = calls[0]!.init!.body as { envelope: string };
    expect(JSON.stringify(sent)).not.toContain('MARKER');
    const opened = await openCaseParts(sealed.dataKey, { caseId: sealed.caseId, envelopes: { details: sealed.envelopes.details, whistleblower: sent.envelope }, messages: [] });
    expect(opened.whistleblower).toEqual(identity);
  });
});
const key2 = () => ({ caseId: sealed.caseId, dataKey: sealed.dataKey });

describe('the notification address of a sealed case', () => {
  /** A key log as the server publishes it (anchor, one certified entry, the mail key), and the mail key's pair. */
  async function published() {
    const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
      seq: 1, handlerId: 'h', ecdhSpki: toBase64(hanne.ecdhSpki), ecdsaSpki: toBase64(hanne.ecdsaSpki), officerIds: ['o'],
      addedAt: '2026-01-01T00:00:00.000Z', action: 'add', prevHash: '', certifierKeyId: await keyId(recovery.ecdsaSpki),
    });
    const pair = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
    const spki = new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey));
    const mailKey = { spki: toBase64(spki), keyId: await keyId(spki) };
    const log = { sealedCases: 'browser', anchor: { ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }, entries: [entry], mailKey };
    return { log, mail: { privateKey: pair.privateKey, publicKey: spki, keyId: mailKey.keyId } };
  }
  const answering = (log: unknown) => {
    const calls: { path: string; init?: { method?: string; body?: unknown } }[] = [];
    const api = {
      request: async (path: string, init?: { method?: string; body?: unknown }) => {
        calls.push({ path, init });
        return new Response(JSON.stringify(path === '/api/public/key-log' ? log : { notify: init?.method === 'PUT' }), { status: 200 });
      },
    } as unknown as ApiClient;
    return { api, calls };
  };
  const ADDRESS = 'MARKER-rosa@example.org';

  it('on: seals the address to the verified log\'s mail key, bound to the case; only the box goes', async () => {
    const { log, mail } = await published();
    const { api, calls } = answering(log);
    await putSealedNotify(api, sealed.caseId, { on: true, address: ` ${ADDRESS} `, language: 'de' });
    expect(calls.map((c) => `${c.init?.method ?? 'GET'} ${c.path}`)).toEqual(['GET /api/public/key-log', 'PUT /api/private/case/notification/sealed']);
    const body = calls[1]!.init!.body as { notify: { keyId: string; box: string } };
    expect(Object.keys(body)).toEqual(['notify']);
    expect(body.notify.keyId).toBe(mail.keyId);
    expect(JSON.stringify(body)).not.toContain('MARKER');
    expect(await openNotifyAddress(mail, sealed.caseId, fromBase64(body.notify.box))).toEqual({ address: ADDRESS, language: 'de' });
    // Bound to its case: it does not open as another case's.
    await expect(openNotifyAddress(mail, crypto.randomUUID(), fromBase64(body.notify.box))).rejects.toThrow();
  });

  it('off: deletes, reading no key log and sending no address', async () => {
    const { log } = await published();
    const { api, calls } = answering(log);
    await putSealedNotify(api, sealed.caseId, { on: false, address: '' });
    expect(calls.map((c) => `${c.init?.method ?? 'GET'} ${c.path}`)).toEqual(['DELETE /api/private/case/notification/sealed']);
    expect(calls[0]!.init!.body).toBeUndefined();
  });

  it('sends nothing when the key log does not verify, names no mail key, or one whose id is not its key\'s', async () => {
    const { log } = await published();
    const altered = { ...log, entries: [{ ...log.entries[0]!, officerIds: ['o', 'other'] }] };
    const otherSpki = new Uint8Array(await crypto.subtle.exportKey('spki', (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])).publicKey));
    for (const bad of [altered, { ...log, mailKey: undefined }, { ...log, mailKey: { ...log.mailKey, spki: toBase64(otherSpki) } }, { ...log, sealedCases: 'off' }, { ...log, anchor: null }]) {
      const { api, calls } = answering(bad);
      await expect(putSealedNotify(api, sealed.caseId, { on: true, address: ADDRESS })).rejects.toBeInstanceOf(MailKeyRefused);
      expect(calls.map((c) => c.path)).toEqual(['/api/public/key-log']);
    }
  });
});

describe('offerReporterWrap', () => {
  const offering = (answers: ((path: string, init?: { method?: string; body?: unknown }) => Response)[]) => {
    const calls: { path: string; init?: { method?: string; body?: unknown } }[] = [];
    const api = {
      request: async (path: string, init?: { method?: string; body?: unknown }) => {
        calls.push({ path, init });
        const res = answers.shift()!(path, init);
        if (!res.ok) throw Object.assign(new Error('refused'), { status: res.status });
        return res;
      },
    } as unknown as ApiClient;
    return { api, calls };
  };
  it('wraps the offered data key to the reporter key, checks it opens, sends it', async () => {
    const dataKey = pseudo(32, 3);
    const { api, calls } = offering([() => new Response(JSON.stringify({ caseId: 'c-1', epoch: 1, dataKey: toBase64(dataKey) })), () => new Response('{"epoch":1}', { status: 201 })]);
    expect(await offerReporterWrap(api, reporterKey)).toBe(true);
    expect(calls.map((c) => [c.path, c.init?.method ?? 'GET'])).toEqual([['/api/private/case/my-case/reporter-wrap', 'GET'], ['/api/private/case/my-case/reporter-wrap', 'PUT']]);
    const wrap = fromBase64((calls[1]!.init!.body as { wrap: string }).wrap);
    expect(wrap.length).toBe(61);
    expect(Buffer.from(await unwrapDataKey(reporterKey, wrap, { caseId: 'c-1', epoch: 1 })).equals(Buffer.from(dataKey))).toBe(true);
    // Another password's key does not open it.
    await expect(unwrapDataKey(otherKey, wrap, { caseId: 'c-1', epoch: 1 })).rejects.toThrow();
  });
  it('no key in hand: asks nothing; not needed (409): sends nothing', async () => {
    const none = offering([]);
    expect(await offerReporterWrap(none.api, null)).toBe(false);
    expect(none.calls).toEqual([]);
    const notNeeded = offering([() => new Response('{"error":{"code":"REPORTER_WRAP_NOT_NEEDED"}}', { status: 409 })]);
    expect(await offerReporterWrap(notNeeded.api, reporterKey)).toBe(false);
    expect(notNeeded.calls).toHaveLength(1);
  });
});

describe('the record of a sealed phone case', () => {
  it('opens each version and checks its hash here; a version whose hash does not match, or that does not open, is named; comments open', async () => {
    const v1 = await sealRecordVersion(sealed.dataKey, sealed.caseId, 1, 'Called on Monday.');
    const v2 = await sealRecordVersion(sealed.dataKey, sealed.caseId, 2, 'Called on Tuesday.');
    const comment = await sealComment(sealed.dataKey, sealed.caseId, 'It was Tuesday.');
    const at = (v: typeof v1, approvedAt: string | null = null) => ({ ...v, createdAt: '2026-12-01T13:00:00.000Z', approvedAt });
    const phone = { ...view, submissionType: 'PHONE', approvedAt: null, record: { versions: [at(v1), at(v2)], comments: [{ ...comment, created: '2026-12-01T14:00:00.000Z' }] } };
    const c = (await readSealedCase(serving(phone).api, reporterKey, () => {})).data!;
    expect(c.submission.type).toBe('PHONE');
    expect(c.report).toMatchObject({ text: 'Called on Tuesday.', version: 2, sha256: await recordHash('Called on Tuesday.') });
    expect(c.report!.versions!.map((v) => [v.version, v.text, v.verified, v.unopened ?? false])).toEqual([[1, 'Called on Monday.', true, false], [2, 'Called on Tuesday.', true, false]]);
    expect(c.comments).toEqual([{ comment: 'It was Tuesday.', created: '2026-12-01T14:00:00.000Z' }]);

    // A server that stores another hash beside the text: the mismatch is named and the page's review gets verified: false.
    const lying = { ...phone, record: { versions: [at(v1), at({ ...v2, sha256: v1.sha256 })], comments: [{ id: comment.id, body: v1.text, created: 'x' }] } };
    const l = (await readSealedCase(serving(lying).api, reporterKey, () => {})).data!;
    expect(l.report!.versions!.at(-1)).toMatchObject({ text: 'Called on Tuesday.', verified: false });
    expect(l.comments).toEqual([{ comment: '', created: 'x', unopened: true }]);
    // An envelope moved to another version does not open.
    const moved = { ...phone, record: { versions: [at(v1), at({ ...v2, text: v1.text })], comments: [] } };
    expect((await readSealedCase(serving(moved).api, reporterKey, () => {})).data!.report!.versions!.at(-1)).toMatchObject({ text: '', unopened: true, verified: false });
  });

  it('sends the comment sealed under the case key, bound to its id', async () => {
    const { api, calls } = serving({ id: 'x' });
    await postSealedComment(api, { caseId: sealed.caseId, dataKey: sealed.dataKey }, 'My comment on the record');
    expect(calls[0]!.path).toBe('/api/private/case/comments/sealed');
    expect(calls[0]!.init!.method).toBe('POST');
    const sent = calls[0]!.init!.body as { id: string; body: string };
    expect(JSON.stringify(sent)).not.toContain('My comment');
    expect(await openComments(sealed.dataKey, sealed.caseId, [{ ...sent, created: '' }])).toEqual([{ id: sent.id, created: '', text: 'My comment on the record' }]);
  });
});
