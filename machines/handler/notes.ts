/**
 * A case's internal notes in the handler workspace (issue 38 Build 1;
 * docs/decisions/internal-notes.md): the case's handlers write them for each other and
 * the reporter never sees them. The effects (supplied by `.provide()`) read, add and save
 * notes; on a sealed case they seal and open in the browser (src/handler/notes.ts), so
 * this chart is the same for both kinds of case.
 *
 * Invariants:
 * - A note is added only with text (`hasDraft`) and edited only when it opened here
 *   (`isEditable`): a note that did not open is never written over blind.
 * - An edit is saved over the version that was read (`editing.version`). The server
 *   refusing it as changed (409 with the latest note, `theirs`) is `conflicted`: both
 *   texts shown, nothing lost; "keep mine" saves the own text over their version,
 *   "take theirs" drops the own text and shows theirs.
 * - The own text is kept on every failure (`editing.text`, `draft`); a 401 reports
 *   `reportUnauthorized` (the session chart signs out).
 * - After a save that landed the case reloads (`reloadCase`), so the trail shows it.
 * - Files are attached to a note that exists and opened here (`canAttach`), at most
 *   LIMITS.maxFiles at a time, as their own act: the note's text and version are not
 *   touched, so attaching never meets a colleague's edit. On a sealed case the effect
 *   seals them in the browser as a message's files; a refused attach stores nothing.
 * - A note's file is saved only when its name opened here (`canSaveFile`); its outcome
 *   (and the browser's check) is kept per file, as the sealed case's files keep theirs.
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { LIMITS } from '../schema.ts';
import type { FileSaveAnswer, FileOutcome } from './sealedCase.ts';

export interface NoteAuthor {
  id: string | null;
  name: string;
}

/** A file of a note as this browser shows it: `name` null when its sealed name did not open here. */
export interface OpenedNoteFile {
  id: string;
  name: string | null;
  /** The true size (the server-keyed file's size, or from the sealed name); null when not known. */
  size: number | null;
  /** The stored size (sealed and padded on a sealed case). */
  storedSize: number;
  created: string;
  /** The key epoch a sealed case's file was sealed under. */
  epoch?: number;
}

/** A file the handler picks to attach (a browser `File` satisfies it). */
export interface NoteAttachment {
  name: string;
  size: number;
}

/** A note as this browser shows it: `text` null when it could not be opened here. */
export interface OpenedNote {
  id: string;
  version: number;
  text: string | null;
  files: OpenedNoteFile[];
  author: NoteAuthor;
  editedBy: NoteAuthor | null;
  created: string;
  updated: string;
}

export interface NotesAnswer {
  status: number;
  notes?: OpenedNote[];
}

export interface NoteSaveAnswer {
  status: number;
  note?: OpenedNote;
  code?: string;
  /** With a 409 NOTE_CHANGED: the note as the colleague saved it. */
  theirs?: OpenedNote;
}

export interface NoteEdit {
  id: string;
  /** The version read: the save is written over it. */
  version: number;
  text: string;
}

export interface NotesContext {
  caseNumber: string;
  notes: OpenedNote[];
  draft: string;
  editing: NoteEdit | null;
  theirs: OpenedNote | null;
  refused: string | null;
  /** The note and files being attached; the note whose attach was refused keeps `refusedFiles`. */
  attaching: { id: string; files: NoteAttachment[] } | null;
  refusedFiles: { id: string; code: string } | null;
  /** The file being saved, and each saved file's outcome. */
  saving: string | null;
  fileOutcomes: Record<string, FileOutcome>;
}

export interface AttachInput {
  caseNumber: string;
  id: string;
  files: NoteAttachment[];
}

export type NotesEvent =
  | { type: 'draft.change'; text: string }
  | { type: 'note.add' }
  | { type: 'note.edit'; id: string }
  | { type: 'edit.change'; text: string }
  | { type: 'edit.save' }
  | { type: 'edit.cancel' }
  | { type: 'conflict.keepMine' }
  | { type: 'conflict.takeTheirs' }
  | { type: 'files.attach'; id: string; files: NoteAttachment[] }
  | { type: 'file.save'; fileId: string }
  | { type: 'retry' };

const answer = <T>(event: unknown) => (event as DoneActorEvent<T>).output;
const replaced = (notes: OpenedNote[], note: OpenedNote | undefined) => (note ? (notes.some((n) => n.id === note.id) ? notes.map((n) => (n.id === note.id ? note : n)) : [...notes, note]) : notes);

