/**
 * A handler's file for a sealed case's message, sealed here and sent by tus as
 * ciphertext (docs/decisions/sealed-cases.md "Sealed files"): core/crypto's
 * `SealedFileSource`, as the report form sends its files (padded to `paddedSize`,
 * sealed chunk by chunk under the file's subkey of the case's data key, its name, true
 * size and type sealed as one field), into a sealed upload session of this case.
 *
 * Why ranges sealed on demand rather than one sealing stream: tus-js-client asks for
 * byte ranges, again after a lost connection, and a chunk sealed twice under the same
 * header and index is the same bytes, so an upload resumes where the server's offset
 * says without holding the file or re-sealing it all. At most one request's bytes
 * (CHUNK_BYTES) are in memory.
 */
import { Upload } from 'tus-js-client';
import { SealedFileSource } from '../../core/crypto/index.ts';
import { UPLOADS_PATH, UPLOAD_SESSION_HEADER } from '../../core/uploads.ts';
import { contentMatches, FILE_HEAD_BYTES, TEXT_SAMPLE_BYTES, fileExtension, isTextExtension } from '../../machines/schema.ts';
import { ApiError, type ApiClient } from '../api/client.ts';

const CHUNK_BYTES = 8 * 1024 * 1024;
const RETRY_DELAYS = [0, 1000, 3000, 5000, 10_000, 20_000, 30_000, 60_000];
const noStorage = { findAllUploads: async () => [], findUploadsByFingerprint: async () => [], removeUpload: async () => {}, addUpload: async () => '' };

/** `file` sealed for case `caseId` under `dataKey` (the newest epoch's), its name and type in the sealed name. */
export function sealedSource(dataKey: Uint8Array, caseId: string, file: Blob & { name: string; type?: string }): Promise<SealedFileSource> {
  return SealedFileSource.create(dataKey, caseId, file, { name: file.name, type: file.type });
}

/** Seals `file` (under the newest epoch's `dataKey`) for case `caseId` and uploads it in `session`; resolves with its file id (the upload's id), or null. */
export async function uploadSealedFile(api: ApiClient, session: string, dataKey: Uint8Array, caseId: string, file: Blob & { name: string; type?: string }): Promise<string | null> {
  const sealed = await sealedSource(dataKey, caseId, file);
  const { fileId, name, size } = sealed;
  const source = {
    size,
    slice: async (start: number, end: number) => ({ value: new Blob([(await sealed.slice(start, end)) as BlobPart]), done: end >= size }),
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

const numberPath = (n: string) => encodeURIComponent(n.replace(/\D/g, ''));

/**
 * A handler's files for a sealed case, whatever takes them (a message, an internal
 * note): each checked against its name as the reporter's form checks, then a sealed
 * upload session of the case opened and each file sealed and uploaded in it. Answers
 * the session and the upload ids to name in the call that takes them; `status` 415: a
 * file does not fit its name (nothing uploaded); 0: an upload failed; else the
 * session's refusal.
 */
export async function uploadSealedFiles(
  api: ApiClient,
  input: { caseNumber: string; caseId: string; dataKey: Uint8Array },
  files: readonly (Blob & { name: string; type?: string })[],
): Promise<{ status: number; session?: string; uploads: string[] }> {
  for (const f of files) {
    const text = isTextExtension(fileExtension(f.name));
    const sample = new Uint8Array(await f.slice(0, text ? TEXT_SAMPLE_BYTES : FILE_HEAD_BYTES).arrayBuffer());
    if (!contentMatches(f.name, sample, sample.length >= f.size)) return { status: 415, uploads: [] };
  }
  let session: string;
  try {
    session = (await api.json<{ uploadSession: string }>(`/api/handler/cases/${numberPath(input.caseNumber)}/upload-sessions`, { method: 'POST' })).uploadSession;
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, uploads: [] };
    throw err;
  }
  const uploads: string[] = [];
  for (const f of files) {
    const id = await uploadSealedFile(api, session, input.dataKey, input.caseId, f);
    if (!id) return { status: 0, uploads: [] };
    uploads.push(id);
  }
  return { status: 200, session, uploads };
}
