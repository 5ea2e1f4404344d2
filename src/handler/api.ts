/**
 * The handlers' workspace calls, as the effects its machines name (machines/handler/).
 * One API client (src/api/client.ts) sending the same-origin session cookie; every
 * answer comes back as `{ status, … }` so the charts decide, never this file.
 */
import { ApiError, type ApiClient } from '../api/client.ts';
import type { SessionAnswer, Credentials, HandlerProfile } from '../../machines/handler/session.ts';
import type { EnrolmentFinish, EnrolmentOpening } from '../../machines/handler/enrolment.ts';
import type { InboxAnswer, InboxCase, InboxRequest } from '../../machines/handler/inbox.ts';
import type { CaseAnswer, HandlerCaseView } from '../../machines/handler/case.ts';
import { fromCallback } from 'xstate';
import type { ComposerDraft, ComposerEvent } from '../../machines/handler/composer.ts';
import type { CaseExportDto, CaseStatus } from '../../machines/schema.ts';
import type { AssignmentAct, AssignmentAnswer, AssignmentView } from '../../machines/handler/assignment.ts';
import type { HandlerKeysApi } from './keys.ts';
import type { LatestAnswer, SaveAnswer } from '../../machines/handler/recordEditor.ts';
import { forgetSearchIndex } from './searchIndex.ts';

const numberPath = (n: string) => encodeURIComponent(n.replace(/\D/g, ''));

/** The answer's status and JSON, or the ApiError's status and code; network failures throw. */
async function call<T>(run: () => Promise<T>): Promise<{ status: number; data?: T; code?: string }> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
    throw err;
  }
}

