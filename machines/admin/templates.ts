/**
 * A company administrator's reply templates (issue 38 Build 7,
 * docs/decisions/reply-templates.md): the list, a new template or an edit of one (a
 * name and one text per language of the company), checked by the shared rules
 * (machines/schema.ts `replyTemplateIssues`) on every change, and removing one through
 * a confirmation.
 *
 * Invariants:
 * - `saving` only from `editing` with a draft the shared rules accept.
 * - `deleting` only from `confirmingDelete`, for the template that was confirmed.
 * - A refused or failed save keeps the draft in `editing`; a save or a removal reloads
 *   the list.
 * - A 401 anywhere reports `reportUnauthorized` (the session chart signs out) and ends
 *   `failed`.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { replyTemplateIssues, type Language, type ReplyTemplate, type ReplyTemplateDraft } from '../schema.ts';

export interface TemplatesListAnswer {
  status: number;
  templates?: ReplyTemplate[];
  languages?: Language[];
  defaultLanguage?: Language;
}

/** A save's or a removal's answer: the HTTP status and, when refused, the error code. */
export interface TemplateActAnswer {
  status: number;
  code?: string;
}

export interface TemplateDraft extends ReplyTemplateDraft {
  /** null: a new template. */
  id: string | null;
}

export interface TemplatesContext {
  templates: ReplyTemplate[];
  languages: Language[];
  defaultLanguage: Language;
  draft: TemplateDraft;
  /** The template a removal is about. */
  deletingId: string | null;
  /** Why the last save or removal did not happen; null after a success. */
  problem: 'refused' | 'limit' | 'failed' | null;
}

export type TemplatesEvent =
  | { type: 'retry' }
  | { type: 'template.new' }
  | { type: 'template.edit'; id: string }
  | { type: 'template.delete'; id: string }
  | { type: 'draft.name'; value: string }
  | { type: 'draft.text'; language: Language; value: string }
  | { type: 'draft.save' }
  | { type: 'draft.cancel' }
  | { type: 'delete.confirm' }
  | { type: 'delete.cancel' };

const out = <T>(event: unknown) => (event as DoneActorEvent<T>).output;
const EMPTY: TemplateDraft = { id: null, name: '', texts: {} };

/** The draft's problems under the shared rules, for the form and the save guard. */
export const draftIssues = (c: Pick<TemplatesContext, 'draft' | 'languages'>) => replyTemplateIssues({ name: c.draft.name, texts: c.draft.texts }, c.languages);

export const templatesMachine = setup({
  types: {} as { context: TemplatesContext; events: TemplatesEvent },
  actors: {
    loadTemplates: fromPromise<TemplatesListAnswer, void>(async () => {
      throw new Error('loadTemplates not provided');
    }),
    saveTemplate: fromPromise<TemplateActAnswer, TemplateDraft>(async () => {
      throw new Error('saveTemplate not provided');
    }),
    deleteTemplate: fromPromise<TemplateActAnswer, { id: string }>(async () => {
      throw new Error('deleteTemplate not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignList: assign(({ event }) => {
      const a = out<TemplatesListAnswer>(event);
      return { templates: a.templates ?? [], languages: a.languages ?? [], defaultLanguage: a.defaultLanguage ?? 'da' };
    }),
    startNew: assign({ draft: () => ({ ...EMPTY, texts: {} }), problem: null }),
    startEdit: assign(({ event, context }) => {
      const t = event.type === 'template.edit' ? context.templates.find((x) => x.id === event.id) : undefined;
      return { draft: t ? { id: t.id, name: t.name, texts: { ...t.texts } } : EMPTY, problem: null };
    }),
    assignName: assign({ draft: ({ event, context }) => (event.type === 'draft.name' ? { ...context.draft, name: event.value } : context.draft) }),
    assignText: assign({ draft: ({ event, context }) => (event.type === 'draft.text' ? { ...context.draft, texts: { ...context.draft.texts, [event.language]: event.value } } : context.draft) }),
    assignDeleting: assign({ deletingId: ({ event }) => (event.type === 'template.delete' ? event.id : null), problem: null }),
    clearDeleting: assign({ deletingId: null }),
    clearProblem: assign({ problem: null }),
    assignRefused: assign({ problem: ({ event }) => (out<TemplateActAnswer>(event).code === 'TEMPLATE_LIMIT' ? 'limit' : 'refused') as 'limit' | 'refused' }),
    assignFailed: assign({ problem: 'failed' as const }),
  },
  guards: {
    isLoaded: ({ event }) => out<TemplatesListAnswer>(event).status === 200,
    isUnauthorizedAnswer: ({ event }) => out<TemplateActAnswer>(event).status === 401,
    isSaved: ({ event }) => [200, 201].includes(out<TemplateActAnswer>(event).status),
    isDeleted: ({ event }) => [204, 404].includes(out<TemplateActAnswer>(event).status),
    isRefused: ({ event }) => out<TemplateActAnswer>(event).status >= 400 && out<TemplateActAnswer>(event).status < 500,
    isKnownTemplate: ({ context, event }) => (event.type === 'template.edit' || event.type === 'template.delete') && context.templates.some((t) => t.id === event.id),
    isDraftValid: ({ context }) => draftIssues(context).length === 0,
  },
}).createMachine({
  id: 'adminTemplates',
  initial: 'loading',
  context: { templates: [], languages: [], defaultLanguage: 'da', draft: EMPTY, deletingId: null, problem: null },
  states: {
    loading: {
      invoke: {
        id: 'loadTemplates',
        src: 'loadTemplates',
        onDone: [
          { guard: 'isLoaded', target: 'listing', actions: 'assignList' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: { target: 'failed' },
      },
    },
    failed: {
      on: { retry: { target: 'loading' } },
    },
    listing: {
      on: {
        'template.new': { target: 'editing', actions: 'startNew' },
        'template.edit': { guard: 'isKnownTemplate', target: 'editing', actions: 'startEdit' },
        'template.delete': { guard: 'isKnownTemplate', target: 'confirmingDelete', actions: 'assignDeleting' },
      },
    },
    editing: {
      on: {
        'draft.name': { actions: 'assignName' },
        'draft.text': { actions: 'assignText' },
        'draft.save': { guard: 'isDraftValid', target: 'saving', actions: 'clearProblem' },
        'draft.cancel': { target: 'listing', actions: 'clearProblem' },
      },
    },
    saving: {
      invoke: {
        id: 'saveTemplate',
        src: 'saveTemplate',
        input: ({ context }) => context.draft,
        onDone: [
          { guard: 'isSaved', target: 'loading' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { guard: 'isRefused', target: 'editing', actions: 'assignRefused' },
          { target: 'editing', actions: 'assignFailed' },
        ],
        onError: { target: 'editing', actions: 'assignFailed' },
      },
    },
    confirmingDelete: {
      on: {
        'delete.confirm': { target: 'deleting' },
        'delete.cancel': { target: 'listing', actions: 'clearDeleting' },
      },
    },
    deleting: {
      invoke: {
        id: 'deleteTemplate',
        src: 'deleteTemplate',
        input: ({ context }) => ({ id: context.deletingId! }),
        onDone: [
          { guard: 'isDeleted', target: 'loading', actions: 'clearDeleting' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: ['clearDeleting', 'reportUnauthorized'] },
          { target: 'listing', actions: ['clearDeleting', 'assignFailed'] },
        ],
        onError: { target: 'listing', actions: ['clearDeleting', 'assignFailed'] },
      },
    },
  },
});
