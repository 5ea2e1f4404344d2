/**
 * Exporting one case (issue 38 "Case export and print"; docs/decisions/case-export.md):
 * the handler chooses the parts, marks what to black out, the server records the act
 * in the audit trail, and only then the browser makes the PDF (and the zip of the
 * files) from the content the page has already opened. The server never sees the
 * export, nor the terms redacted.
 *
 * Invariants:
 * - Nothing is made before the server recorded the export (`recording` answered 201):
 *   an export the audit trail does not name cannot exist. A refusal is `failed`.
 * - The reporter's identity and the internal notes are in the export only when the
 *   handler chose the part (`identity`, `notes`) herself (off at every opening); the
 *   audit entry says so.
 * - `export.start` needs at least one part; redaction terms (typed, or the page's
 *   selection when the dialog opened) are trimmed, non-empty and unique
 *   (case-insensitive), so the first page's "redacted" says the truth.
 * - The terms live only in this chart's context and in the document made from it:
 *   they are never sent (the audit route gets only the count).
 */
import { assign, fromPromise, setup, type DoneActorEvent } from 'xstate';
import { EXPORT_PARTS, EXPORT_TERM_MAX, EXPORT_TERMS_MAX, type ExportPart } from '../schema.ts';

export { EXPORT_PARTS, type ExportPart };

/** Parts offered ticked at every opening: everything but the identity and the internal notes, which are explicit choices. */
export const DEFAULT_PARTS: ExportPart[] = EXPORT_PARTS.filter((p) => p !== 'identity' && p !== 'notes');

export interface ExportChoice {
  parts: ExportPart[];
  terms: string[];
}

export interface RecordAnswer {
  status: number;
  code?: string;
}

export interface MadeExport {
  /** Object URLs (or any handle the view downloads from) of the PDF and, when files were chosen, the zip. */
  pdf: string;
  zip: string | null;
}

export interface CaseExportContext {
  parts: ExportPart[];
  terms: string[];
  made: MadeExport | null;
  /** Text the handler had selected on the page when she opened the dialog, offered as a term. */
  selection: string;
  /** The product's error code of the last refusal, or 'MAKING' when the browser could not make the files. */
  failure: string | null;
}

export type CaseExportEvent =
  | { type: 'dialog.open'; selection?: string }
  | { type: 'dialog.close' }
  | { type: 'part.toggle'; part: ExportPart }
  | { type: 'term.add'; value: string }
  | { type: 'term.remove'; index: number }
  | { type: 'selection.add' }
  | { type: 'export.start' }
  | { type: 'export.retry' };

const recorded = (event: unknown) => (event as DoneActorEvent<RecordAnswer>).output;
const clean = (value: string | undefined) => (value ?? '').normalize('NFC').trim();
const isNew = (terms: readonly string[], term: string) =>
  term !== '' && [...term].length <= EXPORT_TERM_MAX && terms.length < EXPORT_TERMS_MAX && !terms.some((t) => t.toLocaleLowerCase() === term.toLocaleLowerCase());

export const caseExportMachine = setup({
  types: {} as { context: CaseExportContext; events: CaseExportEvent },
  actors: {
    recordExport: fromPromise<RecordAnswer, ExportChoice>(async () => {
      throw new Error('recordExport not provided');
    }),
    makeExport: fromPromise<MadeExport, ExportChoice>(async () => {
      throw new Error('makeExport not provided');
    }),
  },
  actions: {
    reportUnauthorized: () => {},
    /** The view revokes the object URLs of an export it no longer offers. */
    releaseExport: () => {},
    reset: assign({ parts: () => [...DEFAULT_PARTS], terms: () => [], made: null, failure: null, selection: ({ event }) => (event.type === 'dialog.open' ? clean(event.selection) : '') }),
    togglePart: assign({
      parts: ({ context, event }) => {
        if (event.type !== 'part.toggle') return context.parts;
        return context.parts.includes(event.part) ? context.parts.filter((p) => p !== event.part) : EXPORT_PARTS.filter((p) => p === event.part || context.parts.includes(p));
      },
    }),
    addTerm: assign({ terms: ({ context, event }) => (event.type === 'term.add' ? [...context.terms, clean(event.value)] : context.terms) }),
    addSelection: assign({ terms: ({ context }) => [...context.terms, context.selection], selection: '' }),
    removeTerm: assign({ terms: ({ context, event }) => (event.type === 'term.remove' ? context.terms.filter((_, i) => i !== event.index) : context.terms) }),
    assignMade: assign({ made: ({ event }) => (event as unknown as DoneActorEvent<MadeExport>).output }),
    assignRefusal: assign({ failure: ({ event }) => recorded(event).code ?? `HTTP_${recorded(event).status}` }),
    assignMakingFailure: assign({ failure: 'MAKING' }),
    clearFailure: assign({ failure: null }),
    clearMade: assign({ made: null }),
  },
  guards: {
    hasParts: ({ context }) => context.parts.length > 0,
    isNewTerm: ({ context, event }) => event.type === 'term.add' && isNew(context.terms, clean(event.value)),
    hasNewSelection: ({ context }) => isNew(context.terms, context.selection),
    isKnownTerm: ({ context, event }) => event.type === 'term.remove' && event.index >= 0 && event.index < context.terms.length,
    isRecorded: ({ event }) => recorded(event).status === 201,
    isUnauthorizedAnswer: ({ event }) => recorded(event).status === 401,
  },
}).createMachine({
  id: 'handlerCaseExport',
  initial: 'closed',
  context: { parts: [...DEFAULT_PARTS], terms: [], made: null, selection: '', failure: null },
  states: {
    closed: {
      on: { 'dialog.open': { target: 'choosing', actions: 'reset' } },
    },
    choosing: {
      on: {
        'dialog.close': 'closed',
        'part.toggle': { actions: 'togglePart' },
        'term.add': { guard: 'isNewTerm', actions: 'addTerm' },
        'term.remove': { guard: 'isKnownTerm', actions: 'removeTerm' },
        'selection.add': { guard: 'hasNewSelection', actions: 'addSelection' },
        'export.start': { guard: 'hasParts', target: 'recording' },
      },
    },
    recording: {
      invoke: {
        id: 'recordExport',
        src: 'recordExport',
        input: ({ context }) => ({ parts: context.parts, terms: context.terms }),
        onDone: [
          { guard: 'isRecorded', target: 'making' },
          { guard: 'isUnauthorizedAnswer', target: 'failed', actions: ['assignRefusal', 'reportUnauthorized'] },
          { target: 'failed', actions: 'assignRefusal' },
        ],
        onError: { target: 'failed', actions: assign({ failure: 'NETWORK' }) },
      },
    },
    making: {
      invoke: {
        id: 'makeExport',
        src: 'makeExport',
        input: ({ context }) => ({ parts: context.parts, terms: context.terms }),
        onDone: { target: 'done', actions: 'assignMade' },
        onError: { target: 'failed', actions: 'assignMakingFailure' },
      },
    },
    done: {
      on: {
        'dialog.close': { target: 'closed', actions: ['releaseExport', 'clearMade'] },
        'export.retry': { target: 'choosing', actions: ['releaseExport', 'clearMade'] },
      },
    },
    failed: {
      on: {
        'dialog.close': 'closed',
        'export.retry': { target: 'choosing', actions: 'clearFailure' },
      },
    },
  },
});
