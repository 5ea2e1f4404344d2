/**
 * The effects the report machines name, as the browser performs them (supplied to
 * the machines with .provide() in useReportActor.ts).
 *
 * The online form goes as multipart through XMLHttpRequest, because only XHR
 * reports upload progress; the progress of the whole body is split into per-file
 * progress by each file's place in the body. A file the server refuses for its
 * content resolves to that file (its place and name), any other failure to null:
 * the machine names the file or shows the failure dialog, and keeps the draft.
 */
import type { ApiClient } from '../api/client.ts';
import type { SubmitReportInput, SubmitResult, SuccessData } from '../../machines/report.ts';

const ENDPOINTS = {
  online: '/api/public/case/new/by-form',
  oral: '/api/public/case/new/by-phone',
  meeting: '/api/public/case/new/by-meeting',
} as const;

function isSuccess(x: unknown): x is SuccessData {
  const dto = (x as SuccessData | null)?.caseDto;
  return typeof dto?.caseNumber === 'string' && dto.caseNumber.length > 0;
}

/** `files.N` of a 415 content or type refusal, as the file it names. */
export function refusedFileOf(body: string, files: readonly { name: string }[]): SubmitResult {
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

export async function submitReport(
  api: ApiClient,
  companyHost: string,
  { submission, reportProgress }: SubmitReportInput,
  signal?: AbortSignal,
): Promise<SubmitResult> {
  if (submission.channel !== 'online') {
    try {
      const answer = await api.json<unknown>(ENDPOINTS[submission.channel], { method: 'POST', body: submission.dto, signal });
      return isSuccess(answer) ? answer : null;
    } catch {
      return null;
    }
  }

  const form = new FormData();
  const json = JSON.stringify(submission.dto);
  form.append('caseDto', new Blob([json], { type: 'application/json' }));
  for (const file of submission.files) form.append('files', file as File, file.name);

  // Where each file's bytes start in the body (the JSON part comes first).
  const starts: number[] = [];
  let offset = json.length;
  for (const f of submission.files) {
    starts.push(offset);
    offset += f.size;
  }

  return new Promise<SubmitResult>((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', api.url(ENDPOINTS.online));
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('x-company-host', companyHost);
    xhr.withCredentials = false;
    xhr.upload.onprogress = (e) => {
      submission.files.forEach((f, index) => {
        const loaded = Math.max(0, Math.min(f.size, e.loaded - starts[index]!));
        reportProgress({ type: 'upload.progress', index, loaded, total: f.size });
      });
    };
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) return resolve(refusedFileOf(xhr.responseText, submission.files));
      try {
        const answer: unknown = JSON.parse(xhr.responseText);
        resolve(isSuccess(answer) ? answer : null);
      } catch {
        resolve(null);
      }
    };
    xhr.onerror = () => resolve(null);
    xhr.onabort = () => resolve(null);
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
