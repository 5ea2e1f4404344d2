/**
 * The internal notes' effects (machines/handler/notes.ts; docs/decisions/internal-notes.md).
 * A sealed case: each saved text is sealed here under the case's data key of the newest
 * epoch this browser holds (core/crypto/note.ts), bound to the note's id and the version
 * it is saved as, and only the envelope leaves the page; each note is opened here with
 * its own epoch's key. A server-keyed case: the text goes to the server, which seals it.
 *
 * `readNotes` is the one list of a case's notes as this browser opens them: the notes
 * panel and the case export (src/handler/export) both read it.
 *
 * A note's files (internal-notes.md "Files") go the way a handler message's files go: on
 * a sealed case checked, sealed and uploaded here (sealedUpload.ts `uploadSealedFiles`)
 * and named to the note; each name opened here with its epoch's key, each download
 * opened and checked here (fileOpening.ts `saveSealedFile`). On a server-keyed case they
 * go as multipart and come back through the case's download route.
 */
import { keyForEpoch, openFileName, openNote, sealNote, type EpochKeys } from '../../core/crypto/index.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { AttachInput, NoteEdit, NoteSaveAnswer, NotesAnswer, OpenedNote, OpenedNoteFile } from '../../machines/handler/notes.ts';
import type { FileSaveAnswer } from '../../machines/handler/sealedCase.ts';
import { uploadSealedFiles } from './sealedUpload.ts';
import { canSaveToDisk, saveSealedFile } from './fileOpening.ts';

/** What a sealed case's notes are sealed and opened with; absent on a server-keyed case. */
export interface NoteKeys {
  caseId: string;
  keys: EpochKeys;
}

type WireFile = { id: string; name: string; size: number; created: string; epoch?: number };
type Wire = Omit<OpenedNote, 'text' | 'files'> & { text?: string; body?: string; epoch?: number; files?: WireFile[] };

async function openedFile(f: WireFile, sealed: NoteKeys | undefined): Promise<OpenedNoteFile> {
  const base = { id: f.id, storedSize: f.size, created: f.created, ...(f.epoch !== undefined ? { epoch: f.epoch } : {}) };
  if (!sealed) return { ...base, name: f.name, size: f.size };
  const key = keyForEpoch(sealed.keys, f.epoch);
  try {
    if (!key) throw new Error('no key for this epoch');
    const { name, size } = await openFileName(key, sealed.caseId, f.id, f.name);
    return { ...base, name, size };
  } catch {
    return { ...base, name: null, size: null };
  }
}

const numberPath = (n: string) => encodeURIComponent(n.replace(/\D/g, ''));

async function call<T>(run: () => Promise<T>): Promise<{ status: number; data?: T; code?: string }> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
    throw err;
  }
}

async function opened(n: Wire, sealed: NoteKeys | undefined): Promise<OpenedNote> {
  const text = sealed ? (n.body !== undefined ? await openNote(sealed.keys, sealed.caseId, { id: n.id, version: n.version, body: n.body, epoch: n.epoch }) : null) : (n.text ?? null);
  const files = await Promise.all((n.files ?? []).map((f) => openedFile(f, sealed)));
  return { id: n.id, version: n.version, text, files, author: n.author, editedBy: n.editedBy, created: n.created, updated: n.updated };
}

/** The case's notes, each opened on its own (one that does not open is `text: null` beside the rest). */
export async function readNotes(client: ApiClient, caseNumber: string, sealed?: NoteKeys): Promise<{ status: number; notes?: OpenedNote[] }> {
  const r = await call(() => client.json<{ sealed: boolean; notes: Wire[] }>(`/api/handler/cases/${numberPath(caseNumber)}/notes`));
  if (!r.data) return { status: r.status };
  return { status: r.status, notes: await Promise.all(r.data.notes.map((n) => opened(n, sealed))) };
}

