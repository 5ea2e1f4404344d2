/**
 * The company editor (issue 39 item 5, docs/decisions/company-editor.md): the company
 * administrator (or the operator) opens the company's settings as one draft, edits
 * any field, sees the landing page of the draft in each language, and saves it as a
 * new version or restores an earlier one, each through a confirmation.
 *
 * Invariants:
 * - The draft is checked on every change by the company file's own rules
 *   (`companyIssues`, machines/companyFile.ts); `previewing` and `confirmingSave` are
 *   reached only with no issue and, for a save, with a change.
 * - Host names change only when the caller may (`canEditHosts`, the operator).
 * - A save or revert names the version it was made from; a 409 keeps the draft and
 *   says someone else saved meanwhile. A failed or refused save keeps the draft.
 * - After a save, revert or import the draft is what the server holds (reloaded).
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { companyIssues, type CompanyFile, type CompanyIssue } from '../companyFile.ts';
import type { Language } from '../languages.ts';
import { addLanguage, removeAt, removeLanguage, sameDraft, setAt, templateAt, usedImages, type Draft, type ImageRef, type Path } from './companyDraft.ts';

export interface EditorData {
  version: number;
  file: CompanyFile;
  images: Record<string, ImageRef>;
  canEditHosts: boolean;
}

export interface VersionSummary {
  version: number;
  action: 'import' | 'save' | 'revert';
  revertedTo: number | null;
  actorName: string;
  actorRole: string;
  createdAt: string;
}

/** What a call answered: the status, and the body's parts the chart reads. */
export interface Answer<T = undefined> {
  status: number;
  data?: T;
  code?: string;
  field?: string;
}

export interface EditorContext {
  companyId: string;
  version: number;
  canEditHosts: boolean;
  saved: Draft | null;
  draft: Draft | null;
  issues: CompanyIssue[];
  versions: VersionSummary[];
  previewId: string | null;
  previewLanguage: Language | null;
  revertTo: number | null;
  /** The server's refusal of the last call: its code and field. */
  refusal: { code: string; field?: string } | null;
}

export type EditorEvent =
  | { type: 'editor.retry' }
  | { type: 'field.change'; path: Path; value: unknown }
  | { type: 'item.add'; path: Path; id: string }
  | { type: 'item.remove'; path: Path; index: number }
  | { type: 'language.add'; language: Language; languageName: string }
  | { type: 'language.remove'; language: Language }
  | { type: 'image.choose'; path: Path; contentType: string; base64: string }
  | { type: 'draft.discard' }
  | { type: 'preview.open'; language: Language }
  | { type: 'preview.language'; language: Language }
  | { type: 'preview.close' }
  | { type: 'save.request' }
  | { type: 'save.confirm' }
  | { type: 'save.cancel' }
  | { type: 'versions.open' }
  | { type: 'versions.close' }
  | { type: 'revert.request'; version: number }
  | { type: 'revert.confirm' }
  | { type: 'revert.cancel' }
  | { type: 'import.choose'; bundle: unknown };

const answer = (event: unknown) => (event as DoneActorEvent<Answer<unknown>>).output;

function withIssues(draft: Draft): { draft: Draft; issues: CompanyIssue[] } {
  const issues = companyIssues(draft.file);
  // An image the file names must have been uploaded (or come with the version).
  for (const [field, ref] of [['logo.file', draft.file.logo?.file] as const, ...(draft.file.protectionOfficers ?? []).map((o, i) => [`protectionOfficers.${i}.logo.file`, o.logo?.file] as const)]) {
    if (ref && !draft.images[ref]) issues.push({ field, rule: 'invalid', message: `image "${ref}" is not uploaded` });
  }
  return { draft, issues };
}

/**
 * Where a write (save, revert, import) leads by the server's answer: the stored version
 * is read back, or the draft stays in editing with the refusal, conflict or failure.
 */
const WRITE_ANSWERED = [
  { guard: 'isOk', target: 'reloading', actions: 'clearRefusal' },
  { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: 'reportUnauthorized' },
  { guard: 'isConflict', target: 'editing.conflict', actions: 'assignRefusal' },
  { guard: 'isRefusal', target: 'editing.refused', actions: 'assignRefusal' },
  { target: 'editing.failed' },
] as const;

