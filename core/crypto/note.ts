/**
 * Internal notes of a case's handlers (issue 38 Build 1, docs/decisions/internal-notes.md).
 * On a sealed case the handler's browser seals each saved text under the case's data key
 * of the current epoch and the server stores the envelope; on a server-keyed case the
 * server seals the same field with the same additional data, so a note opens the same
 * way wherever it was sealed.
 *
 * Format: a sealed field (field.ts) with additional data
 * `wb:<case id>:case_note.body_enc:<note id>:<version>`: an envelope moved to another
 * note, case or version (an older text replayed as the current one) does not open.
 *
 * Invariant: opening never throws for one bad note: it is `text: null` beside the rest.
 */
import { fromBase64, toBase64 } from './bytes.ts';
import { fieldContext, openFieldText, sealField } from './field.ts';
import { keyForEpoch, type EpochKeys } from './epochs.ts';

export const NOTE_COLUMN = 'case_note.body_enc';

/** The row id a note's envelope is bound to: its id and the version it is saved as. */
export const noteRowId = (id: string, version: number) => `${id}:${version}`;

/** One saved text of a note, sealed here; only `body` (base64) and the epoch leave the page. */
export async function sealNote(dataKey: Uint8Array, caseId: string, id: string, version: number, text: string): Promise<string> {
  return toBase64(await sealField(dataKey, fieldContext(caseId, NOTE_COLUMN, noteRowId(id, version)), text));
}

/** Opens a note's envelope with its epoch's key; null when that key is not held or the envelope does not open. */
export async function openNote(keys: Uint8Array | EpochKeys, caseId: string, note: { id: string; version: number; body: string; epoch?: number | null }): Promise<string | null> {
  const key = keyForEpoch(keys, note.epoch ?? undefined);
  if (!key) return null;
  try {
    return await openFieldText(key, fieldContext(caseId, NOTE_COLUMN, noteRowId(note.id, note.version)), fromBase64(note.body));
  } catch {
    return null;
  }
}
