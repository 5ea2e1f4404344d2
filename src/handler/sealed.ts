/**
 * The sealed case's effects (machines/handler/sealedCase.ts; docs/decisions/blind-server.md
 * "Handler pages and grants"): fetch the envelopes and this account's wrap, open them
 * with the unlocked keys (core/crypto/case.ts), seal a message, and re-wrap the data
 * key to a colleague. What leaves the page is envelopes and sealed boxes only.
 *
 * A colleague is offered for a grant only when the key log verified in this browser
 * (against the anchor and the head it remembered, src/handler/keys.ts) certifies the
 * key, entitles it to the case's officer, and the server's account list shows the
 * account live and holding that very key; the key sealed to is the log's, never the
 * server's copy.
 *
 * A revocation makes the next epoch's key here (core/crypto/epochs.ts) and wraps it to
 * every other holder of the current epoch, each key taken from the verified log (the
 * recovery key from its anchor); a holder the log does not verify here stops it.
 */
import { fieldContext, fromBase64, keyForEpoch, keyId, makeNextEpoch, openCaseKeys, openCaseParts, openComments, openFieldText, openFileName, openRecordVersions, sealMessage, sealRecordVersion, sealToPublicKey, toBase64, type EpochKeys, type EpochRecipient } from '../../core/crypto/index.ts';
import type { CaseStatus } from '../../machines/schema.ts';
import { voiceType } from './voice.ts';
import { ApiError, type ApiClient } from '../api/client.ts';
import type { OpenedKeys } from '../../machines/handler/session.ts';
import type {
  CandidatesAnswer,
  FileSaveInput,
  GrantCandidate,
  OpenedAuditEntry,
  OpenedFile,
  StatusAnswer,
  RevokeInput,
  OpenedSealedCase,
  SealedDetails,
  SealedIdentity,
  SealedLoadAnswer,
  SealedOpenAnswer,
  SealedRecordInput,
  SealedSendAnswer,
  SealedSendInput,
  SealedView,
} from '../../machines/handler/sealedCase.ts';
import type { Colleague, HandlerKeysApi } from './keys.ts';
import type { LatestAnswer, SaveAnswer } from '../../machines/handler/recordEditor.ts';

const numberPath = (n: string) => encodeURIComponent(n.replace(/\D/g, ''));

async function call<T>(run: () => Promise<T>): Promise<{ status: number; data?: T; code?: string }> {
  try {
    return { status: 200, data: await run() };
  } catch (err) {
    if (err instanceof ApiError && typeof err.status === 'number') return { status: err.status, code: err.code };
    throw err;
  }
}

/** The column the server sealed its audit entries under, each bound to its time (server/handlers/cases.ts). */
const AUDIT_COLUMN = 'case_audit.entry_enc';

/**
 * The trail with each entry from before the case was sealed opened here; one that does not open is `unopened` beside the rest.
 * Those entries were sealed before any revocation, under the first epoch's key.
 */
export async function openAudit(keys: Uint8Array | EpochKeys, caseId: string, audit: SealedView['audit']): Promise<OpenedAuditEntry[]> {
  const dataKey = keyForEpoch(keys, undefined);
  return Promise.all(
    audit.map(async (a): Promise<OpenedAuditEntry> => {
      if (!('sealed' in a)) return a;
      if (!dataKey) return { at: a.at, unopened: true };
      try {
        const e = JSON.parse(await openFieldText(dataKey, fieldContext(caseId, AUDIT_COLUMN, a.at), fromBase64(a.sealed))) as Omit<Extract<OpenedAuditEntry, { action: string }>, 'at'>;
        return { at: a.at, handlerId: e.handlerId ?? null, handlerName: e.handlerName ?? null, action: String(e.action), detail: e.detail ?? {} };
      } catch {
        return { at: a.at, unopened: true };
      }
    }),
  );
}

