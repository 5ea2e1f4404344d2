/**
 * The record of a phone or meeting report on a sealed case (docs/decisions/record-versions.md
 * "Sealed cases"): the handler's browser seals each version under the case's data key and
 * computes its SHA-256 over the plaintext; the reporter's browser opens every version,
 * checks the hash against the text it opened, and seals its comments. The server stores
 * envelopes and hashes and checks only their shape.
 *
 * Formats: a version is a sealed field (field.ts) with additional data
 * `wb:<case id>:case_record_version.text_enc:<version number>`, so an envelope moved to
 * another version, field or case does not open; a comment is a sealed field with
 * `wb:<case id>:case_comment.body_enc:<comment id>` (the browser picks the id). The hash
 * is hex SHA-256 of the text's UTF-8 bytes, as the server computes it for a server-keyed
 * case (server/cases/record.ts), so both kinds of case prove a version the same way.
 *
 * A transcript of a voice file (docs/decisions/voice-messages.md "Transcript") is a record of
 * its own: the same formats with the file's id before the version or comment id
 * (`…:case_record_version.text_enc:<file id>:<version>`, `…:case_comment.body_enc:<file id>:<comment id>`),
 * so the server cannot move a version or a comment between the record and a transcript,
 * nor between two transcripts.
 *
 * Invariants: opening never throws for one bad version or comment: it is `text: null`
 * beside the rest; a version whose text opened but whose hash differs from the stored
 * one is `verified: false`, never shown as the version the hash names.
 */
import { fromBase64, toBase64, toHex, utf8 } from './bytes.ts';
import { fieldContext, openFieldText, sealField } from './field.ts';
import type { EpochKeys } from './epochs.ts';

/**
 * Versions and comments do not name their key epoch (a revocation starts a new one:
 * epochs.ts), so each is opened with the newest key first and then the older ones the
 * wrap reaches; AES-GCM refuses every key but the one it was sealed under.
 */
async function openWithAny(keys: Uint8Array | EpochKeys, context: string, box: Uint8Array): Promise<string | null> {
  const candidates = keys instanceof Uint8Array ? [keys] : [...keys.byEpoch.entries()].sort((a, b) => b[0] - a[0]).map(([, k]) => k);
  for (const key of candidates) {
    try {
      return await openFieldText(key, context, box);
    } catch {
      // Not this epoch's key: try the next.
    }
  }
  return null;
}

export const RECORD_COLUMNS = { version: 'case_record_version.text_enc', comment: 'case_comment.body_enc' } as const;

/** The row part of the additional data: the version or comment id, after the voice file's id for a transcript. */
const subjectRow = (fileId: string | null | undefined, row: string) => (fileId ? `${fileId}:${row}` : row);

/** Hex SHA-256 of the text's UTF-8 bytes: the version's fingerprint on both sides. */
export async function recordHash(text: string): Promise<string> {
  return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', utf8(text))));
}

export interface SealedRecordVersion {
  version: number;
  /** The sealed field, base64. */
  text: string;
  sha256: string;
}

/** One version of the record sealed under the case's data key, with its hash over the plaintext. */
export async function sealRecordVersion(dataKey: Uint8Array, caseId: string, version: number, text: string, fileId?: string | null): Promise<SealedRecordVersion> {
  const sealed = await sealField(dataKey, fieldContext(caseId, RECORD_COLUMNS.version, subjectRow(fileId, String(version))), text);
  return { version, text: toBase64(sealed), sha256: await recordHash(text) };
}

/** A version as the sealed read lists it (the envelope and the hash the server stored). */
export interface RecordVersionEnvelope {
  version: number;
  sha256: string;
  createdAt: string;
  approvedAt: string | null;
  text: string;
  /** Who saved it (clear data, in handlers' reads only; null: not kept). */
  authorId?: string | null;
  author?: string | null;
}

export interface OpenedRecordVersion extends Omit<RecordVersionEnvelope, 'text'> {
  /** null: this version could not be opened. */
  text: string | null;
  /** The text opened and its SHA-256 is the stored hash; false for a mismatch or a version that did not open. */
  verified: boolean;
}

/** Opens each version on its own and checks its hash here, against the text this browser opened. */
export async function openRecordVersions(keys: Uint8Array | EpochKeys, caseId: string, versions: readonly RecordVersionEnvelope[], fileId?: string | null): Promise<OpenedRecordVersion[]> {
  return Promise.all(
    versions.map(async (v) => {
      let text: string | null = null;
      try {
        text = await openWithAny(keys, fieldContext(caseId, RECORD_COLUMNS.version, subjectRow(fileId, String(v.version))), fromBase64(v.text));
      } catch {
        text = null; // not base64
      }
      const verified = text !== null && (await recordHash(text)) === v.sha256;
      const author = v.authorId !== undefined ? { authorId: v.authorId, author: v.author ?? null } : {};
      return { version: v.version, sha256: v.sha256, createdAt: v.createdAt, approvedAt: v.approvedAt, ...author, text, verified };
    }),
  );
}

/** The reporter's comment on the record, sealed to the id its additional data names. */
export async function sealComment(dataKey: Uint8Array, caseId: string, text: string, id: string = globalThis.crypto.randomUUID(), fileId?: string | null): Promise<{ id: string; body: string }> {
  return { id, body: toBase64(await sealField(dataKey, fieldContext(caseId, RECORD_COLUMNS.comment, subjectRow(fileId, id)), text)) };
}

/** Opens each comment on its own; one that fails is `text: null`. */
export async function openComments(keys: Uint8Array | EpochKeys, caseId: string, comments: readonly { id: string; body: string; created: string }[], fileId?: string | null): Promise<{ id: string; created: string; text: string | null }[]> {
  return Promise.all(
    comments.map(async (c) => {
      try {
        return { id: c.id, created: c.created, text: await openWithAny(keys, fieldContext(caseId, RECORD_COLUMNS.comment, subjectRow(fileId, c.id)), fromBase64(c.body)) };
      } catch {
        return { id: c.id, created: c.created, text: null };
      }
    }),
  );
}
