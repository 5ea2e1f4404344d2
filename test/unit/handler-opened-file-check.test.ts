/**
 * The hidden-data check of a sealed file the handler's browser opened, in its own
 * worker (src/handler/openedFileCheck.ts, openedFileCheck.worker.ts, fileOpening.ts
 * `checkHiddenDataInWorker`): the verdicts the parsers give (kinds found, not checked,
 * could not be checked for the 2 KB and 8 KB flate bombs); the real worker module answers
 * them with the bytes transferred, not copied, and is ended after; a worker that never
 * answers is ended at the time limit, one that fails or answers out of shape is
 * "could not be checked", and the file is saved all the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { concat, makeDataKey, sealFileForUpload } from '../../core/crypto/index.ts';
import { hiddenDataVerdict, readVerdict } from '../../src/handler/openedFileCheck.ts';
import { checkHiddenDataInWorker, openingCheck, saveSealedFile, METADATA_CHECK_MAX } from '../../src/handler/fileOpening.ts';
import type { FileSaveInput } from '../../machines/handler/sealedCase.ts';
import type { ApiClient } from '../../src/api/client.ts';
import { flateBombPdf, jpegWithExif, pdfWithAuthor } from '../fixtures/metadata-files.ts';
import { answeringWorker, failingWorker, hangingWorker, moduleWorker, type TestWorker } from '../helpers/check-worker.ts';

const CASE_ID = '00000000-0000-4000-8000-0000000000dd';

/** Keeps the workers a test started, to look at them after. */
function recording(start: () => Promise<TestWorker>) {
  const started: TestWorker[] = [];
  return {
    started,
    start: async () => {
      const w = await start();
      started.push(w);
      return w;
    },
  };
}

describe('the verdicts of the opened-file check', () => {
  it('names the kinds a JPEG and a PDF hold, none for a clean PDF, and leaves other bytes not checked', async () => {
    expect(await hiddenDataVerdict(jpegWithExif())).toEqual(expect.arrayContaining(['location', 'device', 'serialNumber', 'author']));
    expect(await hiddenDataVerdict(await pdfWithAuthor())).toEqual(expect.arrayContaining(['author', 'software']));
    expect(await hiddenDataVerdict(new TextEncoder().encode('plain words'))).toBe('notChecked');
  });

  it('ends the 2 KB and 8 KB flate bombs at the inflate cap as could not be checked', async () => {
    for (const streams of [1, 4]) expect(await hiddenDataVerdict(await flateBombPdf(streams))).toBe('couldNotCheck');
  });

  it('reads only a verdict of its shape from a worker; anything else is could not be checked', () => {
    expect(readVerdict({ metadata: ['software', 'author'] })).toEqual(['author', 'software']);
    expect(readVerdict({ metadata: [] })).toEqual([]);
    expect(readVerdict({ metadata: 'notChecked' })).toBe('notChecked');
    for (const odd of [null, 'author', {}, { metadata: ['<script>'] }, { metadata: [1] }, { metadata: 'checked' }]) expect(readVerdict(odd)).toBe('couldNotCheck');
  });
});

