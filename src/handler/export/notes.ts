/**
 * The internal notes as one section of an export's document (docs/decisions/internal-notes.md,
 * case-export.md), from the notes as the handler's browser opened them (src/handler/notes.ts
 * `readNotes`): the same for a server-keyed case (serverCase.ts) and a sealed one.
 * Each note names its author, its last editor and its version; one that did not open
 * says so rather than vanishing. Its files follow it, each with the lines the case's
 * files get (name, size, SHA-256, zip entry, or why it did not open); a file whose name
 * did not open is named by its date.
 */
import type { OpenedNote } from '../../../machines/handler/notes.ts';
import type { MessageValues } from '../../i18n/message.ts';
import type { ExportLine, ExportSection } from './document.ts';
import type { HashedFile } from './files.ts';

type Translate = (key: string, values?: MessageValues) => string;

/** `tn`: the `notes` area's messages. */
export function notesSection(
  notes: readonly OpenedNote[],
  tn: Translate,
  date: (iso: string) => string,
  none: string,
  files: { files: readonly (HashedFile & { noteId: string })[]; lines: (f: HashedFile) => ExportLine[] } = { files: [], lines: () => [] },
): ExportSection {
  const lines: ExportSection['lines'] = [{ text: tn('notes.notVisible') }];
  for (const n of notes) {
    const head = [tn('notes.writtenBy', { name: n.author.name, time: date(n.created) }), ...(n.editedBy ? [tn('notes.editedBy', { name: n.editedBy.name, time: date(n.updated) })] : []), tn('notes.audit.version', { version: n.version })].join(' · ');
    lines.push({ label: head, text: n.text ?? tn('notes.unopened') });
    const hashed = files.files.filter((f) => f.noteId === n.id);
    if (hashed.length || n.files.some((f) => f.name === null)) lines.push({ text: tn('notes.files.title') });
    for (const f of hashed) lines.push(...files.lines(f));
    for (const f of n.files) if (f.name === null) lines.push({ text: tn('notes.files.unopened', { date: date(f.created) }) });
  }
  if (notes.length === 0) lines.push({ text: none });
  return { title: tn('notes.export'), lines };
}
