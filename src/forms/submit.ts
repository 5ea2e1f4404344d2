/**
 * The effects the report machines name, as the browser performs them (supplied to
 * the machines with .provide() in useReportActor.ts).
 *
 * The online form's files go first as resumable uploads (src/uploads/resumable.ts,
 * tus), each with its own progress, speed and time left; the case is then created
 * with the upload ids, and takes them all or none. Without files the form goes as
 * multipart through XMLHttpRequest (the spec's call; its progress is split into
 * per-file progress by each file's place in the body). A file the server refuses for its
 * content resolves to that file (its place and name), any other failure to null:
 * the machine names the file or shows the failure dialog, and keeps the draft
 * (spec §4, §8). A 429 resolves to `{ rateLimited }` with the server's Retry-After,
 * for its own dialog.
 *
 * Every submission carries the proof-of-work the machine solved in the background
 * (src/forms/proof.ts); one that would expire in flight is replaced first.
 */
import type { ApiClient } from '../api/client.ts';
import { POW_HEADER, proofHeader } from '../../core/pow.ts';
import type { CaseReservation, DerivedSecret, NetworkFailure, ReserveOutcome, SubmitOutcome, SubmitReportInput, SuccessData } from '../../machines/report.ts';
import { solveProofOfWork } from './proof.ts';

/** The header that names a live case-number reservation (server/security/abuse.ts RESERVATION_HEADER). */
const RESERVATION_HEADER = 'x-case-reservation';
import { UPLOAD_SESSION_HEADER, forgetUploads, loadResumable, type UploadMemory } from '../uploads/memory.ts';

const ENDPOINTS = {
  online: '/api/public/case/new/by-form',
  oral: '/api/public/case/new/by-phone',
  meeting: '/api/public/case/new/by-meeting',
} as const;

function isSuccess(x: unknown): x is SuccessData {
  const dto = (x as SuccessData | null)?.caseDto;
  return typeof dto?.caseNumber === 'string' && dto.caseNumber.length > 0;
}

/** The request never reached the server: the machine says "offline, your report is kept", not "complete the form". */
export const NETWORK_FAILURE: NetworkFailure = { networkFailure: true };

/** A request that threw: a network failure unless it was cancelled. */
function thrown(signal?: AbortSignal): SubmitOutcome {
  return signal?.aborted ? null : NETWORK_FAILURE;
}

function rateLimited(retryAfter: string | null): SubmitOutcome {
  const seconds = Number(retryAfter);
  return { rateLimited: { retryAfterSeconds: Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60 } };
}

/** `files.N` of a 415 content or type refusal, as the file it names. */
export function refusedFileOf(body: string, files: readonly { name: string }[]): SubmitOutcome {
  try {
    const error = (JSON.parse(body) as { error?: { code?: string; field?: string } }).error;
    const index = Number(/^files\.(\d+)$/.exec(error?.field ?? '')?.[1] ?? NaN);
    const refusing = error?.code === 'FILE_CONTENT_MISMATCH' || error?.code === 'FORBIDDEN_FILE_TYPE';
    const file = files[index];
    return refusing && file ? { refusedFile: { index, name: file.name } } : null;
  } catch {
    return null;
  }
}

/**
 * A case number and salt for a followed case, before it is sent (issue 37): spends
 * the proof given (or one solved now). The machine derives next.
 */