describe('the check in its worker', () => {
  it('the worker module answers the verdict; the bytes move to it (the page holds none after) and it is ended', async () => {
    // A buffer of exactly the file, as the opening check's copy is (concat).
    const pdf = new Uint8Array(await pdfWithAuthor());
    const length = pdf.length;
    const w = recording(moduleWorker);
    expect(await checkHiddenDataInWorker(pdf, { start: w.start })).toEqual(expect.arrayContaining(['author', 'software']));
    expect(pdf.byteLength).toBe(0);
    expect(w.started).toHaveLength(1);
    expect(w.started[0]!.terminated).toBe(true);
    const [request] = w.started[0]!.received as { bytes: ArrayBuffer }[];
    expect(Object.keys(request!)).toEqual(['bytes']);
    expect(request!.bytes.byteLength).toBe(length);
  });

  it('the worker module names a flate bomb could not be checked', async () => {
    const w = recording(moduleWorker);
    expect(await checkHiddenDataInWorker(await flateBombPdf(4), { start: w.start })).toBe('couldNotCheck');
    expect(w.started[0]!.terminated).toBe(true);
  });

  it('sends only the file\'s bytes when they are a view of a larger buffer', async () => {
    const pdf = await pdfWithAuthor();
    const inside = new Uint8Array(pdf.length + 20);
    inside.set(pdf, 10);
    const w = recording(moduleWorker);
    expect(await checkHiddenDataInWorker(inside.subarray(10, 10 + pdf.length), { start: w.start })).toEqual(expect.arrayContaining(['author']));
    expect((w.started[0]!.received[0] as { bytes: ArrayBuffer }).bytes.byteLength).toBe(pdf.length);
  });

  it('ends a check that does not answer within the limit, as could not be checked', async () => {
    const w = recording(hangingWorker);
    expect(await checkHiddenDataInWorker(await pdfWithAuthor(), { start: w.start, timeLimitMs: 50 })).toBe('couldNotCheck');
    expect(w.started[0]!.terminated).toBe(true);
  });

  it('a worker that fails, answers out of shape, or cannot be started gives could not be checked', async () => {
    const failing = recording(failingWorker);
    expect(await checkHiddenDataInWorker(await pdfWithAuthor(), { start: failing.start })).toBe('couldNotCheck');
    expect(failing.started[0]!.terminated).toBe(true);
    expect(await checkHiddenDataInWorker(await pdfWithAuthor(), { start: answeringWorker({ metadata: ['x'.repeat(5000)] }) })).toBe('couldNotCheck');
    expect(await checkHiddenDataInWorker(await pdfWithAuthor(), { start: async () => Promise.reject(new Error('does not match its digest')) })).toBe('couldNotCheck');
  });

  it('the opening check starts no worker for a type or a size it does not read', async () => {
    let asked = 0;
    const ask = async () => (asked++, [] as string[]);
    const xlsx = Uint8Array.of(0x50, 0x4b, 0x03, 0x04, ...new Array<number>(60).fill(0));
    const pdf = await pdfWithAuthor();
    for (const [name, size, bytes] of [['Tabelle.xlsx', xlsx.length, xlsx], ['Gross.pdf', METADATA_CHECK_MAX + 1, pdf]] as const) {
      const check = openingCheck(name, size, ask);
      for await (const _ of new Blob([bytes as BlobPart]).stream().pipeThrough(check.stream) as unknown as AsyncIterable<Uint8Array>) void _;
      expect(await check.result()).toEqual({ content: 'fits', metadata: 'notChecked' });
    }
    expect(asked).toBe(0);
    // The same PDF at its own size is handed over.
    const check = openingCheck('Klein.pdf', pdf.length, ask);
    for await (const _ of new Blob([pdf as BlobPart]).stream().pipeThrough(check.stream) as unknown as AsyncIterable<Uint8Array>) void _;
    expect(await check.result()).toEqual({ content: 'fits', metadata: [] });
    expect(asked).toBe(1);
  });
});

describe('a file whose check does not end', () => {
  afterEach(() => delete (globalThis as { showSaveFilePicker?: unknown }).showSaveFilePicker);

  it('is saved identical, named could not be checked', async () => {
    const dataKey = makeDataKey();
    const plain = await flateBombPdf(1);
    const up = await sealFileForUpload(dataKey, CASE_ID, new Blob([plain as BlobPart]), { name: 'Bombe.pdf' });
    const parts: Uint8Array[] = [];
    for await (const p of up.stream as unknown as AsyncIterable<Uint8Array>) parts.push(p);
    const body = concat(...parts);
    const written: Uint8Array[] = [];
    let closed = false;
    (globalThis as { showSaveFilePicker?: unknown }).showSaveFilePicker = async () => ({
      createWritable: async () => new WritableStream<Uint8Array>({ write: (c) => void written.push(c.slice()), close: () => void (closed = true) }),
    });
    const api = { request: async () => new Response(body as BodyInit) } as unknown as ApiClient;
    const input: FileSaveInput = { caseNumber: '1111222233334444', caseId: CASE_ID, dataKey, toDisk: true, file: { id: up.fileId, messageId: null, created: '2026-12-01T10:00:00.000Z', sealedSize: body.length, name: 'Bombe.pdf', size: plain.length } };
    const w = recording(hangingWorker);
    expect(await saveSealedFile(api, input, { start: w.start, timeLimitMs: 50 })).toEqual({ outcome: 'saved', check: { content: 'fits', metadata: 'couldNotCheck' } });
    expect(closed).toBe(true);
    expect(Buffer.from(concat(...written)).equals(Buffer.from(plain))).toBe(true);
    expect(w.started[0]!.terminated).toBe(true);
  });
});
