/**
 * Saving a file of a sealed case in the private area (issue 37, docs/decisions/
 * sealed-reporter-pages.md "Reporter pages"): the download is opened in the browser as it
 * arrives and written to the place the reporter picks (src/private/sealedFiles.ts).
 *
 * Invariants:
 * - One file at a time: while one is being opened and saved, no other save starts
 *   (a second picker over a half-written file would confuse more than it helps).
 * - A picker the reporter closed is no failure: back to `idle`, nothing said.
 * - A file that does not open (altered, cut, another key's) ends in `failed`, naming
 *   it; what was written of it is discarded by the effect, and the rest of the case
 *   still shows.
 * - The file's bytes never enter the context: only its id, opened name and size.
 */
import { assign, fromPromise, setup } from 'xstate';

export interface SaveTarget {
  id: string;
  name: string;
  plainSize: number | null;
}

export type SaveOutcome = 'saved' | 'cancelled';

export interface SealedFileSaveContext {
  /** The file being saved, or the last one saved or failed (the view names it). */
  file: SaveTarget | null;
}

export type SealedFileSaveEvent = { type: 'file.save'; file: SaveTarget };

export const sealedFileSaveMachine = setup({
  types: {} as { context: SealedFileSaveContext; events: SealedFileSaveEvent },
  actors: {
    /** Picks the place, downloads, opens and writes; resolves 'cancelled' when the picker was closed, rejects when the file does not open. */
    saveFile: fromPromise<SaveOutcome, SaveTarget>(async () => 'saved'),
  },
  actions: {
    assignFile: assign({ file: ({ event }) => event.file }),
  },
  guards: {
    isCancelled: ({ event }) => (event as unknown as { output?: SaveOutcome }).output === 'cancelled',
  },
}).createMachine({
  id: 'sealedFileSave',
  initial: 'idle',
  context: { file: null },
  states: {
    idle: { on: { 'file.save': { target: 'saving', actions: 'assignFile' } } },
    saving: {
      invoke: {
        id: 'saveFile',
        src: 'saveFile',
        input: ({ context }) => context.file!,
        onDone: [{ guard: 'isCancelled', target: 'idle' }, { target: 'saved' }],
        onError: { target: 'failed' },
      },
    },
    saved: { on: { 'file.save': { target: 'saving', actions: 'assignFile' } } },
    failed: { on: { 'file.save': { target: 'saving', actions: 'assignFile' } } },
  },
});