export function sealedCaseEffects(api: ApiClient, keys: Pick<HandlerKeysApi, 'verifiedLog'>) {
  const loadSealed = async (caseNumber: string): Promise<SealedLoadAnswer> => {
    const r = await call(() => api.json<SealedView>(`/api/handler/cases/${numberPath(caseNumber)}/sealed`));
    return { status: r.status, view: r.data };
  };

  /** The data keys this account's wrap reaches (its epoch and every older one), then each part on its own. */
  const openCase = async (view: SealedView, own: OpenedKeys): Promise<SealedOpenAnswer> => {
    let keys: EpochKeys;
    try {
      keys = await openCaseKeys(view, { ecdh: { privateKey: own.ecdh.privateKey, publicKey: own.ecdhSpki }, keyId: await keyId(own.ecdhSpki) });
    } catch {
      return { outcome: 'refused' };
    }
    const parts = await openCaseParts<SealedDetails, SealedIdentity>(keys, view);
    const texts = new Map(parts.messages.map((m) => [m.id, m.text]));
    // Who wrote each message: the account names are clear data; a failure only leaves "a colleague".
    const senders: Record<string, string> = {};
    const keyHolders: Record<string, string> = {};
    const colleagues = await api.json<{ handlers: Colleague[] }>('/api/handler/keys/colleagues').catch(() => ({ handlers: [] as Colleague[] }));
    for (const h of colleagues.handlers) {
      senders[h.id] = h.name;
      if (h.ecdhSpki) keyHolders[await keyId(fromBase64(h.ecdhSpki))] = h.name;
    }
    // Each file's name on its own, with its epoch's key: one that does not open (or of an epoch not reached) is named as such beside the rest.
    const files: OpenedFile[] = await Promise.all(
      view.files.map(async (f) => {
        const base = { id: f.id, messageId: f.messageId, created: f.created, sealedSize: f.size, ...(f.epoch !== undefined ? { epoch: f.epoch } : {}) };
        const key = keyForEpoch(keys, f.epoch);
        try {
          if (!key) throw new Error('no key for this epoch');
          const { name, size } = await openFileName(key, view.caseId, f.id, f.name);
          return { ...base, name, size };
        } catch {
          return { ...base, name: null, size: null };
        }
      }),
    );
    const opened: OpenedSealedCase = {
      details: parts.details && typeof parts.details === 'object' ? parts.details : null,
      whistleblower: parts.whistleblower,
      messages: view.messages.map((m) => ({ id: m.id, type: m.type, time: m.time, createdByUserId: m.createdByUserId, answerWanted: m.answerWanted, text: texts.get(m.id) ?? null })),
      files,
      audit: await openAudit(keys, view.caseId, view.audit),
      senders,
      record: {
        versions: await openRecordVersions(keys, view.caseId, view.record?.versions ?? []),
        comments: await openComments(keys, view.caseId, view.record?.comments ?? []),
      },
      transcripts: await Promise.all(
        (view.transcripts ?? []).map(async (t) => ({
          fileId: t.fileId,
          versions: await openRecordVersions(keys, view.caseId, t.versions, t.fileId),
          comments: await openComments(keys, view.caseId, t.comments, t.fileId),
        })),
      ),
      keyHolders,
    };
    return { outcome: 'opened', keys, opened };
  };

  /** Seals the record's next version and its hash over the plaintext here; only the envelope and the hash leave the page. */
  const saveRecord = async (input: SealedRecordInput): Promise<SaveAnswer> => {
    const sealed = await sealRecordVersion(input.dataKey, input.caseId, input.version, input.text, input.fileId);
    const path = input.fileId ? `files/${encodeURIComponent(input.fileId)}/transcript/sealed` : 'record/sealed';
    const r = await call(() => api.json(`/api/handler/cases/${numberPath(input.caseNumber)}/${path}`, { method: 'POST', body: sealed }));
    return { status: r.status, code: r.code };
  };

  /** After a conflict on a voice file's transcript (issue 40): its latest version read again and opened here, as for the record. */
  const loadLatestTranscript = async (input: { caseNumber: string; caseId: string; keys: EpochKeys; fileId: string }): Promise<LatestAnswer> => {
    const r = await loadSealed(input.caseNumber);
    const last = r.view?.transcripts?.find((t) => t.fileId === input.fileId)?.versions.at(-1);
    if (r.status !== 200 || !last) return { status: r.status === 200 ? 0 : r.status };
    const [opened] = await openRecordVersions(input.keys, input.caseId, [last], input.fileId);
    return { status: 200, latest: { version: last.version, text: opened?.verified ? opened.text : null, author: last.author ?? null, createdAt: last.createdAt } };
  };

  /** A voice file opened whole in this page's memory to be played (issue 40): the same decryption and content check as a save. */
  const openVoice = async (input: { caseNumber: string; dataKey: Uint8Array; file: { id: string; name: string; size: number | null } }): Promise<Blob> => {
    // The opening code loads with the first recording played, not with the workspace's entry (handler-spa.md).
    const { openSealedFileForExport } = await import('./fileOpening.ts');
    const stream = await openSealedFileForExport(api, input);
    const parts: Uint8Array[] = [];
    for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) parts.push(piece);
    return new Blob(parts as BlobPart[], { type: voiceType(input.file.name) });
  };

  /**
   * After a conflict: the record read again and its latest version opened here with the
   * case's keys. Its text is shown only when its hash matches the text opened (otherwise
   * null, as for a version that did not open), so the choice is never built on a text
   * the stored hash does not name.
   */
  const loadLatestRecord = async (input: { caseNumber: string; caseId: string; keys: EpochKeys }): Promise<LatestAnswer> => {
    const r = await loadSealed(input.caseNumber);
    const last = r.view?.record?.versions.at(-1);
    if (r.status !== 200 || !last) return { status: r.status === 200 ? 0 : r.status };
    const [opened] = await openRecordVersions(input.keys, input.caseId, [last]);
    return { status: 200, latest: { version: last.version, text: opened?.verified ? opened.text : null, author: last.author ?? null, createdAt: last.createdAt } };
  };

  /**
   * The attachments first (each checked against its name as the reporter's form checks,
   * sealed and uploaded in a sealed upload session of this case), then the sealed message
   * naming them. A file that does not fit its name, or an upload that fails, sends nothing.
   */
  const sendSealed = async (input: SealedSendInput): Promise<SealedSendAnswer> => {
    const files = input.attachments as (Blob & { name: string })[];
    let uploads: string[] = [];
    const headers: Record<string, string> = {};
    if (files.length) {
      // tus-js-client and the file sealing load with the first attachment, not with the workspace's entry (handler-spa.md).
      const { uploadSealedFiles } = await import('./sealedUpload.ts');
      const up = await uploadSealedFiles(api, input, files);
      if (!up.session) return { status: up.status };
      headers['x-upload-session'] = up.session;
      uploads = up.uploads;
    }
    const sealed = await sealMessage(input.dataKey, input.caseId, input.text);
    const r = await call(() =>
      api.json<{ message: { id: string; time: string; files: { id: string; size: number }[] } }>(`/api/handler/cases/${numberPath(input.caseNumber)}/messages/sealed`, {
        method: 'POST',
        headers,
        body: { id: sealed.id, body: sealed.body, type: input.type, answerWanted: input.answerWanted, epoch: input.epoch, ...(uploads.length ? { uploads } : {}) },
      }),
    );
    return { status: r.status === 200 ? 201 : r.status, message: r.data?.message };
  };

  const loadCandidates = async (input: { caseNumber: string; officerId: string; handlerId: string }): Promise<CandidatesAnswer> => {
    const v = await keys.verifiedLog();
    if (!v.ok) return { status: 'refused', reason: v.reason };
    const [{ handlers }, holders] = await Promise.all([
      api.json<{ handlers: Colleague[] }>('/api/handler/keys/colleagues'),
      api.json<{ epoch: number; recipientKeyIds: string[] }>(`/api/handler/cases/${numberPath(input.caseNumber)}/key-wraps`),
    ]);
    const holding = new Set(holders.recipientKeyIds);
    const candidates: GrantCandidate[] = [];
    const holderList: GrantCandidate[] = [];
    for (const k of v.result?.keys ?? []) {
      if (k.handlerId === input.handlerId) continue;
      const account = handlers.find((h) => h.id === k.handlerId);
      const entry = (name: string, email: string | null): GrantCandidate => ({ handlerId: k.handlerId, name, email, recipientKeyId: k.ecdhKeyId, ecdhSpki: toBase64(k.ecdhSpki) });
      // A holder can be revoked whatever her account's state now (a disabled account's key is the first to take away).
      if (holding.has(k.ecdhKeyId)) {
        holderList.push(entry(account?.name ?? k.handlerId, account?.email ?? null));
        continue;
      }
      // A key with no officers stands for an account tied to none, which sees every case.
      const entitled = k.officerIds.length === 0 || k.officerIds.includes(input.officerId);
      if (!entitled || !account || account.disabled || (await keyId(fromBase64(account.ecdhSpki))) !== k.ecdhKeyId) continue;
      candidates.push(entry(account.name, account.email));
    }
    candidates.sort((a, b) => a.name.localeCompare(b.name));
    holderList.sort((a, b) => a.name.localeCompare(b.name));
    return { status: 'ok', candidates, holders: holderList };
  };

  /** The next epoch without `holder`: its key wrapped here to every other holder's key from the verified log. */
  const revokeKey = async (input: RevokeInput): Promise<{ status: number; code?: string }> => {
    const v = await keys.verifiedLog();
    if (!v.ok || !v.log.anchor) return { status: 409, code: 'KEY_LOG_REFUSED' };
    const holders = await api.json<{ holders: { recipientKeyId: string; kind: 'handler' | 'recovery' }[]; reporter: boolean }>(`/api/handler/cases/${numberPath(input.caseNumber)}/key-wraps`);
    const recoverySpki = fromBase64(v.log.anchor.ecdhSpki);
    const recoveryId = await keyId(recoverySpki);
    const recipients: EpochRecipient[] = [];
    for (const h of holders.holders) {
      const spki = h.kind === 'recovery' ? (h.recipientKeyId === recoveryId ? recoverySpki : null) : (v.result?.keys.find((k) => k.ecdhKeyId === h.recipientKeyId)?.ecdhSpki ?? null);
      if (!spki) return { status: 409, code: 'HOLDER_UNVERIFIED' };
      recipients.push({ recipientKeyId: h.recipientKeyId, kind: h.kind, spki });
    }
    const next = await makeNextEpoch({ caseId: input.caseId, epoch: input.epoch, dataKey: input.dataKey, revoke: input.holder.recipientKeyId, recipients, reporter: holders.reporter });
    const r = await call(() => api.json(`/api/handler/cases/${numberPath(input.caseNumber)}/key-epochs`, { method: 'POST', body: next.body }));
    return { status: r.status === 200 ? 201 : r.status, code: r.code };
  };

  const grantKey = async (input: { caseNumber: string; caseId: string; epoch: number; dataKey: Uint8Array; candidate: GrantCandidate }): Promise<{ status: number; code?: string }> => {
    const { recipientKeyId, ecdhSpki } = input.candidate;
    const wrap = await sealToPublicKey(fromBase64(ecdhSpki), input.dataKey, { caseId: input.caseId, epoch: input.epoch, recipientKeyId });
    const r = await call(() => api.json(`/api/handler/cases/${numberPath(input.caseNumber)}/key-wraps`, { method: 'POST', body: { recipientKeyId, wrap: toBase64(wrap) } }));
    return { status: r.status === 200 ? 201 : r.status, code: r.code };
  };

  /** The answer is the sealed view with the audit trail, the change's entry included. */
  const changeStatus = async (input: { caseNumber: string; caseId: string; keys: EpochKeys; status: CaseStatus }): Promise<StatusAnswer> => {
    const r = await call(() => api.json<SealedView>(`/api/handler/cases/${numberPath(input.caseNumber)}/status`, { method: 'PUT', body: { status: input.status } }));
    return { status: r.status, view: r.data, audit: r.data ? await openAudit(input.keys, input.caseId, r.data.audit) : undefined };
  };

  // The opening, the file check and its worker (pdf-lib, exifr) load with the first file saved (handler-spa.md).
  const saveFile = async (input: FileSaveInput) => (await import('./fileOpening.ts')).saveSealedFile(api, input);

  return { loadSealed, openCase, sendSealed, saveRecord, loadLatestRecord, loadLatestTranscript, openVoice, loadCandidates, grantKey, revokeKey, changeStatus, saveFile };
}

export type SealedCaseEffects = ReturnType<typeof sealedCaseEffects>;
