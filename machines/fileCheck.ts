/**
 * One attached file's hidden data, on the reporter's device
 * (docs/decisions/metadata-removal.md): the file is checked (in a Web Worker), what
 * it gives away is shown, and identifying data is removed unless the reporter, who
 * must have revealed who they are, chooses to send the original.
 *
 * Invariants:
 * - Removal is the default: a file with findings goes straight to `found.cleaning`.
 * - The original may be kept only while the reporter is identified; becoming
 *   anonymous again goes back to the cleaned copy (kept, so nothing is redone).
 * - Only states tagged `settled` decide what is sent (`fileToSend`): the cleaned
 *   copy in `found.cleaned`, the original everywhere else; a send waits for them.
 * - A file the checker cannot read (`uncheckable`) or cannot rewrite
 *   (`found.cleaningFailed`) is named as such; nothing is pretended.
 * - `removed` is what the cleaner answered it removed, per file (read again from the
 *   cleaned bytes); the view names exactly those kinds, and `remaining` if any.
 * - Effects (`inspectFile`, `cleanFile`) are supplied with `.provide()`.
 */
import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';

/** A file as the browser gives it (a `File` satisfies this). */
export interface CheckedFile {
  name: string;
  size: number;
  type?: string;
}

export interface FileFinding {
  /** One of core/metadata/scan.ts's FINDING_KINDS (location, author, manager, comments, changeDates, xmp, …). */
  kind: string;
  detail?: string;
}

export interface InspectResult {
  /** false: a type the checker cannot read. */
  checkable: boolean;
  findings: FileFinding[];
}

export interface CleanResult {
  file: CheckedFile;
  /** The kinds the cleaning removed: read again from the cleaned copy, not assumed. */
  removed: string[];
  /** The kinds still in the cleaned copy (normally none). */
  remaining?: string[];
}

export interface FileCheckInput {
  file: CheckedFile;
  identified: boolean;
}

export interface FileCheckContext extends FileCheckInput {
  findings: FileFinding[];
  cleaned: CheckedFile | null;
  removed: string[];
  remaining: string[];
}

export type FileCheckEvent =
  | { type: 'original.keep' }
  | { type: 'original.remove' }
  /** The reporter's identity choice changed (online form) or is known (private area). */
  | { type: 'identity.change'; identified: boolean };

export const fileCheckMachine = setup({
  types: {} as { context: FileCheckContext; events: FileCheckEvent; input: FileCheckInput },
  actors: {
    inspectFile: fromPromise<InspectResult, { file: CheckedFile }>(async () => {
      throw new Error('inspectFile not provided');
    }),
    cleanFile: fromPromise<CleanResult, { file: CheckedFile }>(async () => {
      throw new Error('cleanFile not provided');
    }),
  },
  actions: {
    assignFindings: assign({ findings: (_, params: { result: InspectResult }) => params.result.findings }),
    assignCleaned: assign((_, params: { result: CleanResult }) => ({ cleaned: params.result.file, removed: params.result.removed, remaining: params.result.remaining ?? [] })),
    assignIdentified: assign({
      identified: ({ context, event }) => (event.type === 'identity.change' ? event.identified : context.identified),
    }),
  },
  guards: {
    isUncheckable: (_, params: { result: InspectResult }) => !params.result.checkable,
    hasFindings: (_, params: { result: InspectResult }) => params.result.findings.length > 0,
    isIdentified: ({ context }) => context.identified,
    isBecomingAnonymous: ({ event }) => event.type === 'identity.change' && !event.identified,
  },
}).createMachine({
  id: 'fileCheck',
  context: ({ input }) => ({ ...input, findings: [], cleaned: null, removed: [], remaining: [] }),
  initial: 'checking',
  on: {
    'identity.change': { actions: 'assignIdentified' },
  },
  states: {
    checking: {
      invoke: {
        id: 'inspectFile',
        src: 'inspectFile',
        input: ({ context }) => ({ file: context.file }),
        onDone: [
          { guard: { type: 'isUncheckable', params: ({ event }) => ({ result: event.output }) }, target: 'uncheckable' },
          {
            guard: { type: 'hasFindings', params: ({ event }) => ({ result: event.output }) },
            target: 'found',
            actions: { type: 'assignFindings', params: ({ event }) => ({ result: event.output }) },
          },
          { target: 'nothingFound' },
        ],
        onError: { target: 'uncheckable' },
      },
    },
    found: {
      initial: 'cleaning',
      states: {
        cleaning: {
          invoke: {
            id: 'cleanFile',
            src: 'cleanFile',
            input: ({ context }) => ({ file: context.file }),
            onDone: {
              target: 'cleaned',
              actions: { type: 'assignCleaned', params: ({ event }) => ({ result: event.output }) },
            },
            onError: { target: 'cleaningFailed' },
          },
        },
        cleaned: {
          tags: ['settled'],
          on: { 'original.keep': { guard: 'isIdentified', target: 'keptOriginal' } },
        },
        keptOriginal: {
          tags: ['settled'],
          on: {
            'original.remove': { target: 'cleaned' },
            'identity.change': { guard: 'isBecomingAnonymous', target: 'cleaned', actions: 'assignIdentified' },
          },
        },
        cleaningFailed: { tags: ['settled'] },
      },
    },
    nothingFound: { tags: ['settled'] },
    uncheckable: { tags: ['settled'] },
  },
});

export type FileCheckSnapshot = SnapshotFrom<typeof fileCheckMachine>;

/** What is sent for this file; null while it is still being checked or cleaned. */
export function fileToSend(s: FileCheckSnapshot): CheckedFile | null {
  if (!s.hasTag('settled')) return null;
  return s.matches({ found: 'cleaned' }) && s.context.cleaned ? s.context.cleaned : s.context.file;
}
