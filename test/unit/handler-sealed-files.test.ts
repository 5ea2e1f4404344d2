/**
 * A sealed case's files in the handler's browser (src/handler/sealed.ts openCase,
 * src/handler/fileOpening.ts): each name opens on its own (one that does not is null
 * beside the rest); saving goes through the streaming decryption into the writable the
 * File System Access API gives, checked on the way (content against name, hidden data
 * with the server's former parsers and limits, in the handler's worker); a file whose
 * content does not fit its name, or that does not open, aborts the writable, so nothing
 * of it is kept; a closed save dialog fetches nothing. Real core/crypto; the server's answers stood in for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { fieldContext, keyId, makeDataKey, makeHandlerKeys, sealField, sealFileForUpload, sealToPublicKey, toBase64, concat, FILE_NAME_COLUMN, SEALED_COLUMNS } from '../../core/crypto/index.ts';
import { openAudit, sealedCaseEffects } from '../../src/handler/sealed.ts';
import { CaseCrypto } from '../../server/crypto/case-crypto.ts';
import { randomBytes } from 'node:crypto';
import { openingCheck, saveSealedFile } from '../../src/handler/fileOpening.ts';
import type { FileSaveInput, OpenedFile, SealedView } from '../../machines/handler/sealedCase.ts';
import { ApiError, type ApiClient } from '../../src/api/client.ts';
import { moduleWorker } from '../helpers/check-worker.ts';

const CASE_ID = '00000000-0000-4000-8000-0000000000bb';

async function readAll(stream: ReadableStream<Uint8Array>) {
  const parts: Uint8Array[] = [];
  for await (const p of stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
  return concat(...parts);
}

/** What the server stores and sends for a file sealed by the reporter's browser. */
async function sealed(dataKey: Uint8Array, name: string, plain: Uint8Array) {
  const up = await sealFileForUpload(dataKey, CASE_ID, new Blob([plain as BlobPart]), { name });
  return { id: up.fileId, nameEnvelope: up.name, bytes: await readAll(up.stream) };
}

/** A writable as `createWritable()` gives one: what was written, and whether it was closed or aborted. */
function fakeDisk() {
  const disk = { written: [] as Uint8Array[], closed: false, aborted: false, asked: [] as string[] };
  const picker = async ({ suggestedName }: { suggestedName?: string }) => {
    disk.asked.push(suggestedName ?? '');
    return {
      createWritable: async () =>
        new WritableStream<Uint8Array>({
          write: (c) => void disk.written.push(c.slice()),
          close: () => void (disk.closed = true),
          abort: () => void (disk.aborted = true),
        }),
    };
  };
  (globalThis as { showSaveFilePicker?: unknown }).showSaveFilePicker = picker;
  return disk;
}
afterEach(() => delete (globalThis as { showSaveFilePicker?: unknown }).showSaveFilePicker);

function downloads(bodies: Record<string, Uint8Array>, requested: string[] = []): ApiClient {
  return {
    request: async (path: string) => {
      requested.push(path);
      const id = path.split('/').pop()!;
      if (!(id in bodies)) throw new ApiError(404, 'no such file');
      return new Response(bodies[id] as BodyInit);
    },
  } as unknown as ApiClient;
}

const input = (dataKey: Uint8Array, file: OpenedFile & { name: string }): FileSaveInput => ({ caseNumber: '1111222233334444', caseId: CASE_ID, dataKey, file, toDisk: true });
const opened = (f: { id: string }, name: string, size: number): OpenedFile & { name: string } => ({ id: f.id, messageId: null, created: '2026-12-01T10:00:00.000Z', sealedSize: 0, name, size });