export function handlerApi(api: ApiClient, keys: HandlerKeysApi) {
  const session = async (run: () => Promise<{ handler: HandlerProfile; signIn?: { failedSignIns: number } }>): Promise<SessionAnswer> => {
    const r = await call(run);
    return { status: r.status, handler: r.data ? { ...r.data.handler, ...(r.data.signIn ? { failedSignIns: r.data.signIn.failedSignIns } : {}) } : undefined };
  };
  return {
    /** The client itself, for the administration's own calls (src/handler/admin). */
    client: api,
    checkSession: () => session(() => api.json('/api/handler/session')),
    /** Derives in the page: the server gets the verifier (core/crypto), and the keys open in the same step. */
    signIn: (c: Credentials) => keys.signIn(c),
    refreshSession: () => session(() => api.json('/api/handler/session/refresh', { method: 'POST' })),
    signOut: async () => {
      forgetSearchIndex();
      await api.request('/api/handler/session', { method: 'DELETE' }).catch(() => undefined);
    },
    openEnrolment: async (code: string): Promise<EnrolmentOpening> => {
      const r = await call(() => api.json<Omit<EnrolmentOpening, 'status'>>('/api/handler/enrolment/start', { method: 'POST', body: { code } }));
      return { status: r.status, ...r.data };
    },
    /** The keys are made and sealed here first; the password itself is never sent. */
    finishEnrolment: async (input: { code: string; password: string; totpCode: string }): Promise<EnrolmentFinish> => {
      const made = await keys.enrolmentKeys(input.password);
      const r = await call(() => api.json<{ recoveryCodes: string[] }>('/api/handler/enrolment/finish', { method: 'POST', body: { code: input.code, keys: made.bundle, totpCode: input.totpCode } }));
      return { status: r.status, code: r.code, recoveryCodes: r.data?.recoveryCodes, keyRecoveryCode: r.status === 200 ? made.keyRecoveryCode : undefined };
    },
    /** One page; the filters go to the server, which applies them before paging. */
    loadInbox: async (req: InboxRequest): Promise<InboxAnswer> => {
      const q = new URLSearchParams();
      if (req.status !== 'ALL') q.set('status', req.status);
      if (req.channel !== 'ALL') q.set('channel', req.channel);
      const digits = req.search.replace(/\D/g, '');
      if (digits) q.set('search', digits);
      if (req.assigned !== 'ALL') q.set('assigned', req.assigned);
      if (req.openOnly) q.set('open', 'true');
      if (req.cursor) q.set('cursor', req.cursor);
      const query = q.toString();
      const r = await call(() => api.json<{ cases: InboxCase[]; nextCursor: string | null }>(`/api/handler/cases${query ? `?${query}` : ''}`));
      return { status: r.status, cases: r.data?.cases, nextCursor: r.data?.nextCursor ?? null };
    },
    loadCase: async (caseNumber: string): Promise<CaseAnswer> => {
      const r = await call(() => api.json<HandlerCaseView>(`/api/handler/cases/${numberPath(caseNumber)}`));
      return { status: r.status, view: r.data, code: r.code };
    },
    changeStatus: async (caseNumber: string, status: CaseStatus): Promise<CaseAnswer> => {
      const r = await call(() => api.json<HandlerCaseView>(`/api/handler/cases/${numberPath(caseNumber)}/status`, { method: 'PUT', body: { status } }));
      return { status: r.status, view: r.data };
    },
    /** The message upload with progress, through XMLHttpRequest (fetch reports no upload progress); the cookie goes along (same origin). */
    sendMessageActor: (caseNumber: string, touch: () => void) =>
      fromCallback<ComposerEvent, ComposerDraft>(({ input, sendBack }) => {
        const xhr = new XMLHttpRequest();
        const fd = new FormData();
        fd.append('messageDto', JSON.stringify({ message: input.text.trim(), type: input.type, answerWanted: input.answerWanted }));
        for (const f of input.files) fd.append('files', f, f.name);
        xhr.open('POST', api.url(`/api/handler/cases/${numberPath(caseNumber)}/messages`));
        xhr.withCredentials = true;
        xhr.setRequestHeader('accept', 'application/json');
        xhr.upload.onprogress = (e) => sendBack({ type: 'upload.progress', loaded: e.loaded, total: e.lengthComputable ? e.total : 0 });
        xhr.onload = () => {
          if (xhr.status >= 200 && xhr.status < 300) touch();
          sendBack({ type: 'upload.done', status: xhr.status });
        };
        xhr.onerror = () => sendBack({ type: 'upload.done', status: 0 });
        xhr.send(fd);
        return () => {
          if (xhr.readyState !== XMLHttpRequest.DONE) xhr.abort();
        };
      }),
    /** `baseVersion`: the version the text was written on; another's save since is 409 RECORD_VERSION_CONFLICT. */
    saveRecord: async (caseNumber: string, text: string, baseVersion: number): Promise<SaveAnswer> => {
      const r = await call(() => api.json(`/api/handler/cases/${numberPath(caseNumber)}/report`, { method: 'PUT', body: { text, baseVersion } }));
      return { status: r.status, code: r.code };
    },
    /** The record's latest version as the server has it now (the other writer's, after a conflict). */
    loadLatestRecord: async (caseNumber: string): Promise<LatestAnswer> => {
      const r = await call(() => api.json<HandlerCaseView>(`/api/handler/cases/${numberPath(caseNumber)}`));
      const v = r.data?.report?.versions?.at(-1);
      return { status: r.status === 200 && !v ? 0 : r.status, latest: v && { version: v.version, text: v.text, author: v.author ?? null, createdAt: v.createdAt } };
    },
    /** A voice file's transcript (issue 40): the record's save on the file's path, with the same conflict. */
    saveTranscript: async (caseNumber: string, fileId: string, text: string, baseVersion: number): Promise<SaveAnswer> => {
      const r = await call(() => api.json(`/api/handler/cases/${numberPath(caseNumber)}/files/${encodeURIComponent(fileId)}/transcript`, { method: 'PUT', body: { text, baseVersion } }));
      return { status: r.status, code: r.code };
    },
    loadLatestTranscript: async (caseNumber: string, fileId: string): Promise<LatestAnswer> => {
      const r = await call(() => api.json<HandlerCaseView & { transcripts?: { fileId: string; versions: { version: number; text: string; author?: string | null; createdAt: string }[] }[] }>(`/api/handler/cases/${numberPath(caseNumber)}`));
      const v = r.data?.transcripts?.find((x) => x.fileId === fileId)?.versions.at(-1);
      return { status: r.status === 200 && !v ? 0 : r.status, latest: v && { version: v.version, text: v.text, author: v.author ?? null, createdAt: v.createdAt } };
    },
    /** The approved version as the server writes it (a text file; the server audits the download). */
    recordUrl: (caseNumber: string, version: number) => api.url(`/api/handler/cases/${numberPath(caseNumber)}/record/${version}/approved`),
    /** Asks the server to record an export in the audit trail (parts and a count, no content); 201 when recorded. */
    recordExport: async (caseNumber: string, body: CaseExportDto): Promise<{ status: number; code?: string }> => {
      try {
        const res = await api.request(`/api/handler/cases/${numberPath(caseNumber)}/exports`, { method: 'POST', body });
        return { status: res.status };
      } catch (err) {
        if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
        throw err;
      }
    },
    /** One file's bytes, for the export's hash and zip (the server audits the download). */
    fileBytes: async (caseNumber: string, fileId: string): Promise<Uint8Array> =>
      new Uint8Array(await (await api.request(`/api/handler/cases/${numberPath(caseNumber)}/files/${encodeURIComponent(fileId)}`)).arrayBuffer()),
    loadAssignment: async (caseNumber: string): Promise<AssignmentAnswer> => {
      const r = await call(() => api.json<AssignmentView>(`/api/handler/cases/${numberPath(caseNumber)}/assignment`));
      return { status: r.status, assignment: r.data, code: r.code };
    },
    /** Assign, hand over, unassign, share or stop sharing (server/handlers/assignment.ts). */
    changeAssignment: async (caseNumber: string, act: AssignmentAct): Promise<AssignmentAnswer> => {
      const base = `/api/handler/cases/${numberPath(caseNumber)}`;
      const r = await call(() => {
        if (act.kind === 'assign') return api.json<AssignmentView>(`${base}/assignee`, { method: 'PUT', body: { handlerId: act.handlerId } });
        if (act.kind === 'unassign') return api.json<AssignmentView>(`${base}/assignee`, { method: 'PUT', body: { handlerId: null } });
        if (act.kind === 'share') return api.json<AssignmentView>(`${base}/shares`, { method: 'POST', body: { handlerId: act.handlerId } });
        return api.json<AssignmentView>(`${base}/shares/${encodeURIComponent(act.handlerId)}`, { method: 'DELETE' });
      });
      return { status: r.status, assignment: r.data, code: r.code };
    },
    fileUrl: (caseNumber: string, fileId: string) => api.url(`/api/handler/cases/${numberPath(caseNumber)}/files/${encodeURIComponent(fileId)}`),
  };
}

export type HandlerApi = ReturnType<typeof handlerApi>;