export function notesEffects(client: ApiClient, sealed?: NoteKeys) {
  const path = (caseNumber: string) => `/api/handler/cases/${numberPath(caseNumber)}/notes`;
  const loadNotes = (i: { caseNumber: string }): Promise<NotesAnswer> => readNotes(client, i.caseNumber, sealed);

  const addNote = async (i: { caseNumber: string; text: string }): Promise<NoteSaveAnswer> => {
    let body: unknown = { text: i.text };
    if (sealed) {
      const id = globalThis.crypto.randomUUID();
      body = { id, body: await sealNote(sealed.keys.dataKey, sealed.caseId, id, 1, i.text), epoch: sealed.keys.epoch };
    }
    const r = await call(() => client.json<{ note: Wire }>(path(i.caseNumber), { method: 'POST', body }));
    return r.data ? { status: 201, note: await opened(r.data.note, sealed) } : { status: r.status, code: r.code };
  };

  /** Saved over `version`; on 409 NOTE_CHANGED the colleague's note comes back as `theirs`, opened here. */
  const saveNote = async (i: { caseNumber: string } & NoteEdit): Promise<NoteSaveAnswer> => {
    const body = sealed ? { body: await sealNote(sealed.keys.dataKey, sealed.caseId, i.id, i.version + 1, i.text), version: i.version, epoch: sealed.keys.epoch } : { text: i.text, version: i.version };
    const r = await call(() => client.json<{ note: Wire }>(`${path(i.caseNumber)}/${encodeURIComponent(i.id)}`, { method: 'PUT', body }));
    if (r.data) return { status: 200, note: await opened(r.data.note, sealed) };
    if (r.status === 409 && r.code === 'NOTE_CHANGED') {
      const now = await readNotes(client, i.caseNumber, sealed);
      const theirs = now.notes?.find((n) => n.id === i.id);
      return { status: 409, code: r.code, ...(theirs ? { theirs } : {}) };
    }
    return { status: r.status, code: r.code };
  };

  /** Files to an existing note: sealed and uploaded here on a sealed case, multipart on a server-keyed one. */
  const attachFiles = async (i: AttachInput): Promise<NoteSaveAnswer> => {
    const files = i.files as (Blob & { name: string; type?: string })[];
    const url = `${path(i.caseNumber)}/${encodeURIComponent(i.id)}/files`;
    let r: { status: number; data?: { note: Wire }; code?: string };
    if (sealed) {
      const up = await uploadSealedFiles(client, { caseNumber: i.caseNumber, caseId: sealed.caseId, dataKey: sealed.keys.dataKey }, files);
      if (!up.session) return { status: up.status, code: up.status === 415 ? 'FILE_CONTENT_MISMATCH' : undefined };
      r = await call(() => client.json<{ note: Wire }>(url, { method: 'POST', headers: { 'x-upload-session': up.session! }, body: { uploads: up.uploads, epoch: sealed.keys.epoch } }));
    } else {
      const fd = new FormData();
      fd.append('noteFilesDto', JSON.stringify({}));
      for (const f of files) fd.append('files', f, f.name);
      r = await call(() => client.json<{ note: Wire }>(url, { method: 'POST', body: fd }));
    }
    return r.data ? { status: 201, note: await opened(r.data.note, sealed) } : { status: r.status, code: r.code };
  };

  /** A sealed case's note file, opened and checked here as the case's own files are (fileOpening.ts). */
  const saveFile = async (i: { caseNumber: string; file: OpenedNoteFile & { name: string } }): Promise<FileSaveAnswer> => {
    const dataKey = sealed ? keyForEpoch(sealed.keys, i.file.epoch) : null;
    if (!sealed || !dataKey) return { outcome: 'unopened' };
    return saveSealedFile(client, { caseNumber: i.caseNumber, caseId: sealed.caseId, dataKey, toDisk: canSaveToDisk(), file: { id: i.file.id, messageId: null, created: i.file.created, sealedSize: i.file.storedSize, name: i.file.name, size: i.file.size, ...(i.file.epoch !== undefined ? { epoch: i.file.epoch } : {}) } });
  };

  return { loadNotes, addNote, saveNote, attachFiles, saveFile };
}
