/**
 * The company editor's calls (server/routes/company-editor.ts), as the effects its
 * chart names (machines/admin/companyEditor.ts). Every answer comes back as
 * `{ status, data?, code?, field? }` so the chart decides, never this file.
 */
import { ApiError, type ApiClient } from '../../api/client.ts';
import type { Answer, EditorData, VersionSummary } from '../../../machines/admin/companyEditor.ts';
import type { Draft, ImageRef, Path } from '../../../machines/admin/companyDraft.ts';

async function answer<T>(run: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') {
      // The file's refusals name the field first: "lookAndFeel.da.siteFrontPage.heading: must not be empty".
      const field = err.code === 'INVALID_COMPANY_FILE' ? /^([\w.$()-]+):/.exec(err.message)?.[1] : undefined;
      return { status: err.status, code: err.code, field };
    }
    throw err;
  }
}

export function companyEditorApi(api: ApiClient) {
  const base = (companyId: string) => `/api/admin/companies/${encodeURIComponent(companyId)}`;
  return {
    loadEditor: (companyId: string) => answer(() => api.json<EditorData>(`${base(companyId)}/editor`)),
    saveDraft: (companyId: string, baseVersion: number, draft: Draft) =>
      answer(() => api.json<{ version: number }>(`${base(companyId)}/settings`, { method: 'PUT', body: { baseVersion, file: draft.file, images: draft.images } })),
    createPreview: (companyId: string, draft: Draft) => answer(() => api.json<{ id: string }>(`${base(companyId)}/preview`, { method: 'POST', body: draft })),
    uploadImage: async (companyId: string, contentType: string, base64: string, path: Path) => {
      const r = await answer(() => api.json<ImageRef & { file: string }>(`${base(companyId)}/images`, { method: 'POST', body: { contentType, base64 } }));
      return r.data ? { ...r, data: { ...r.data, path } } : { ...r, data: undefined };
    },
    loadVersions: (companyId: string) => answer(() => api.json<{ versions: VersionSummary[] }>(`${base(companyId)}/versions`)),
    revertVersion: (companyId: string, baseVersion: number, version: number) =>
      answer(() => api.json<{ version: number }>(`${base(companyId)}/versions/${version}/revert`, { method: 'POST', body: { baseVersion } })),
    importBundle: (companyId: string, baseVersion: number, bundle: unknown) =>
      answer(() => api.json<{ version: number }>(`${base(companyId)}/import`, { method: 'POST', body: { ...(bundle && typeof bundle === 'object' ? bundle : { file: null }), baseVersion } })),
    previewUrl: (companyId: string, previewId: string, language: string) => api.url(`${base(companyId)}/preview/${previewId}/${language}`),
    imageUrl: (companyId: string, sha256: string) => api.url(`${base(companyId)}/images/${sha256}`),
    exportUrl: (companyId: string) => api.url(`${base(companyId)}/export`),
  };
}