describe('files of a sealed case in the workspace', () => {
  it('opens each name on its own: one that does not open is null beside the rest; colleagues are named by their key', async () => {
    const dataKey = makeDataKey();
    const me = await makeHandlerKeys();
    const greta = await makeHandlerKeys();
    const myId = await keyId(me.ecdhSpki);
    const a = await sealed(dataKey, 'Kasse.xlsx', new Uint8Array(10));
    const movedId = '00000000-0000-4000-8000-0000000000cc';
    const moved = toBase64(await sealField(dataKey, fieldContext(CASE_ID, FILE_NAME_COLUMN, a.id), 'elsewhere.pdf'));
    const view: SealedView = {
      caseNumber: '1111222233334444', caseId: CASE_ID, status: 'RECEIVED', created: '2026-12-01T10:00:00.000Z', protectionOfficerId: 'A', subsidiaryId: null, epoch: 1, audit: [],
      envelopes: { details: toBase64(await sealField(dataKey, fieldContext(CASE_ID, SEALED_COLUMNS.details, ''), '{}')), whistleblower: null },
      wrap: { recipientKeyId: myId, kind: 'handler', wrap: toBase64(await sealToPublicKey(me.ecdhSpki, dataKey, { caseId: CASE_ID, epoch: 1, recipientKeyId: myId })) },
      messages: [],
      files: [
        { id: a.id, messageId: null, name: a.nameEnvelope, size: a.bytes.length, created: '2026-12-01T10:00:00.000Z' },
        { id: movedId, messageId: 'm1', name: moved, size: 100, created: '2026-12-01T11:00:00.000Z' },
      ],
    };
    const api = { json: async () => ({ handlers: [{ id: 'greta', name: 'Greta', ecdhSpki: toBase64(greta.ecdhSpki) }] }) } as unknown as ApiClient;
    const fx = sealedCaseEffects(api, { verifiedLog: async () => ({ ok: false, reason: 'x' }) as never });
    const answer = await fx.openCase(view, { ecdh: me.ecdh, ecdsa: me.ecdsa, ecdhSpki: me.ecdhSpki, ecdsaSpki: me.ecdsaSpki });
    if (answer.outcome !== 'opened') throw new Error('not opened');
    expect(answer.opened.files).toEqual([
      { id: a.id, messageId: null, created: '2026-12-01T10:00:00.000Z', sealedSize: a.bytes.length, name: 'Kasse.xlsx', size: 10 },
      { id: movedId, messageId: 'm1', created: '2026-12-01T11:00:00.000Z', sealedSize: 100, name: null, size: null },
    ]);
    expect(answer.opened.keyHolders).toEqual({ [await keyId(greta.ecdhSpki)]: 'Greta' });
  });

  it('saves a PDF through the stream to disk identical, and names the hidden data it still holds', async () => {
    const dataKey = makeDataKey();
    const doc = await PDFDocument.create();
    doc.addPage();
    doc.setAuthor('Wanda Whistle');
    const plain = await doc.save();
    const f = await sealed(dataKey, 'Bericht.pdf', plain);
    const disk = fakeDisk();
    // The hidden-data check runs in the handler's worker module (here in this process: test/helpers/check-worker.ts).
    const answer = await saveSealedFile(downloads({ [f.id]: f.bytes }), input(dataKey, opened(f, 'Bericht.pdf', plain.length)), { start: moduleWorker });
    expect(answer).toEqual({ outcome: 'saved', check: { content: 'fits', metadata: expect.arrayContaining(['author']) } });
    expect(disk.asked).toEqual(['Bericht.pdf']);
    expect(disk.closed).toBe(true);
    expect(Buffer.from(concat(...disk.written)).equals(Buffer.from(plain))).toBe(true);
  });

  it('a file larger than several chunks arrives whole; a type it does not read is "not checked"', async () => {
    const dataKey = makeDataKey();
    const plain = new Uint8Array(300_000).map((_, i) => (i * 7) % 251);
    plain.set([0x50, 0x4b, 0x03, 0x04], 0);
    const f = await sealed(dataKey, 'Tabelle.xlsx', plain);
    const disk = fakeDisk();
    expect(await saveSealedFile(downloads({ [f.id]: f.bytes }), input(dataKey, opened(f, 'Tabelle.xlsx', plain.length)))).toEqual({ outcome: 'saved', check: { content: 'fits', metadata: 'notChecked' } });
    expect(disk.written.length).toBeGreaterThan(1);
    expect(Buffer.from(concat(...disk.written)).equals(Buffer.from(plain))).toBe(true);
  });

  it('keeps nothing of a file whose content does not fit its name, or that does not open', async () => {
    const dataKey = makeDataKey();
    const notPdf = await sealed(dataKey, 'invoice.pdf', new TextEncoder().encode('MZ this is no PDF at all, but something else entirely, long enough'));
    let disk = fakeDisk();
    expect(await saveSealedFile(downloads({ [notPdf.id]: notPdf.bytes }), input(dataKey, opened(notPdf, 'invoice.pdf', 66)))).toEqual({ outcome: 'mismatch' });
    expect([disk.aborted, disk.closed]).toEqual([true, false]);

    const nul = await sealed(dataKey, 'notes.txt', Uint8Array.of(0x61, 0x00, 0x62));
    disk = fakeDisk();
    expect(await saveSealedFile(downloads({ [nul.id]: nul.bytes }), input(dataKey, opened(nul, 'notes.txt', 3)))).toEqual({ outcome: 'mismatch' });
    expect([disk.aborted, disk.closed]).toEqual([true, false]);

    const good = await sealed(dataKey, 'notes.txt', new TextEncoder().encode('plain words'));
    const altered = Uint8Array.from(good.bytes);
    altered[altered.length - 3]! ^= 1;
    disk = fakeDisk();
    expect(await saveSealedFile(downloads({ [good.id]: altered }), input(dataKey, opened(good, 'notes.txt', 11)))).toEqual({ outcome: 'unopened' });
    expect([disk.aborted, disk.closed]).toEqual([true, false]);

    const exe = await sealed(dataKey, 'run.exe', new Uint8Array(100));
    disk = fakeDisk();
    expect(await saveSealedFile(downloads({ [exe.id]: exe.bytes }), input(dataKey, opened(exe, 'run.exe', 100)))).toEqual({ outcome: 'mismatch' });
    expect(disk.closed).toBe(false);
  });

  it('a closed save dialog downloads nothing; a failed download aborts the writable', async () => {
    const dataKey = makeDataKey();
    const f = await sealed(dataKey, 'a.txt', new TextEncoder().encode('x'));
    (globalThis as { showSaveFilePicker?: unknown }).showSaveFilePicker = async () => {
      throw new DOMException('The user aborted a request.', 'AbortError');
    };
    const requested: string[] = [];
    expect(await saveSealedFile(downloads({ [f.id]: f.bytes }, requested), input(dataKey, opened(f, 'a.txt', 1)))).toEqual({ outcome: 'cancelled' });
    expect(requested).toEqual([]);
    const disk = fakeDisk();
    expect(await saveSealedFile(downloads({}), input(dataKey, opened(f, 'a.txt', 1)))).toEqual({ outcome: 'failed' });
    expect(disk.aborted).toBe(true);
  });

  it('the check alone: a head that fits passes every byte on; text is checked to its last byte', async () => {
    const check = openingCheck('p.png', 100);
    const head = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(92).fill(1));
    const out = await readAll(new Blob([head]).stream().pipeThrough(check.stream));
    expect(out).toEqual(head);
    expect((await check.result()).content).toBe('fits');
    const text = openingCheck('t.csv', null);
    await expect(readAll(new Blob([new TextEncoder().encode('a;b\n'), Uint8Array.of(0xff)]).stream().pipeThrough(text.stream))).rejects.toThrow(/ContentMismatch|t\.csv/);
  });

  it('opens the audit entries the server sealed before the case was sealed (retire-master); one that does not open is named beside the clear ones', async () => {
    const dataKey = makeDataKey();
    const server = new CaseCrypto(randomBytes(32));
    const at = '2026-11-30T09:00:00.000Z';
    const entry = { handlerId: 'h1', handlerName: 'Hanne', action: 'STATUS_CHANGED', detail: { from: 'RECEIVED', to: 'BEING_INVESTIGATED' } };
    const sealedEntry = server.sealJson(Buffer.from(dataKey), CASE_ID, 'case_audit.entry_enc', entry, at).toString('base64');
    const clear = { at: '2026-12-01T09:00:00.000Z', handlerId: 'h1', handlerName: 'Hanne', action: 'CASE_READ', detail: {} };
    expect(await openAudit(dataKey, CASE_ID, [{ at, sealed: sealedEntry }, { at: '2026-11-30T10:00:00.000Z', sealed: sealedEntry }, clear])).toEqual([
      { at, ...entry },
      // Bound to its time: moved to another entry's, it does not open.
      { at: '2026-11-30T10:00:00.000Z', unopened: true },
      clear,
    ]);
  });
});