export async function reserveCase(api: ApiClient, companyHost: string, given: Parameters<typeof solveProofOfWork>[1], signal?: AbortSignal): Promise<ReserveOutcome> {
  let proof;
  try {
    proof = await solveProofOfWork(api, given, signal);
  } catch {
    return typeof navigator !== 'undefined' && navigator.onLine === false ? (thrown(signal) as ReserveOutcome) : null;
  }
  try {
    const res = await fetch(api.url('/api/public/case/reservation'), {
      method: 'POST',
      headers: { accept: 'application/json', 'x-company-host': companyHost, [POW_HEADER]: proofHeader(proof) },
      signal,
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    if (res.status === 429) return rateLimited(res.headers.get('retry-after')) as ReserveOutcome;
    if (!res.ok) return null;
    const r = (await res.json().catch(() => null)) as CaseReservation | null;
    return r && typeof r.reservation === 'string' && typeof r.caseNumber === 'string' && typeof r.salt === 'string'
      ? { reservation: r.reservation, caseNumber: r.caseNumber, salt: r.salt }
      : null;
  } catch {
    return thrown(signal) as ReserveOutcome;
  }
}

/**
 * The verifier for the reserved number, derived here with core/crypto (Argon2id in
 * WebAssembly, or PBKDF2 where that cannot run); only it leaves the browser. The
 * reporter key derived beside it (non-extractable) wraps a sealed case's data key
 * (src/forms/seal.ts); the chart forgets both when the send ends.
 */
export async function deriveForCase(input: { caseNumber: string; password: string; salt: string }): Promise<DerivedSecret> {
  const { chooseKdf, deriveReporterKeys, fromBase64, toBase64 } = await import('../../core/crypto/index.ts');
  const kdf = await chooseKdf();
  const salt = fromBase64(input.salt.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((input.salt.length + 3) % 4));
  const { verifier, reporterKey } = await deriveReporterKeys({ caseNumber: input.caseNumber, password: input.password, salt, kdf });
  return { verifier: toBase64(verifier).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), kdf, reporterKey };
}

export async function submitReport(
  api: ApiClient,
  companyHost: string,
  { submission, proof: given, reportProgress }: SubmitReportInput,
  signal?: AbortSignal,
  /** The interface language, sent as Accept-Language: the server writes the reporter's mails in it. */
  language?: string,
  /** Uploads of this form's earlier tries, continued rather than sent again (src/uploads/resumable.ts). */
  memory?: UploadMemory,
): Promise<SubmitOutcome> {
  // A followed case reserved its number (issue 37): the reservation paid the budget and
  // the proof, so the case goes with it instead (X-Case-Reservation). Files still need
  // a proof for their upload session.
  const account = submission.dto.caseAccount as { reservation?: string };
  const reservation = typeof account.reservation === 'string' ? account.reservation : null;
  let proof = null;
  if (!reservation || submission.files.length) {
    try {
      proof = await solveProofOfWork(api, given, signal);
    } catch {
      // The challenge could not be fetched: offline, most likely, when the browser says so.
      return typeof navigator !== 'undefined' && navigator.onLine === false ? thrown(signal) : null;
    }
  }
  const headers: Record<string, string> = { accept: 'application/json', 'x-company-host': companyHost };
  if (reservation) headers[RESERVATION_HEADER] = reservation;
  else headers[POW_HEADER] = proofHeader(proof!);
  if (language) headers['accept-language'] = language;

  if (submission.channel !== 'online') {
    // Not through api.request: its 401/403 handler would leave the page and the draft.
    try {
      const res = await fetch(api.url(ENDPOINTS[submission.channel]), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(submission.dto),
        signal,
        credentials: 'omit',
        referrerPolicy: 'no-referrer',
      });
      if (res.status === 429) return rateLimited(res.headers.get('retry-after'));
      if (!res.ok) return null;
      const answer: unknown = await res.json().catch(() => null);
      return isSuccess(answer) ? answer : null;
    } catch {
      return thrown(signal);
    }
  }

  let dto = submission.dto;
  let multipartFiles = submission.files;
  if (submission.files.length) {
    // A new upload session spends the proof already solved; the case then needs
    // another, solved while the files go (and replaced if it grew stale meanwhile).
    // A session kept from an earlier try costs none.
    const reusing = !!memory?.session;
    const next = reusing || reservation ? Promise.resolve(proof) : solveProofOfWork(api, null, signal).catch(() => null);
    const { uploadFiles } = await loadResumable();
    const uploaded = await uploadFiles(api, companyHost, submission.files, reusing ? null : proof, reportProgress, signal, memory);
    if (!uploaded || !('ids' in uploaded)) return uploaded;
    if (!reservation) {
      try {
        proof = await solveProofOfWork(api, await next, signal);
      } catch {
        return null;
      }
      headers[POW_HEADER] = proofHeader(proof);
    }
    headers[UPLOAD_SESSION_HEADER] = uploaded.session;
    dto = { ...dto, uploads: uploaded.ids };
    multipartFiles = [];
  }

  const form = new FormData();
  const json = JSON.stringify(dto);
  form.append('caseDto', new Blob([json], { type: 'application/json' }));
  for (const file of multipartFiles) form.append('files', file as File, file.name);

  // Where each file's bytes start in the body (the JSON part comes first).
  const starts: number[] = [];
  let offset = json.length;
  for (const f of multipartFiles) {
    starts.push(offset);
    offset += f.size;
  }

  return new Promise<SubmitOutcome>((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', api.url(ENDPOINTS.online));
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.withCredentials = false;
    xhr.upload.onprogress = (e) => {
      multipartFiles.forEach((f, index) => {
        const loaded = Math.max(0, Math.min(f.size, e.loaded - starts[index]!));
        reportProgress({ type: 'upload.progress', index, loaded, total: f.size });
      });
    };
    xhr.onload = () => {
      // A case was made, or the session can make none: its uploads are not to be reused.
      if ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 401 || xhr.status === 409) forgetUploads(memory);
      if (xhr.status === 429) return resolve(rateLimited(xhr.getResponseHeader('retry-after')));
      if (xhr.status < 200 || xhr.status >= 300) return resolve(refusedFileOf(xhr.responseText, multipartFiles));
      try {
        const answer: unknown = JSON.parse(xhr.responseText);
        resolve(isSuccess(answer) ? answer : null);
      } catch {
        resolve(null);
      }
    };
    // No answer at all: the connection, not the form.
    xhr.onerror = () => resolve(signal?.aborted ? null : NETWORK_FAILURE);
    xhr.onabort = () => resolve(null);
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