export const notesMachine = setup({
  types: {} as { context: NotesContext; events: NotesEvent; input: { caseNumber: string } },
  actors: {
    loadNotes: fromPromise<NotesAnswer, { caseNumber: string }>(async () => {
      throw new Error('loadNotes not provided');
    }),
    addNote: fromPromise<NoteSaveAnswer, { caseNumber: string; text: string }>(async () => {
      throw new Error('addNote not provided');
    }),
    saveNote: fromPromise<NoteSaveAnswer, { caseNumber: string } & NoteEdit>(async () => {
      throw new Error('saveNote not provided');
    }),
    attachFiles: fromPromise<NoteSaveAnswer, AttachInput>(async () => {
      throw new Error('attachFiles not provided');
    }),
    saveFile: fromPromise<FileSaveAnswer, { caseNumber: string; file: OpenedNoteFile & { name: string } }>(async () => {
      throw new Error('saveFile not provided');
    }),
  },
  actions: {
    reloadCase: () => {},
    reportUnauthorized: () => {},
    assignNotes: assign({ notes: ({ event }) => answer<NotesAnswer>(event).notes ?? [] }),
    assignDraft: assign({ draft: ({ event, context }) => (event.type === 'draft.change' ? event.text : context.draft), refused: null }),
    assignAdded: assign({ notes: ({ event, context }) => replaced(context.notes, answer<NoteSaveAnswer>(event).note), draft: '', refused: null }),
    assignSaved: assign({ notes: ({ event, context }) => replaced(context.notes, answer<NoteSaveAnswer>(event).note), editing: null, theirs: null, refused: null }),
    assignRefused: assign({ refused: ({ event }) => answer<NoteSaveAnswer>(event).code ?? 'ERROR' }),
    assignFailed: assign({ refused: 'ERROR' }),
    startEdit: assign({
      editing: ({ event, context }) => {
        const note = context.notes.find((n) => event.type === 'note.edit' && n.id === event.id)!;
        return { id: note.id, version: note.version, text: note.text ?? '' };
      },
      refused: null,
    }),
    assignEditText: assign({ editing: ({ event, context }) => (event.type === 'edit.change' && context.editing ? { ...context.editing, text: event.text } : context.editing), refused: null }),
    clearEdit: assign({ editing: null, theirs: null, refused: null }),
    assignTheirs: assign({
      theirs: ({ event }) => answer<NoteSaveAnswer>(event).theirs ?? null,
      notes: ({ event, context }) => replaced(context.notes, answer<NoteSaveAnswer>(event).theirs),
      refused: null,
    }),
    startAttach: assign({
      attaching: ({ event }) => (event.type === 'files.attach' ? { id: event.id, files: event.files } : null),
      refusedFiles: null,
      refused: null,
    }),
    assignAttached: assign({ notes: ({ event, context }) => replaced(context.notes, answer<NoteSaveAnswer>(event).note), attaching: null }),
    assignAttachRefused: assign({ refusedFiles: ({ event, context }) => ({ id: context.attaching!.id, code: answer<NoteSaveAnswer>(event).code ?? String(answer<NoteSaveAnswer>(event).status) }), attaching: null }),
    assignAttachFailed: assign({ refusedFiles: ({ context }) => ({ id: context.attaching!.id, code: 'ERROR' }), attaching: null }),
    startSaving: assign(({ event, context }) => (event.type === 'file.save' ? { saving: event.fileId, fileOutcomes: { ...context.fileOutcomes, [event.fileId]: { outcome: 'saving' as const } } } : {})),
    assignFileSaved: assign(({ event, context }) => {
      const a = (event as unknown as DoneActorEvent<FileSaveAnswer>).output;
      const outcome: FileOutcome = a.outcome === 'unauthorized' ? { outcome: 'failed' } : a;
      return { saving: null, fileOutcomes: { ...context.fileOutcomes, [context.saving!]: outcome } };
    }),
    assignFileFailed: assign(({ context }) => ({ saving: null, fileOutcomes: { ...context.fileOutcomes, [context.saving!]: { outcome: 'failed' as const } } })),
    // "Keep mine": the own text, now written over the version the colleague saved.
    keepMine: assign({ editing: ({ context }) => ({ ...context.editing!, version: context.theirs!.version }), theirs: null }),
  },
  guards: {
    isOk: ({ event }) => [200, 201].includes(answer<{ status: number }>(event).status),
    isUnauthorizedAnswer: ({ event }) => answer<{ status: number }>(event).status === 401,
    isConflict: ({ event }) => answer<NoteSaveAnswer>(event).status === 409 && answer<NoteSaveAnswer>(event).code === 'NOTE_CHANGED' && !!answer<NoteSaveAnswer>(event).theirs,
    isRefusal: ({ event }) => answer<{ status: number }>(event).status >= 400 && answer<{ status: number }>(event).status < 500,
    hasDraft: ({ context }) => context.draft.trim() !== '',
    hasEditText: ({ context }) => !!context.editing && context.editing.text.trim() !== '',
    isEditable: ({ context, event }) => event.type === 'note.edit' && context.notes.some((n) => n.id === event.id && n.text !== null),
    canAttach: ({ context, event }) => event.type === 'files.attach' && event.files.length > 0 && event.files.length <= LIMITS.maxFiles && context.notes.some((n) => n.id === event.id && n.text !== null),
    canSaveFile: ({ context, event }) => event.type === 'file.save' && context.notes.some((n) => n.files.some((f) => f.id === event.fileId && f.name !== null)),
    isFileSaveUnauthorized: ({ event }) => (event as unknown as DoneActorEvent<FileSaveAnswer>).output.outcome === 'unauthorized',
  },
}).createMachine({
  id: 'notes',
  initial: 'loading',
  context: ({ input }) => ({ caseNumber: input.caseNumber, notes: [], draft: '', editing: null, theirs: null, refused: null, attaching: null, refusedFiles: null, saving: null, fileOutcomes: {} }),
  // A new note's text may be typed whatever else goes on; it is sent only from `ready`.
  on: { 'draft.change': { actions: 'assignDraft' } },
  states: {
    loading: {
      invoke: {
        id: 'loadNotes',
        src: 'loadNotes',
        input: ({ context }) => ({ caseNumber: context.caseNumber }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: 'assignNotes' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: 'reportUnauthorized' },
          { target: 'failed' },
        ],
        onError: 'failed',
      },
    },
    failed: { on: { retry: 'loading' } },
    ready: {
      on: {
        'note.add': { guard: 'hasDraft', target: 'adding' },
        'note.edit': { guard: 'isEditable', target: 'editing', actions: 'startEdit' },
        'files.attach': { guard: 'canAttach', target: 'attaching', actions: 'startAttach' },
        'file.save': { guard: 'canSaveFile', target: 'savingFile', actions: 'startSaving' },
      },
    },
    attaching: {
      invoke: {
        id: 'attachFiles',
        src: 'attachFiles',
        input: ({ context }) => ({ caseNumber: context.caseNumber, id: context.attaching!.id, files: context.attaching!.files }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: ['assignAttached', 'reloadCase'] },
          { guard: 'isUnauthorizedAnswer', target: 'ready', actions: ['assignAttachFailed', 'reportUnauthorized'] },
          { target: 'ready', actions: 'assignAttachRefused' },
        ],
        onError: { target: 'ready', actions: 'assignAttachFailed' },
      },
    },
    savingFile: {
      invoke: {
        id: 'saveFile',
        src: 'saveFile',
        input: ({ context }) => ({ caseNumber: context.caseNumber, file: context.notes.flatMap((n) => n.files).find((f) => f.id === context.saving) as OpenedNoteFile & { name: string } }),
        onDone: [
          { guard: 'isFileSaveUnauthorized', target: 'ready', actions: ['assignFileSaved', 'reportUnauthorized'] },
          { target: 'ready', actions: 'assignFileSaved' },
        ],
        onError: { target: 'ready', actions: 'assignFileFailed' },
      },
    },
    adding: {
      invoke: {
        id: 'addNote',
        src: 'addNote',
        input: ({ context }) => ({ caseNumber: context.caseNumber, text: context.draft.trim() }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: ['assignAdded', 'reloadCase'] },
          { guard: 'isUnauthorizedAnswer', target: 'ready', actions: ['assignFailed', 'reportUnauthorized'] },
          { guard: 'isRefusal', target: 'ready', actions: 'assignRefused' },
          { target: 'ready', actions: 'assignFailed' },
        ],
        onError: { target: 'ready', actions: 'assignFailed' },
      },
    },
    editing: {
      on: {
        'edit.change': { actions: 'assignEditText' },
        'edit.save': { guard: 'hasEditText', target: 'saving' },
        'edit.cancel': { target: 'ready', actions: 'clearEdit' },
      },
    },
    saving: {
      invoke: {
        id: 'saveNote',
        src: 'saveNote',
        input: ({ context }) => ({ caseNumber: context.caseNumber, id: context.editing!.id, version: context.editing!.version, text: context.editing!.text.trim() }),
        onDone: [
          { guard: 'isOk', target: 'ready', actions: ['assignSaved', 'reloadCase'] },
          { guard: 'isConflict', target: 'conflicted', actions: 'assignTheirs' },
          { guard: 'isUnauthorizedAnswer', target: 'editing', actions: ['assignFailed', 'reportUnauthorized'] },
          { guard: 'isRefusal', target: 'editing', actions: 'assignRefused' },
          { target: 'editing', actions: 'assignFailed' },
        ],
        onError: { target: 'editing', actions: 'assignFailed' },
      },
    },
    conflicted: {
      on: {
        'conflict.keepMine': { target: 'saving', actions: 'keepMine' },
        'conflict.takeTheirs': { target: 'ready', actions: 'clearEdit' },
      },
    },
  },
});
