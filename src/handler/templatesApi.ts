/**
 * Reply templates' calls (docs/decisions/reply-templates.md): the handlers' read and the
 * administrators' list, save and removal, as the effects machines/handler/templatePicker.ts
 * and machines/admin/templates.ts name. Every answer comes back as `{ status, … }` so the
 * charts decide, never this file.
 */
import { ApiError, type ApiClient } from '../api/client.ts';
import type { TemplatesAnswer } from '../../machines/handler/templatePicker.ts';
import type { TemplateActAnswer, TemplateDraft, TemplatesListAnswer } from '../../machines/admin/templates.ts';

async function call<T>(run: () => Promise<T>, ok = 200): Promise<{ status: number; data?: T; code?: string }> {
  try {
    return { status: ok, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
    throw err;
  }
}

/** The handler's company's templates (GET /api/handler/templates). */
export async function loadHandlerTemplates(api: ApiClient): Promise<TemplatesAnswer> {
  const r = await call(() => api.json<Omit<TemplatesAnswer, 'status'>>('/api/handler/templates'));
  return { status: r.status, ...r.data };
}

/** `company`: an id or one of its host names, as the administration's routes take it. */
export function templatesAdminApi(api: ApiClient, company: string) {
  const base = `/api/admin/companies/${encodeURIComponent(company)}/templates`;
  return {
    load: async (): Promise<TemplatesListAnswer> => {
      const r = await call(() => api.json<Omit<TemplatesListAnswer, 'status'>>(base));
      return { status: r.status, ...r.data };
    },
    save: async (draft: TemplateDraft): Promise<TemplateActAnswer> => {
      const body = { name: draft.name, texts: draft.texts };
      const r = draft.id
        ? await call(() => api.json(`${base}/${encodeURIComponent(draft.id!)}`, { method: 'PUT', body }))
        : await call(() => api.json(base, { method: 'POST', body }), 201);
      return { status: r.status, code: r.code };
    },
    remove: async ({ id }: { id: string }): Promise<TemplateActAnswer> => {
      const r = await call(() => api.json(`${base}/${encodeURIComponent(id)}`, { method: 'DELETE' }), 204);
      return { status: r.status, code: r.code };
    },
  };
}