export const companyEditorMachine = setup({
  types: {} as { context: EditorContext; events: EditorEvent; input: { companyId: string } },
  actors: {
    loadEditor: fromPromise<Answer<EditorData>, { companyId: string }>(async () => {
      throw new Error('loadEditor not provided');
    }),
    saveDraft: fromPromise<Answer<{ version: number }>, { companyId: string; baseVersion: number; draft: Draft }>(async () => {
      throw new Error('saveDraft not provided');
    }),
    createPreview: fromPromise<Answer<{ id: string }>, { companyId: string; draft: Draft }>(async () => {
      throw new Error('createPreview not provided');
    }),
    uploadImage: fromPromise<Answer<ImageRef & { file: string; path: Path }>, { companyId: string; contentType: string; base64: string; path: Path }>(async () => {
      throw new Error('uploadImage not provided');
    }),
    loadVersions: fromPromise<Answer<{ versions: VersionSummary[] }>, { companyId: string }>(async () => {
      throw new Error('loadVersions not provided');
    }),
    revertVersion: fromPromise<Answer<{ version: number }>, { companyId: string; baseVersion: number; version: number }>(async () => {
      throw new Error('revertVersion not provided');
    }),
    importBundle: fromPromise<Answer<{ version: number }>, { companyId: string; baseVersion: number; bundle: unknown }>(async () => {
      throw new Error('importBundle not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    assignLoaded: assign(({ event }) => {
      const data = answer(event).data as EditorData;
      const saved = { file: data.file, images: data.images };
      return { version: data.version, canEditHosts: data.canEditHosts, saved, refusal: null, ...withIssues(saved) };
    }),
    assignField: assign(({ context, event }) => {
      if (event.type !== 'field.change' || !context.draft) return {};
      if (event.path[0] === 'hosts' && !context.canEditHosts) return {};
      return withIssues({ ...context.draft, file: setAt(context.draft.file, event.path, event.value) });
    }),
    addItem: assign(({ context, event }) => {
      if (event.type !== 'item.add' || !context.draft) return {};
      if (event.path[0] === 'hosts' && !context.canEditHosts) return {};
      const list = (event.path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], context.draft.file) as unknown[] | undefined) ?? [];
      return withIssues({ ...context.draft, file: setAt(context.draft.file, [...event.path, list.length], templateAt(event.path, event.id)) });
    }),
    removeItem: assign(({ context, event }) => {
      if (event.type !== 'item.remove' || !context.draft) return {};
      if (event.path[0] === 'hosts' && !context.canEditHosts) return {};
      return withIssues({ ...context.draft, file: removeAt(context.draft.file, event.path, event.index) });
    }),
    addLanguage: assign(({ context, event }) =>
      event.type === 'language.add' && context.draft ? withIssues({ ...context.draft, file: addLanguage(context.draft.file, event.language, event.languageName) }) : {},
    ),
    removeLanguage: assign(({ context, event }) =>
      event.type === 'language.remove' && context.draft ? withIssues({ ...context.draft, file: removeLanguage(context.draft.file, event.language) }) : {},
    ),
    assignImage: assign(({ context, event }) => {
      const { output } = event as unknown as DoneActorEvent<Answer<ImageRef & { file: string; path: Path }>>;
      const img = output.data!;
      if (!context.draft) return {};
      const images = { ...context.draft.images, [img.file]: { sha256: img.sha256, contentType: img.contentType } };
      const file = setAt(context.draft.file, img.path, { file: img.file, contentType: img.contentType });
      return { refusal: null, ...withIssues({ file, images }) };
    }),
    discardDraft: assign(({ context }) => (context.saved ? withIssues(context.saved) : {})),
    assignRefusal: assign({ refusal: ({ event }) => ({ code: answer(event).code ?? 'UNKNOWN', field: answer(event).field }) }),
    clearRefusal: assign({ refusal: null }),
    assignPreview: assign({ previewId: ({ event }) => (answer(event).data as { id: string }).id }),
    assignPreviewLanguage: assign({
      previewLanguage: ({ event, context }) => (event.type === 'preview.open' || event.type === 'preview.language' ? event.language : context.previewLanguage),
    }),
    clearPreview: assign({ previewId: null }),
    assignVersions: assign({ versions: ({ event }) => (answer(event).data as { versions: VersionSummary[] }).versions }),
    assignRevertTo: assign({ revertTo: ({ event }) => (event.type === 'revert.request' ? event.version : null) }),
  },
  guards: {
    isOk: ({ event }) => answer(event).status >= 200 && answer(event).status < 300,
    isUnauthorizedAnswer: ({ event }) => answer(event).status === 401,
    isConflict: ({ event }) => answer(event).status === 409,
    isRefusal: ({ event }) => answer(event).status >= 400 && answer(event).status < 500,
    isDraftValid: ({ context }) => context.issues.length === 0,
    isSavable: ({ context }) => context.issues.length === 0 && !!context.draft && !!context.saved && !sameDraft(context.draft, context.saved),
    isOfferedLanguage: ({ context, event }) => event.type === 'preview.language' && !!context.draft?.file.languages.includes(event.language),
    isOtherVersion: ({ context, event }) => event.type === 'revert.request' && event.version !== context.version && context.versions.some((v) => v.version === event.version),
  },
}).createMachine({
  id: 'companyEditor',
  initial: 'loading',
  context: ({ input }) => ({
    companyId: input.companyId,
    version: 0,
    canEditHosts: false,
    saved: null,
    draft: null,
    issues: [],
    versions: [],
    previewId: null,
    previewLanguage: null,
    revertTo: null,
    refusal: null,
  }),
  states: {
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'loadEditor',
        src: 'loadEditor',
        input: ({ context }) => ({ companyId: context.companyId }),
        onDone: [
          { guard: 'isOk', target: 'editing', actions: 'assignLoaded' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    failed: { on: { 'editor.retry': 'loading' } },
    editing: {
      initial: 'idle',
      on: {
        'field.change': { target: '.idle', actions: 'assignField' },
        'item.add': { target: '.idle', actions: 'addItem' },
        'item.remove': { target: '.idle', actions: 'removeItem' },
        'language.add': { target: '.idle', actions: 'addLanguage' },
        'language.remove': { target: '.idle', actions: 'removeLanguage' },
        'draft.discard': { target: '.idle', actions: 'discardDraft' },
        'image.choose': 'uploading',
        'preview.open': { guard: 'isDraftValid', target: 'previewing', actions: 'assignPreviewLanguage' },
        'save.request': { guard: 'isSavable', target: 'confirmingSave' },
        'versions.open': 'versions',
        'import.choose': 'importing',
      },
      states: {
        idle: {},
        /** A note until the next change: saved, reverted, imported. */
        saved: {},
        /** Someone else saved since this draft was opened: the draft is kept, the reader reloads. */
        conflict: { on: { 'editor.retry': '#companyEditor.loading' } },
        /** The server refused (its code and field are in `refusal`); the draft is kept. */
        refused: {},
        /** The call did not arrive or failed; the draft is kept. */
        failed: {},
      },
    },
    uploading: {
      tags: ['busy'],
      invoke: {
        id: 'uploadImage',
        src: 'uploadImage',
        input: ({ context, event }) => {
          const e = event as Extract<EditorEvent, { type: 'image.choose' }>;
          return { companyId: context.companyId, contentType: e.contentType, base64: e.base64, path: e.path };
        },
        onDone: [
          { guard: 'isOk', target: 'editing.idle', actions: 'assignImage' },
          { guard: 'isUnauthorizedAnswer', target: 'editing.failed', actions: 'reportUnauthorized' },
          { guard: 'isRefusal', target: 'editing.refused', actions: 'assignRefusal' },
          { target: 'editing.failed' },
        ],
        onError: 'editing.failed',
      },
    },
    previewing: {
      initial: 'drawing',
      on: { 'preview.close': { target: 'editing', actions: 'clearPreview' } },
      states: {
        drawing: {
          tags: ['busy'],
          invoke: {
            id: 'createPreview',
            src: 'createPreview',
            input: ({ context }) => ({ companyId: context.companyId, draft: { file: context.draft!.file, images: usedImages(context.draft!) } }),
            onDone: [
              { guard: 'isOk', target: 'shown', actions: 'assignPreview' },
              { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
              { guard: 'isRefusal', target: 'failed', actions: 'assignRefusal' },
              { target: 'failed' },
            ],
            onError: 'failed',
          },
        },
        shown: { on: { 'preview.language': { guard: 'isOfferedLanguage', actions: 'assignPreviewLanguage' } } },
        failed: {},
      },
    },
    confirmingSave: {
      on: { 'save.confirm': 'saving', 'save.cancel': 'editing' },
    },
    saving: {
      tags: ['busy'],
      invoke: {
        id: 'saveDraft',
        src: 'saveDraft',
        input: ({ context }) => ({ companyId: context.companyId, baseVersion: context.version, draft: { file: context.draft!.file, images: usedImages(context.draft!) } }),
        onDone: WRITE_ANSWERED,
        onError: 'editing.failed',
      },
    },
    versions: {
      initial: 'loading',
      on: { 'versions.close': 'editing' },
      states: {
        loading: {
          tags: ['busy'],
          invoke: {
            id: 'loadVersions',
            src: 'loadVersions',
            input: ({ context }) => ({ companyId: context.companyId }),
            onDone: [
              { guard: 'isOk', target: 'listed', actions: 'assignVersions' },
              { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
              { target: 'failed' },
            ],
            onError: 'failed',
          },
        },
        listed: { on: { 'revert.request': { guard: 'isOtherVersion', target: 'confirmingRevert', actions: 'assignRevertTo' } } },
        confirmingRevert: { on: { 'revert.confirm': '#companyEditor.reverting', 'revert.cancel': 'listed' } },
        failed: {},
      },
    },
    reverting: {
      tags: ['busy'],
      invoke: {
        id: 'revertVersion',
        src: 'revertVersion',
        input: ({ context }) => ({ companyId: context.companyId, baseVersion: context.version, version: context.revertTo! }),
        onDone: WRITE_ANSWERED,
        onError: 'editing.failed',
      },
    },
    importing: {
      tags: ['busy'],
      invoke: {
        id: 'importBundle',
        src: 'importBundle',
        input: ({ context, event }) => ({ companyId: context.companyId, baseVersion: context.version, bundle: (event as Extract<EditorEvent, { type: 'import.choose' }>).bundle }),
        onDone: WRITE_ANSWERED,
        onError: 'editing.failed',
      },
    },
    /** After a save, revert or import: the draft becomes what the server now holds. */
    reloading: {
      tags: ['busy'],
      invoke: {
        id: 'reloadEditor',
        src: 'loadEditor',
        input: ({ context }) => ({ companyId: context.companyId }),
        onDone: [
          { guard: 'isOk', target: 'editing.saved', actions: 'assignLoaded' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
  },
});
