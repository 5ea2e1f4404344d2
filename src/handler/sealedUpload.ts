/**
 * A handler's file for a sealed case's message, sealed here and sent by tus as
 * ciphertext (docs/decisions/sealed-cases.md "Sealed files"): padded to `paddedSize`,
 * sealed chunk by chunk under the file's subkey of the case's data key, its name and true
 * size sealed as one field, into a sealed upload session of this case.
 *
 * Why chunks sealed on demand (FileChunkSealer, one header per file) rather than one
 * sealing stream: tus-js-client asks for byte ranges, again after a lost connection, and
 * a chunk sealed twice under the same header and index is the same bytes, so an upload
 * resumes where the server's offset says without holding the file or re-sealing it all.
 * At most one request's bytes (CHUNK_BYTES) are in memory.
 */
import { Upload } from 'tus-js-client';
import { FileChunkSealer, FILE_CHUNK, TAG_BYTES, paddedSize, sealedFileSize, sealFileName } from '../../core/crypto/index.ts';
import { UPLOADS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';
import type { ApiClient } from '../api/client.ts';

const CHUNK_BYTES = 8 * 1024 * 1024;
const BLOCK = FILE_CHUNK + TAG_BYTES;
const RETRY_DELAYS = [0, 1000, 3000, 5000, 10_000, 20_000, 30_000, 60_000];
const noStorage = { findAllUploads: async () => [], findUploadsByFingerprint: async () => [], removeUpload: async () => {}, addUpload: async () => '' };

/** The sealed file's bytes [start, end), made from the plain file's chunks that cover them. */
export async function sealedRange(sealer: FileChunkSealer, file: Blob, padded: number, start: number, end: number): Promise<Uint8Array> {
  const header = sealer.header;
  const total = sealedFileSize(padded);
  end = Math.min(end, total);
  const out = new Uint8Array(Math.max(0, end - start));
  let at = 0;
  if (start < header.length) {
    const h = header.subarray(start, Math.min(end, header.length));
    out.set(h, 0);
    at = h.length;
  }
  const chunks = Math.max(1, Math.ceil(padded / FILE_CHUNK));
  const first = Math.floor(Math.max(0, start - header.length) / BLOCK);
  for (let i = first; i < chunks && header.length + i * BLOCK < end; i++) {
    const from = i * FILE_CHUNK;
    const to = Math.min(from + FILE_CHUNK, padded);
    const plain = new Uint8Array(to - from);
    if (from < file.size) plain.set(new Uint8Array(await file.slice(from, Math.min(to, file.size)).arrayBuffer()), 0);
    const block = await sealer.seal(i, plain, i === chunks - 1);
    const blockStart = header.length + i * BLOCK;
    const piece = block.subarray(Math.max(0, start - blockStart), Math.min(block.length, end - blockStart));
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** Seals `file` for case `caseId` and uploads it in `session`; resolves with its file id (the upload's id), or null. */
export async function uploadSealedFile(api: ApiClient, session: string, dataKey: Uint8Array, caseId: string, file: Blob & { name: string }): Promise<string | null> {
  const fileId = globalThis.crypto.randomUUID();
  const padded = paddedSize(file.size);
  const sealer = await FileChunkSealer.create(dataKey, fileId);
  const size = sealedFileSize(padded);
  const name = await sealFileName(dataKey, caseId, fileId, { name: file.name, size: file.size });
  const source = {
    size,
    slice: async (start: number, end: number) => ({ value: new Blob([(await sealedRange(sealer, file, padded, start, end)) as BlobPart]), done: end >= size }),
    close: () => {},
  };
  return new Promise((resolve) => {
    const upload = new Upload(file, {
      endpoint: api.url(UPLOADS_PATH),
      headers: { [UPLOAD_SESSION_HEADER]: session },
      metadata: { fileId, name },
      uploadSize: size,
      chunkSize: CHUNK_BYTES,
      retryDelays: RETRY_DELAYS,
      fileReader: { openFile: async () => source },
      fingerprint: async () => null as unknown as string,
      storeFingerprintForResuming: false,
      urlStorage: noStorage,
      onSuccess: () => resolve(fileId),
      onError: () => resolve(null),
    });
    upload.start();
  });
}