describe('a handler file sealed for upload, range by range', () => {
  it('any split into ranges gives the same bytes, which open to the file; the sealed name carries its type', async () => {
    const { sealedSource } = await import('../../src/handler/sealedUpload.ts');
    const { openFileName, openSealedFile } = await import('../../core/crypto/index.ts');
    const dataKey = makeDataKey();
    const caseId = '00000000-0000-4000-8000-0000000000cc';
    const plain = new Uint8Array(200_000).map((_, i) => (i * 13) % 256);
    const file = Object.assign(new Blob([plain], { type: 'application/pdf' }), { name: 'Bilag.pdf' });
    const source = await sealedSource(dataKey, caseId, file);
    const total = source.size;
    const whole = await source.slice(0, total);
    expect(whole.length).toBe(total);
    for (const cuts of [[10], [27, 65_579], [100_000, 100_001, 150_000], [total - 1]]) {
      const bounds = [0, ...cuts, total];
      const parts = await Promise.all(bounds.slice(1).map((end, i) => source.slice(bounds[i]!, end)));
      expect(Buffer.from(concat(...parts)).equals(Buffer.from(whole))).toBe(true);
    }
    expect(await openFileName(dataKey, caseId, source.fileId, source.name)).toEqual({ name: 'Bilag.pdf', size: plain.length, type: 'application/pdf' });
    const opened = await readAll(openSealedFile(dataKey, { id: source.fileId, size: plain.length }, new Blob([whole as BlobPart]).stream()));
    expect(Buffer.from(opened).equals(Buffer.from(plain))).toBe(true);
  });
});
