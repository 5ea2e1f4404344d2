/**
 * The API description (OpenAPI 3.1), served at /api/openapi.json. Request bodies are
 * generated from the very valibot schemas the routes validate with (machines/schema.ts
 * and the server's own), so the description cannot drift from the validators;
 * test/server/openapi.test.ts fails when a route under /api is registered but not
 * listed here (or listed but gone), and sends each documented body's violations to
 * the real route. Prose for each call: docs/api.md.
 */
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { LANGUAGES, replyTemplateSchema, CASE_STATUSES, INBOX_ASSIGNED, INBOX_PAGE, SUBMISSION_TYPES, caseDtoSchema, caseExportDtoSchema, caseSummariesDtoSchema, commentDtoSchema, enteredCaseDtoSchema, sealedEnteredCaseDtoSchema, statisticsKeyDtoSchema, statisticsKeyGiftDtoSchema, messageDtoSchema, submissionByMeetingDtoSchema, submissionByPhoneDtoSchema, whistleblowerUpdateSchema } from '../machines/schema.ts';
import { enrolFinishSchema, enrolStartSchema, handlerMessageSchema, newTokenSchema, reportSchema, signInSaltSchema, signInSchema, statusSchema } from './routes/handler.ts';
import { accountChangeSchema, handlerSchema, importSchema, inviteSchema, operatorSchema, operatorTokenSchema, purgeSchema, resetSchema } from './routes/admin.ts';
import { keyAnchorSchema } from './routes/keys.ts';
import { assigneeSchema, shareSchema } from './handlers/assignment.ts';
import { noteDtoSchema, noteEditDtoSchema, noteFilesDtoSchema, sealedNoteDtoSchema, sealedNoteEditDtoSchema } from '../machines/schema.ts';
import * as vNotes from 'valibot';
import { draftSchema, editorImportSchema, imageSchema, previewSchema, revertSchema } from './routes/company-editor.ts';
import { approveSchema } from './routes/record.ts';
import { CHALLENGE_PATH } from './security/abuse.ts';
import { ANSWERS, ANSWER_SCHEMAS, type AnswerName } from './openapi-answers.ts';
import { CASE_UPLOAD_SESSIONS_PATH, UPLOADS_PATH, UPLOAD_SESSIONS_PATH } from './uploads/resumable.ts';

/**
 * Who may call: `handler` is a handler API token (bearer) or the web workspace's
 * session cookie, both accepted by the handler routes; `handlerSession` is the
 * session cookie alone (signing out, the handler's own tokens). `admin` is the
 * operator: the loopback admin token or an operator's session; `companyAdmin` the
 * operator or the company's administrator by session (server/security/roles.ts).
 */
type Auth = 'none' | 'reporter' | 'handler' | 'handlerSession' | 'admin' | 'companyAdmin' | 'uploadSession';
type Tag = 'public' | 'private' | 'handler' | 'admin' | 'operations';

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'HEAD' | 'DELETE' | 'OPTIONS';
  /** Fastify's form (`:param`). */
  path: string;
  tag: Tag;
  summary: string;
  auth: Auth;
  /** A JSON body, or a multipart body whose JSON part is `part` (plus up to five `files`). */
  body?: { schema: keyof typeof SCHEMAS; multipart?: { part: string } };
  /** Needs a solved proof-of-work challenge in X-Proof-Of-Work (server/security/abuse.ts). */
  pow?: true;
  /** Request headers the call reads (the tus protocol's), besides auth and proof-of-work. */
  headers?: { name: string; required: boolean; description: string }[];
  /** The body is raw bytes of this media type (a tus PATCH). */
  octets?: string;
  /** Query parameters the call reads (a list's page and filters). */
  query?: { name: string; description: string; schema: Record<string, unknown> }[];
  /** Success status and what it carries. */
  ok: [number, string];
}

/** Every body schema, by the component name it gets. */
export const SCHEMAS = {
  caseDto: caseDtoSchema,
  submissionByPhoneDto: submissionByPhoneDtoSchema,
  submissionByMeetingDto: submissionByMeetingDtoSchema,
  messageDto: messageDtoSchema,
  whistleblowerUpdate: whistleblowerUpdateSchema,
  recordApproval: approveSchema,
  commentDto: commentDtoSchema,
  handlerStatus: statusSchema,
  caseExport: caseExportDtoSchema,
  caseSummaries: caseSummariesDtoSchema,
  enteredCase: enteredCaseDtoSchema,
  sealedEnteredCase: sealedEnteredCaseDtoSchema,
  handlerAssignee: assigneeSchema,
  handlerShare: shareSchema,
  /** A server-keyed case's note text, or a sealed case's envelope (docs/decisions/internal-notes.md). */
  handlerNote: vNotes.union([noteDtoSchema, sealedNoteDtoSchema]),
  handlerNoteEdit: vNotes.union([noteEditDtoSchema, sealedNoteEditDtoSchema]),
  /** Files to a note: a sealed case's upload ids (JSON, with X-Upload-Session), a server-keyed case's as multipart `files` beside this part. */
  handlerNoteFiles: noteFilesDtoSchema,
  handlerReport: reportSchema,
  handlerMessageDto: handlerMessageSchema,
  adminHandler: handlerSchema,
  adminCompanyImport: importSchema,
  adminPurge: purgeSchema,
  adminKeyAnchor: keyAnchorSchema,
  handlerEnrolmentStart: enrolStartSchema,
  handlerEnrolmentFinish: enrolFinishSchema,
  handlerSignIn: signInSchema,
  handlerSignInSalt: signInSaltSchema,
  handlerKeyAnchor: keyAnchorSchema,
  statisticsKey: statisticsKeyDtoSchema,
  statisticsKeyGift: statisticsKeyGiftDtoSchema,
  handlerNewToken: newTokenSchema,
  adminOperator: operatorSchema,
  adminInvite: inviteSchema,
  adminAccountChange: accountChangeSchema,
  adminReset: resetSchema,
  adminOperatorToken: operatorTokenSchema,
  companyDraft: draftSchema,
  companyPreview: previewSchema,
  companyRevert: revertSchema,
  companyImage: imageSchema,
  companyEditorImport: editorImportSchema,
  /** Documented with every interface language; a company takes exactly its own (docs/decisions/reply-templates.md). */
  replyTemplate: replyTemplateSchema(LANGUAGES),
} satisfies Record<string, GenericSchema>;

/** The tus 1.0 request headers (docs/api.md "Resumable uploads"). */
const TUS = {
  resumable: { name: 'Tus-Resumable', required: true, description: '1.0.0' },
  length: { name: 'Upload-Length', required: true, description: 'The file size in bytes (at most 2 GiB)' },
  metadata: { name: 'Upload-Metadata', required: true, description: '`filename <base64 of the name>`; more pairs are ignored' },
  offset: { name: 'Upload-Offset', required: true, description: 'Where these bytes start: the offset HEAD answered' },
  session: (required: boolean) => ({ name: 'X-Upload-Session', required, description: `The upload session whose finished uploads caseDto.uploads names (POST ${UPLOAD_SESSIONS_PATH})` }),
};

const P = '/api/private/case';
const H = '/api/handler';

export const OPERATIONS: Operation[] = [
  { method: 'GET', path: '/api/openapi.json', tag: 'operations', summary: 'This description', auth: 'none', ok: [200, 'OpenAPI 3.1 document'] },
  { method: 'GET', path: CHALLENGE_PATH, tag: 'public', summary: 'A proof-of-work challenge to solve before a submission', auth: 'none', ok: [200, '{ challenge, difficulty, expiresAt }'] },
  { method: 'GET', path: '/api/public/case/company-info', tag: 'public', summary: "The company's protection officers and subsidiaries", auth: 'none', ok: [200, 'officers and subsidiaries'] },
  { method: 'GET', path: '/api/public/site-look-and-feel/language/:languageCode', tag: 'public', summary: 'Texts, colours and logo of the company in one language', auth: 'none', ok: [200, 'look and feel'] },
  { method: 'GET', path: '/api/public/site-look-and-feel/logo/:logoFileName', tag: 'public', summary: "The company's logo", auth: 'none', ok: [200, 'image'] },
  { method: 'GET', path: '/api/public/case/protection-officer/:poUuid/logo', tag: 'public', summary: "A protection officer's logo", auth: 'none', ok: [200, 'image'] },
  { method: 'POST', path: '/api/public/case/new/by-form', tag: 'public', summary: 'Report online, with up to five files (sent in the body, or finished resumable uploads named in caseDto.uploads)', auth: 'none', pow: true, headers: [TUS.session(false)], body: { schema: 'caseDto', multipart: { part: 'caseDto' } }, ok: [201, '{ caseDto } with the new case number'] },
  { method: 'POST', path: UPLOAD_SESSIONS_PATH, tag: 'public', summary: 'An upload session for resumable (tus) uploads of one report; `{ "sealed": true }` for a case sealed in the browser, whose uploads carry ciphertext only (docs/decisions/sealed-cases.md "Sealed files")', auth: 'none', pow: true, ok: [201, '{ uploadSession, expiresAt }'] },
  { method: 'OPTIONS', path: UPLOADS_PATH, tag: 'public', summary: 'tus: the server\'s version, extensions and largest file (Tus-Version, Tus-Extension, Tus-Max-Size)', auth: 'none', ok: [204, 'Tus-Version, Tus-Extension, Tus-Max-Size'] },
  { method: 'POST', path: UPLOADS_PATH, tag: 'public', summary: 'tus creation: a new resumable upload of one file', auth: 'uploadSession', headers: [TUS.resumable, TUS.length, TUS.metadata], ok: [201, 'Location of the upload; Upload-Offset 0'] },
  { method: 'HEAD', path: `${UPLOADS_PATH}/:id`, tag: 'public', summary: 'tus: how far an upload is', auth: 'uploadSession', headers: [TUS.resumable], ok: [200, 'Upload-Offset and Upload-Length'] },
  { method: 'PATCH', path: `${UPLOADS_PATH}/:id`, tag: 'public', summary: 'tus: append bytes at the upload\'s offset', auth: 'uploadSession', headers: [TUS.resumable, TUS.offset], octets: 'application/offset+octet-stream', ok: [204, 'the new Upload-Offset'] },
  { method: 'DELETE', path: `${UPLOADS_PATH}/:id`, tag: 'public', summary: 'tus termination: remove an upload', auth: 'uploadSession', headers: [TUS.resumable], ok: [204, 'removed'] },
  { method: 'POST', path: '/api/public/case/new/sealed', tag: 'public', summary: 'Create a case sealed in the browser: envelopes and data key wraps, no plaintext (SEALED_CASES=browser; docs/decisions/sealed-cases.md "Sealed cases"); `uploads` names finished uploads of the sealed session in X-Upload-Session', auth: 'none', pow: true, headers: [{ name: 'X-Upload-Session', required: false, description: `A sealed upload session (POST ${UPLOAD_SESSIONS_PATH} with { "sealed": true }) whose finished uploads sealedCaseDto.uploads names` }], ok: [201, '{ caseDto: { caseNumber, status, created, submission } }'] },
  { method: 'POST', path: '/api/public/case/reservation', tag: 'public', summary: 'Reserve a case number and its salt before the case is sent (single use, 30 minutes; docs/api.md "Reporter keys")', auth: 'none', pow: true, ok: [201, '{ reservation, caseNumber, salt, expiresAt }'] },
  { method: 'POST', path: '/api/public/case/new/by-phone', tag: 'public', summary: 'Ask to report by phone', auth: 'none', pow: true, body: { schema: 'submissionByPhoneDto' }, ok: [201, '{ caseDto } with the new case number'] },
  { method: 'POST', path: '/api/public/case/new/by-meeting', tag: 'public', summary: 'Ask to report in a meeting', auth: 'none', pow: true, body: { schema: 'submissionByMeetingDto' }, ok: [201, '{ caseDto } with the new case number'] },
  { method: 'GET', path: `${P}/token/verify`, tag: 'private', summary: 'Check the access token', auth: 'reporter', ok: [200, 'the case number'] },
  { method: 'GET', path: `${P}/my-case/sealed`, tag: 'private', summary: 'A sealed case: its envelopes and the reporter wrap, opened in the browser', auth: 'reporter', ok: [200, '{ caseNumber, caseId, status, epoch, envelopes, wrap, files, messages }'] },
  { method: 'GET', path: `${P}/my-case/reporter-wrap`, tag: 'private', summary: 'A server-keyed case being migrated: its data key, for the browser to wrap to the reporter key (409 REPORTER_WRAP_NOT_NEEDED otherwise)', auth: 'reporter', ok: [200, '{ caseId, epoch, dataKey }'] },
  { method: 'PUT', path: `${P}/my-case/reporter-wrap`, tag: 'private', summary: 'The data key wrapped in the browser to the reporter key (`{ wrap }`)', auth: 'reporter', ok: [201, '{ epoch }'] },
  { method: 'PUT', path: `${P}/my-case/epoch-wrap`, tag: 'private', summary: "After a revocation: the newest epoch's key wrapped under the reporter key in the browser (`{ epoch, wrap }`); the forward links it replaces are deleted", auth: 'reporter', ok: [201, '{ epoch }'] },
  { method: 'POST', path: `${P}/comments/sealed`, tag: 'private', summary: "The reporter's comment on a sealed case's record, sealed in the browser (`{ id, body }`; docs/decisions/record-versions.md \"Sealed cases\")", auth: 'reporter', ok: [201, '{ id, created }'] },
  { method: 'POST', path: `${P}/messages/sealed`, tag: 'private', summary: 'A message of a sealed case, sealed in the browser (`{ id, body, uploads }`; uploads of the case\'s sealed upload session in X-Upload-Session)', auth: 'reporter', ok: [201, '{ message: { id, time, files } }'] },
  { method: 'GET', path: `${P}/my-case`, tag: 'private', summary: 'The signed-in case', auth: 'reporter', ok: [200, 'the case'] },
  { method: 'GET', path: `${P}/messages`, tag: 'private', summary: "The case's messages", auth: 'reporter', ok: [200, 'messages'] },
  { method: 'POST', path: `${P}/messages/new`, tag: 'private', summary: 'Send a message, with up to five files (sent in the body, or finished resumable uploads named in messageDto.uploads)', auth: 'reporter', headers: [{ name: 'X-Upload-Session', required: false, description: `The case's upload session whose finished uploads messageDto.uploads names (POST ${CASE_UPLOAD_SESSIONS_PATH})` }], body: { schema: 'messageDto', multipart: { part: 'messageDto' } }, ok: [201, '{ message }'] },
  { method: 'POST', path: CASE_UPLOAD_SESSIONS_PATH, tag: 'private', summary: "An upload session for resumable (tus) uploads of one message's files, bound to the signed-in case", auth: 'reporter', ok: [201, '{ uploadSession, expiresAt }'] },
  { method: 'PUT', path: `${P}/approve`, tag: 'private', summary: "Approve the latest version of the handler's record of an oral report, named by its sha256", auth: 'reporter', body: { schema: 'recordApproval' }, ok: [200, 'the case (a sealed case: `{ approvedAt, sha256 }`)'] },
  { method: 'PUT', path: `${P}/files/:fileId/transcript/approve`, tag: 'private', summary: "Approve a voice message's transcript, naming its latest version by SHA-256 (`{ sha256 }`; docs/decisions/voice-messages.md \"Transcript\")", auth: 'reporter', body: { schema: 'recordApproval' }, ok: [200, '{ approvedAt, sha256, version }'] },
  { method: 'POST', path: `${P}/files/:fileId/transcript/comments`, tag: 'private', summary: "Comment on a voice message's transcript (`{ comment }`; a server-keyed case)", auth: 'reporter', body: { schema: 'commentDto' }, ok: [201, '{ comment, created }'] },
  { method: 'POST', path: `${P}/files/:fileId/transcript/comments/sealed`, tag: 'private', summary: "Comment on a sealed case's voice message transcript, sealed in the browser bound to the file (`{ id, body }`)", auth: 'reporter', ok: [201, '{ id, created }'] },
  { method: 'GET', path: `${P}/record/:version/approved`, tag: 'private', summary: 'Download an approved version of the record of the oral report', auth: 'reporter', ok: [200, 'text/plain attachment; X-Record-SHA256, X-Record-Approved-At'] },
  { method: 'PUT', path: `${P}/whistleblower/sealed`, tag: 'private', summary: "A sealed case's identity, sealed in the browser under the case's data key (`{ envelope }`; 400 BAD_ENVELOPE, nothing stored)", auth: 'reporter', ok: [200, '{ stored: true }'] },
  { method: 'PUT', path: `${P}/notification/sealed`, tag: 'private', summary: "A sealed case's e-mail notification on: the address sealed in the browser to the key log's mail key (`{ notify: { keyId, box } }`; 400 BAD_ENVELOPE, 409 CASE_NOT_SEALED, CASE_CLOSED, MAIL_KEY_CHANGED; nothing stored)", auth: 'reporter', ok: [200, '{ notify: true }'] },
  { method: 'DELETE', path: `${P}/notification/sealed`, tag: 'private', summary: "A sealed case's e-mail notification off: the stored address and any news mail waiting with it are deleted (409 CASE_NOT_SEALED, CASE_CLOSED)", auth: 'reporter', ok: [200, '{ notify: false }'] },
  { method: 'POST', path: `${P}/whistleblower/update`, tag: 'private', summary: "Add or change the reporter's identity", auth: 'reporter', body: { schema: 'whistleblowerUpdate' }, ok: [200, 'the case'] },
  { method: 'PUT', path: `${P}/whistleblower/update`, tag: 'private', summary: "Add or change the reporter's identity", auth: 'reporter', body: { schema: 'whistleblowerUpdate' }, ok: [200, 'the case'] },
  { method: 'PUT', path: `${P}/password/request-update`, tag: 'private', summary: 'Ask for a new password at the next sign-in (ends every session)', auth: 'reporter', ok: [200, '{ mustChangePassword: true }'] },
  { method: 'POST', path: `${P}/comments`, tag: 'private', summary: 'Comment on an oral report', auth: 'reporter', body: { schema: 'commentDto' }, ok: [201, 'the comment'] },
  { method: 'GET', path: `${P}/files/:fileId`, tag: 'private', summary: "Download one of the case's files", auth: 'reporter', ok: [200, 'the file (attachment)'] },
  { method: 'GET', path: `${H}/templates`, tag: 'handler', summary: "The reply templates of the handler's company, with its languages and default (docs/decisions/reply-templates.md)", auth: 'handler', ok: [200, '{ templates, languages, defaultLanguage }'] },
  { method: 'POST', path: `${H}/enrolment/start`, tag: 'handler', summary: 'Start enrolling in the web workspace with the enrolment code: a fresh TOTP key', auth: 'none', body: { schema: 'handlerEnrolmentStart' }, ok: [200, '{ name, email, companyName, secret, uri }'] },
  { method: 'POST', path: `${H}/enrolment/finish`, tag: 'handler', summary: 'Finish enrolling: the keys made in the browser (verifier, public keys, sealed private keys) and the TOTP code', auth: 'none', body: { schema: 'handlerEnrolmentFinish' }, ok: [200, '{ recoveryCodes }'] },
  { method: 'POST', path: `${H}/session/salt`, tag: 'handler', summary: "The salt and key derivation to derive the sign-in verifier with (a look-alike for an unknown e-mail)", auth: 'none', body: { schema: 'handlerSignInSalt' }, ok: [200, '{ salt, kdf, legacy? }'] },
  { method: 'POST', path: `${H}/session`, tag: 'handler', summary: 'Sign in to the web workspace (sets the session cookie)', auth: 'none', body: { schema: 'handlerSignIn' }, ok: [200, '{ handler, idleTimeoutMs } and Set-Cookie'] },
  { method: 'GET', path: `${H}/session`, tag: 'handler', summary: 'The signed-in handler; moves the idle clock', auth: 'handler', ok: [200, '{ handler, idleTimeoutMs }'] },
  { method: 'POST', path: `${H}/session/refresh`, tag: 'handler', summary: 'Stay signed in (moves the idle clock)', auth: 'handler', ok: [200, '{ handler, idleTimeoutMs }'] },
  { method: 'DELETE', path: `${H}/session`, tag: 'handler', summary: 'Sign out: end the session and clear the cookie', auth: 'handlerSession', ok: [204, 'signed out'] },
  { method: 'GET', path: `${H}/keys`, tag: 'handler', summary: "The handler's public keys and sealed private keys, to open in the browser", auth: 'handler', ok: [200, '{ salt, kdf, ecdhSpki, ecdsaSpki, sealedKeys, sealedKeysRecovery }'] },
  { method: 'GET', path: `${H}/keys/colleagues`, tag: 'handler', summary: "The company's handlers who have keys, to compare with the key log", auth: 'handler', ok: [200, '{ handlers }'] },
  { method: 'POST', path: `${H}/key-anchor`, tag: 'handler', summary: "Set the company's recovery public key from the workspace, while it has none", auth: 'handler', body: { schema: 'handlerKeyAnchor' }, ok: [201, '{ ecdhSpki, ecdsaSpki, fingerprint }'] },
  { method: 'GET', path: `${H}/me`, tag: 'handler', summary: 'The handler and their company', auth: 'handler', ok: [200, 'the handler'] },
  {
    method: 'GET',
    path: `${H}/cases`,
    tag: 'handler',
    summary: "One page of the company's cases this handler may see, newest first; the filters apply before paging",
    auth: 'handler',
    query: [
      { name: 'limit', description: `Rows on the page (default ${INBOX_PAGE.default})`, schema: { type: 'integer', minimum: 1, maximum: INBOX_PAGE.max } },
      { name: 'cursor', description: "The previous page's nextCursor: the page after it", schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,120}$' } },
      { name: 'status', description: 'Only cases in this status', schema: { enum: [...CASE_STATUSES] } },
      { name: 'channel', description: 'Only cases submitted this way', schema: { enum: [...SUBMISSION_TYPES] } },
      { name: 'search', description: 'Only cases whose number holds these digits (anything else in it is ignored)', schema: { type: 'string', maxLength: 40 } },
      { name: 'open', description: "'true': closed cases left out", schema: { enum: ['true', 'false'] } },
      { name: 'assigned', description: 'Only cases assigned to the caller (ME), shared with the caller (SHARED), or assigned to nobody (UNASSIGNED)', schema: { enum: [...INBOX_ASSIGNED] } },
    ],
    ok: [200, '{ cases, nextCursor } (nextCursor null on the last page)'],
  },
  { method: 'POST', path: `${H}/cases/summaries`, tag: 'handler', summary: "The inbox's searchable parts of up to 100 visible cases: a sealed case's envelopes and this handler's wrap (opened in the browser), a server-keyed case's category, language and texts; no audit entry, no seen mark", auth: 'handler', body: { schema: 'caseSummaries' }, ok: [200, '{ summaries }'] },
  { method: 'GET', path: `${H}/cases/:caseNumber`, tag: 'handler', summary: 'One case', auth: 'handler', ok: [200, 'the case'] },
  { method: 'GET', path: `${H}/cases/:caseNumber/sealed`, tag: 'handler', summary: "A sealed case: its envelopes and this handler's wrap, opened in the workspace", auth: 'handler', ok: [200, '{ caseNumber, caseId, status, epoch, envelopes, wrap, files, messages }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/record/sealed`, tag: 'handler', summary: "A version of a sealed case's record, sealed and hashed in the workspace (`{ version, text, sha256 }`; 200 when the hash is the latest's)", auth: 'handler', ok: [201, '{ version, changed }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/messages/sealed`, tag: 'handler', summary: 'A message of a sealed case, sealed in the workspace (`{ id, body, type, answerWanted, uploads }`; uploads of a sealed upload session in X-Upload-Session)', auth: 'handler', ok: [201, '{ message: { id, time, files } }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/upload-sessions`, tag: 'handler', summary: 'A sealed upload session for the files of one handler message of a sealed case (tus; ciphertext only)', auth: 'handler', ok: [201, '{ uploadSession, expiresAt }'] },
  { method: 'GET', path: `${H}/cases/:caseNumber/key-wraps`, tag: 'handler', summary: "A sealed case's key holders: the key ids with a wrap of the current epoch", auth: 'handler', ok: [200, '{ epoch, recipientKeyIds, holders, reporter }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/key-wraps`, tag: 'handler', summary: "Grant a sealed case's key to a colleague: the data key re-wrapped in the browser to a key the key log certifies (`{ recipientKeyId, wrap }`)", auth: 'handler', ok: [201, '{ recipientKeyId, epoch }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/key-epochs`, tag: 'handler', summary: "Revoke a colleague's key from a sealed case: the next key epoch made in the browser, wrapped to the remaining holders (`{ epoch, revoke, wraps, previous, next }`)", auth: 'handler', ok: [201, '{ epoch, revoked }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/exports`, tag: 'handler', summary: 'Record in the audit trail an export the browser is about to make (which parts, how many terms blacked out; no content)', auth: 'handler', body: { schema: 'caseExport' }, ok: [201, '{ recorded }'] },
  { method: 'GET', path: `${H}/case-entry`, tag: 'handler', summary: 'For entering a report that came by letter, e-mail or in person: the officers this handler may enter for, and the subsidiaries', auth: 'handler', ok: [200, '{ officers, subsidiaries }'] },
  { method: 'POST', path: `${H}/case-entry/reservation`, tag: 'handler', summary: "A case number and salt for a report the handler enters at a company that seals: the browser derives the reporter's keys from them and the password it generates", auth: 'handler', ok: [201, '{ reservation, caseNumber, salt, expiresAt }'] },
  { method: 'POST', path: `${H}/case-entry/sealed`, tag: 'handler', summary: "Enter a report received by letter, e-mail or in person, sealed in the handler's browser (envelopes and wraps as the form's sealed route; the channel and received day in clear); 409 SEALING_UNAVAILABLE when the company does not seal for the officer", auth: 'handler', body: { schema: 'sealedEnteredCase' }, ok: [201, '{ caseDto }'] },
  { method: 'POST', path: `${H}/case-entry`, tag: 'handler', summary: 'Enter a report received by letter, e-mail or in person at a server-keyed company (the content in clear, the generated password when followed); 409 SEALING_REQUIRED at a company that seals', auth: 'handler', body: { schema: 'enteredCase' }, ok: [201, '{ caseDto }'] },
  { method: 'GET', path: `${H}/cases/:caseNumber/assignment`, tag: 'handler', summary: "The case's assignee, the colleagues it is shared with, and the colleagues entitled to it", auth: 'handler', ok: [200, '{ assignee, shares, colleagues }'] },
  { method: 'PUT', path: `${H}/cases/:caseNumber/assignee`, tag: 'handler', summary: 'Assign or hand over the case to an entitled colleague (null: unassign); 400 COLLEAGUE_NOT_ENTITLED otherwise', auth: 'handler', body: { schema: 'handlerAssignee' }, ok: [200, '{ assignee, shares, colleagues }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/shares`, tag: 'handler', summary: 'Share the case with an entitled colleague; 400 COLLEAGUE_NOT_ENTITLED otherwise', auth: 'handler', body: { schema: 'handlerShare' }, ok: [201, '{ assignee, shares, colleagues }'] },
  { method: 'GET', path: `${H}/cases/:caseNumber/notes`, tag: 'handler', summary: "The case's internal notes (never on a reporter route): opened on a server-keyed case, as envelopes on a sealed one", auth: 'handler', ok: [200, '{ sealed, notes }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/notes`, tag: 'handler', summary: 'Add an internal note: its text, or on a sealed case the envelope sealed in the browser (400 BAD_ENVELOPE when malformed)', auth: 'handler', body: { schema: 'handlerNote' }, ok: [201, '{ note }'] },
  { method: 'PUT', path: `${H}/cases/:caseNumber/notes/:noteId`, tag: 'handler', summary: 'Save a new version of a note over the version read; 409 NOTE_CHANGED when a colleague saved since', auth: 'handler', body: { schema: 'handlerNoteEdit' }, ok: [200, '{ note }'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/notes/:noteId/files`, tag: 'handler', summary: "Attach up to five files to an existing note, for the case's handlers only (never on a reporter route): multipart on a server-keyed case; on a sealed case JSON naming finished uploads of the case's sealed upload session (X-Upload-Session), sealed in the browser", auth: 'handler', headers: [{ name: 'X-Upload-Session', required: false, description: 'A sealed case: the sealed upload session (POST /api/handler/cases/{caseNumber}/upload-sessions) whose finished uploads `uploads` names' }], body: { schema: 'handlerNoteFiles', multipart: { part: 'noteFilesDto' } }, ok: [201, '{ note }'] },
  { method: 'DELETE', path: `${H}/cases/:caseNumber/shares/:handlerId`, tag: 'handler', summary: 'Stop sharing the case with a colleague', auth: 'handler', ok: [200, '{ assignee, shares, colleagues }'] },
  { method: 'GET', path: `${H}/cases/:caseNumber/files/:fileId`, tag: 'handler', summary: "Download one of the case's files", auth: 'handler', ok: [200, 'the file (attachment)'] },
  { method: 'PUT', path: `${H}/cases/:caseNumber/status`, tag: 'handler', summary: "Change the case's status", auth: 'handler', body: { schema: 'handlerStatus' }, ok: [200, 'the case'] },
  { method: 'PUT', path: `${H}/cases/:caseNumber/report`, tag: 'handler', summary: 'Record an oral report', auth: 'handler', body: { schema: 'handlerReport' }, ok: [200, 'the case'] },
  { method: 'PUT', path: `${H}/cases/:caseNumber/files/:fileId/transcript`, tag: 'handler', summary: "A version of a voice message's transcript (`{ text, baseVersion? }`; server-keyed case; docs/decisions/voice-messages.md \"Transcript\")", auth: 'handler', body: { schema: 'handlerReport' }, ok: [200, 'the handler case view'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/files/:fileId/transcript/sealed`, tag: 'handler', summary: "A version of a sealed case's voice message transcript, sealed and hashed in the workspace bound to the file (`{ version, text, sha256 }`)", auth: 'handler', ok: [201, '{ version, changed }'] },
  { method: 'GET', path: `${H}/cases/:caseNumber/record/:version/approved`, tag: 'handler', summary: 'Download an approved version of the record of an oral report', auth: 'handler', ok: [200, 'text/plain attachment; X-Record-SHA256, X-Record-Approved-At'] },
  { method: 'POST', path: `${H}/cases/:caseNumber/messages`, tag: 'handler', summary: 'Send the reporter a message, with up to five files', auth: 'handler', body: { schema: 'handlerMessageDto', multipart: { part: 'messageDto' } }, ok: [201, '{ message }'] },
  { method: 'POST', path: '/api/admin/handlers', tag: 'admin', summary: 'Create a handler account (loopback only)', auth: 'admin', body: { schema: 'adminHandler' }, ok: [201, '{ id, token, companyId, name }'] },
  { method: 'GET', path: '/api/public/key-log', tag: 'public', summary: "The company's trust anchor and signed key log, to check before sealing (docs/decisions/blind-server.md)", auth: 'none', ok: [200, '{ anchor, entries }'] },
  { method: 'POST', path: `${H}/statistics-key`, tag: 'handler', summary: "Publish the company's statistics key, or rotate it (naming the newest in `replaces`): its public half signed, its private half sealed to certified handler keys", auth: 'handler', body: { schema: 'statisticsKey' }, ok: [201, '{ spki, keyId, certifierKeyId, signature }'] },
  { method: 'POST', path: `${H}/statistics-key/wraps`, tag: 'handler', summary: 'Give the statistics keys this handler holds to a colleague certified later: each private half sealed to her certified key', auth: 'handler', body: { schema: 'statisticsKeyGift' }, ok: [201, '{ recipientKeyId, statsKeyIds }'] },
  { method: 'GET', path: `${H}/statistics`, tag: 'handler', summary: "Every statistics key (newest first), each private half sealed to this handler's key and its holders, and the categories boxes of the keys she holds, to count in the browser", auth: 'handler', ok: [200, '{ key, wrap, keys, boxes, notHeld }'] },
  { method: 'POST', path: `${H}/key-log`, tag: 'handler', summary: 'Append an entry a certifier signed to the key log', auth: 'handler', ok: [201, '{ seq, hash }'] },
  { method: 'PUT', path: '/api/admin/companies/:company/key-anchor', tag: 'admin', summary: "Set the company's recovery public key, once (loopback only)", auth: 'admin', body: { schema: 'adminKeyAnchor' }, ok: [201, '{ ecdhSpki, ecdsaSpki, fingerprint }'] },
  { method: 'POST', path: '/api/admin/cases/purge', tag: 'admin', summary: 'Delete the cases due for deletion, or list them with dryRun (loopback only)', auth: 'admin', body: { schema: 'adminPurge' }, ok: [200, '{ dryRun, cases }'] },
  { method: 'POST', path: '/api/admin/companies', tag: 'admin', summary: 'Create or replace a company from its file (loopback only)', auth: 'admin', body: { schema: 'adminCompanyImport' }, ok: [200, 'what was imported'] },
  { method: 'POST', path: '/api/admin/identity/rotate-signing-key', tag: 'admin', summary: "Rotate the identity provider's signing key (loopback only)", auth: 'admin', ok: [201, '{ kid }'] },
  { method: 'GET', path: `${H}/session/challenge`, tag: 'handler', summary: 'The sign-in proof-of-work challenge during a burst of failed sign-ins (null: none needed)', auth: 'none', ok: [200, '{ challenge }'] },
  { method: 'GET', path: `${H}/tokens`, tag: 'handler', summary: "The signed-in handler's API tokens", auth: 'handlerSession', ok: [200, '{ tokens }'] },
  { method: 'POST', path: `${H}/tokens`, tag: 'handler', summary: 'Make an API token (shown once), after a fresh second-factor code', auth: 'handlerSession', body: { schema: 'handlerNewToken' }, ok: [201, 'the token and its row'] },
  { method: 'DELETE', path: `${H}/tokens/:token`, tag: 'handler', summary: "Revoke one of the handler's own API tokens", auth: 'handlerSession', ok: [200, 'the token row'] },
  { method: 'POST', path: '/api/admin/operators', tag: 'admin', summary: 'Make an operator account; answers its enrolment link', auth: 'admin', body: { schema: 'adminOperator' }, ok: [201, '{ id, enrolmentLink, … }'] },
  { method: 'GET', path: '/api/admin/trail', tag: 'admin', summary: "The operators' own administration trail", auth: 'admin', ok: [200, '{ entries }'] },
  { method: 'GET', path: '/api/admin/companies', tag: 'admin', summary: 'The companies the caller administers', auth: 'companyAdmin', ok: [200, '{ companies, operator }'] },
  { method: 'GET', path: '/api/admin/companies/:company/accounts', tag: 'admin', summary: "The company's accounts and their state", auth: 'companyAdmin', ok: [200, '{ accounts, officers, mail, hosts }'] },
  { method: 'POST', path: '/api/admin/companies/:company/accounts', tag: 'admin', summary: 'Invite a handler or administrator: the enrolment link by mail, or answered once', auth: 'companyAdmin', body: { schema: 'adminInvite' }, ok: [201, 'the invitation'] },
  { method: 'PATCH', path: '/api/admin/companies/:company/accounts/:account', tag: 'admin', summary: "Change an account's name, officers or roles", auth: 'companyAdmin', body: { schema: 'adminAccountChange' }, ok: [200, 'the account'] },
  { method: 'POST', path: '/api/admin/companies/:company/accounts/:account/disable', tag: 'admin', summary: 'Disable an account: its sessions end, its tokens are refused', auth: 'companyAdmin', ok: [200, 'the account'] },
  { method: 'POST', path: '/api/admin/companies/:company/accounts/:account/enable', tag: 'admin', summary: 'Enable a disabled account again', auth: 'companyAdmin', ok: [200, 'the account'] },
  { method: 'DELETE', path: '/api/admin/companies/:company/accounts/:account', tag: 'admin', summary: 'Remove an account', auth: 'companyAdmin', ok: [204, 'removed'] },
  { method: 'POST', path: '/api/admin/companies/:company/accounts/:account/reset', tag: 'admin', summary: 'Reset the password or second factor: a new enrolment; the old credentials, sessions and tokens stop', auth: 'companyAdmin', body: { schema: 'adminReset' }, ok: [200, 'the invitation'] },
  { method: 'POST', path: '/api/admin/companies/:company/accounts/:account/sessions/end', tag: 'admin', summary: "End every session of the account", auth: 'companyAdmin', ok: [200, '{ sessionsEnded }'] },
  { method: 'GET', path: '/api/admin/companies/:company/accounts/:account/tokens', tag: 'admin', summary: "The account's API tokens", auth: 'companyAdmin', ok: [200, '{ tokens }'] },
  { method: 'POST', path: '/api/admin/companies/:company/accounts/:account/tokens', tag: 'admin', summary: 'Make an API token for automation (the operator; shown once)', auth: 'admin', body: { schema: 'adminOperatorToken' }, ok: [201, 'the token and its row'] },
  { method: 'DELETE', path: '/api/admin/companies/:company/accounts/:account/tokens/:token', tag: 'admin', summary: "Revoke one of the account's API tokens", auth: 'companyAdmin', ok: [200, 'the token row'] },
  { method: 'GET', path: '/api/admin/companies/:company/trail', tag: 'admin', summary: "The company's administration trail, newest first", auth: 'companyAdmin', ok: [200, '{ entries }'] },
  { method: 'GET', path: '/api/admin/companies/:company/editor', tag: 'admin', summary: "The company's settings as the editor opens them: the newest version's file and images (docs/decisions/company-editor.md)", auth: 'companyAdmin', ok: [200, '{ version, file, images, canEditHosts }'] },
  { method: 'PUT', path: '/api/admin/companies/:company/settings', tag: 'admin', summary: 'Save the company file as a new version, atomically (409 when the draft is of an older version; hosts: the operator only)', auth: 'companyAdmin', body: { schema: 'companyDraft' }, ok: [200, '{ version }'] },
  { method: 'GET', path: '/api/admin/companies/:company/versions', tag: 'admin', summary: "The company's versions, newest first", auth: 'companyAdmin', ok: [200, '{ versions }'] },
  { method: 'POST', path: '/api/admin/companies/:company/versions/:version/revert', tag: 'admin', summary: 'Restore a version as a new version', auth: 'companyAdmin', body: { schema: 'companyRevert' }, ok: [200, '{ version }'] },
  { method: 'GET', path: '/api/admin/companies/:company/export', tag: 'admin', summary: 'The company file and its images, as POST /api/admin/companies takes them', auth: 'companyAdmin', ok: [200, '{ file, assets }'] },
  { method: 'POST', path: '/api/admin/companies/:company/import', tag: 'admin', summary: 'Import a company file as a new version of this company', auth: 'companyAdmin', body: { schema: 'companyEditorImport' }, ok: [200, '{ version }'] },
  { method: 'POST', path: '/api/admin/companies/:company/images', tag: 'admin', summary: 'Upload a logo: checked as at import, raster metadata removed, SVG only as plain drawing', auth: 'companyAdmin', body: { schema: 'companyImage' }, ok: [201, '{ sha256, contentType, file }'] },
  { method: 'GET', path: '/api/admin/companies/:company/images/:sha256', tag: 'admin', summary: "One of the company's stored images", auth: 'companyAdmin', ok: [200, 'the image'] },
  { method: 'POST', path: '/api/admin/companies/:company/preview', tag: 'admin', summary: 'Keep a draft for ten minutes to draw its landing page', auth: 'companyAdmin', body: { schema: 'companyPreview' }, ok: [201, '{ id, languages, expiresAt }'] },
  { method: 'GET', path: '/api/admin/companies/:company/templates', tag: 'admin', summary: "The company's reply templates, with its languages and default", auth: 'companyAdmin', ok: [200, '{ templates, languages, defaultLanguage }'] },
  { method: 'POST', path: '/api/admin/companies/:company/templates', tag: 'admin', summary: 'Add a reply template: a name and one text for each of the company\'s languages (409 TEMPLATE_LIMIT past 50)', auth: 'companyAdmin', body: { schema: 'replyTemplate' }, ok: [201, '{ template }'] },
  { method: 'PUT', path: '/api/admin/companies/:company/templates/:id', tag: 'admin', summary: 'Change a reply template (404 UNKNOWN_TEMPLATE for an id of no template of this company)', auth: 'companyAdmin', body: { schema: 'replyTemplate' }, ok: [200, '{ template }'] },
  { method: 'DELETE', path: '/api/admin/companies/:company/templates/:id', tag: 'admin', summary: 'Remove a reply template', auth: 'companyAdmin', ok: [204, 'removed'] },
  { method: 'GET', path: '/api/admin/companies/:company/preview/:previewId/:language', tag: 'admin', summary: 'The landing page of a kept draft in one language, without script', auth: 'companyAdmin', ok: [200, 'text/html'] },
];

/** A valibot schema as JSON Schema 2020-12, the dialect of OpenAPI 3.1; the input side (what a client sends). */
export function bodySchema(name: keyof typeof SCHEMAS): JsonSchema {
  const { $schema: _dialect, ...schema } = toJsonSchema(SCHEMAS[name], { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' });
  return schema;
}

/** An answer's valibot schema as JSON Schema 2020-12: the output side (what the server sends). */
export function answerSchema(name: AnswerName): JsonSchema {
  const { $schema: _dialect, ...schema } = toJsonSchema(ANSWER_SCHEMAS[name], { target: 'draft-2020-12', typeMode: 'output', errorMode: 'ignore' });
  return schema;
}

/** The success answers of an operation (server/openapi-answers.ts): a schema for every body. */
function successAnswers(op: Operation): Record<string, unknown> {
  const answer = ANSWERS[`${op.method} ${op.path}`];
  const content = answer?.json
    ? { 'application/json': { schema: { $ref: `#/components/schemas/${answer.json}` } } }
    : answer?.media
      ? Object.fromEntries(answer.media.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }]))
      : undefined;
  const one = { description: op.ok[1], ...(content ? { content } : {}) };
  return Object.fromEntries([op.ok[0], ...(answer?.also ?? [])].map((status) => [String(status), one]));
}

/** Each auth kind's alternatives (any one of them will do). */
const SECURITY: Record<Exclude<Auth, 'none'>, string[]> = { reporter: ['reporterToken'], handler: ['handlerToken', 'handlerSession'], handlerSession: ['handlerSession'], admin: ['adminToken', 'handlerSession'], companyAdmin: ['adminToken', 'handlerSession'], uploadSession: ['uploadSession'] };

export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const params = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const ref = op.body ? { $ref: `#/components/schemas/${op.body.schema}` } : undefined;
    const body = op.octets
      ? { required: true, content: { [op.octets]: { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } }
      : op.body
      ? op.body.multipart
        ? {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { type: 'object', required: [op.body.multipart.part], properties: { [op.body.multipart.part]: ref, files: { type: 'array', maxItems: 5, items: { type: 'string', contentMediaType: 'application/octet-stream' } } } },
                encoding: { [op.body.multipart.part]: { contentType: 'application/json' } },
              },
            },
          }
        : { required: true, content: { 'application/json': { schema: ref } } }
      : undefined;
    const company = (op.auth === 'none' && op.path !== CHALLENGE_PATH) || op.auth === 'reporter' ? [{ name: 'X-Company-Host', in: 'header', required: false, schema: { type: 'string' }, description: "The page's host name; the request's Host when absent" }] : [];
    const pow = op.pow ? [{ name: 'X-Proof-Of-Work', in: 'header', required: true, schema: { type: 'string' }, description: `<challenge>:<nonce>, a solved challenge from GET ${CHALLENGE_PATH}; one use (docs/api.md "Proof of work")` }] : [];
    const extra = [
      ...(op.headers ?? []).map((h) => ({ name: h.name, in: 'header', required: h.required, schema: { type: 'string' }, description: h.description })),
      ...(op.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, schema: q.schema, description: q.description })),
    ];
    (paths[op.path.replace(/:(\w+)/g, '{$1}')] ??= {})[op.method.toLowerCase()] = {
      operationId: `${op.method.toLowerCase()}${op.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      tags: [op.tag],
      summary: op.summary,
      ...(params.length || company.length || pow.length || extra.length ? { parameters: [...params, ...company, ...pow, ...extra] } : {}),
      ...(body ? { requestBody: body } : {}),
      // `[]` says "no caller needed" in so many words; left out, it would mean "whatever the document's default is".
      security: op.auth === 'none' ? [] : SECURITY[op.auth].map((scheme) => ({ [scheme]: [] })),
      responses: {
        ...successAnswers(op),
        '4XX': { description: 'Refused; the body names the error code (docs/api.md "Errors")', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
  }
  const schemas: Record<string, unknown> = Object.fromEntries(Object.keys(SCHEMAS).map((name) => [name, bodySchema(name as keyof typeof SCHEMAS)]));
  for (const name of Object.keys(ANSWER_SCHEMAS) as AnswerName[]) schemas[name] = answerSchema(name);
  schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string', description: 'What is wrong, in plain English; a 400 VALIDATION names every bad field' },
          field: { type: 'string', description: 'The (first) field refused, as a dotted path inside the body' },
          fields: {
            type: 'array',
            description: 'A 400 VALIDATION: every bad field once, in the order found (docs/api.md "Validation errors")',
            items: {
              type: 'object',
              required: ['field', 'message', 'rule'],
              properties: {
                field: { type: 'string', description: 'Dotted path inside the body ("" for the body itself)' },
                message: { type: 'string', description: 'The rule broken, in plain English ("is required")' },
                rule: { type: 'string', description: 'The rule as a validation.* catalogue key (src/i18n/common), to say it in the reporter\'s language' },
              },
            },
          },
        },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Whistleblower portal API',
      version,
      description: 'See docs/api.md. The company is chosen by the host name (X-Company-Host or Host).',
      // The project grants no licence (package.json is private): said so, rather than left out.
      license: { name: 'Proprietary, all rights reserved', identifier: 'LicenseRef-Proprietary' },
    },
    // Every company host serves the same API at its own origin (docs/decisions/tenant-resolution.md).
    servers: [{ url: '{origin}', description: "A company's host: the origin the portal is reached at", variables: { origin: { default: 'http://localhost:9000' } } }],
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'public', description: 'Reporting, no sign-in' },
      { name: 'private', description: "The reporter's signed-in area (access token from the embedded OpenID provider)" },
      { name: 'handler', description: "Case handlers' API (handler token or the web workspace's session cookie)" },
      { name: 'admin', description: 'Operator calls, loopback only (DATA_DIR/admin.token)' },
      { name: 'operations', description: 'About the API itself' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        reporterToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /idp/realms/whistleblower' },
        handlerToken: { type: 'http', scheme: 'bearer', description: 'npm run handler -- create-account' },
        handlerSession: { type: 'apiKey', in: 'cookie', name: 'wb_handler', description: 'The web workspace session, from POST /api/handler/session' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'DATA_DIR/admin.token' },
        uploadSession: { type: 'apiKey', in: 'header', name: 'X-Upload-Session', description: `An upload session from POST ${UPLOAD_SESSIONS_PATH}` },
      },
    },
  };
}
