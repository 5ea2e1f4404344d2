/**
 * What each call under /api answers on success, for the OpenAPI description
 * (server/openapi.ts). The answers are built by hand (buildCaseView, …) and have no
 * validator of their own, so their shapes are written here as valibot schemas and
 * converted the same way as the request bodies: one dialect, one converter.
 * test/conformance/openapi.test.ts runs a full journey and checks every 2xx answer
 * against the schema the served description gives for it, so a shape that drifts
 * from the code fails there. Fields are required when every answer carries them.
 */
import * as v from 'valibot';
import type { GenericSchema } from 'valibot';

const when = v.string(); // an ISO 8601 instant
const nullableString = v.nullable(v.string());
const colleague = v.object({ id: v.string(), name: v.string() });
const noteAuthor = v.object({ id: nullableString, name: v.string() });
/** A note's file (internal-notes.md "Files"): its name opened on a server-keyed case, the sealed name (base64) and `epoch` on a sealed one. */
const noteFile = v.object({
  id: v.string(),
  name: v.string(),
  size: v.number(),
  created: when,
  epoch: v.optional(v.number()),
  mimeType: v.optional(v.string()),
  metadataCheck: v.optional(v.string()),
  metadataRemaining: v.optional(v.nullable(v.array(v.string()))),
});
const note = v.object({
  id: v.string(),
  version: v.number(),
  files: v.array(noteFile),
  author: noteAuthor,
  editedBy: v.nullable(noteAuthor),
  created: when,
  updated: when,
  text: v.optional(v.string()),
  body: v.optional(v.string()),
  epoch: v.optional(v.number()),
});

const caseFile = v.object({
  id: v.string(),
  name: v.string(),
  size: v.number(),
  mimeType: v.string(),
  created: when,
  metadataRemaining: v.array(v.string()),
  metadataCheck: v.string(),
});

const message = v.object({
  id: v.string(),
  message: v.string(),
  time: when,
  type: v.string(),
  createdByUserId: v.string(),
  answerWanted: v.boolean(),
  files: v.array(caseFile),
});

const officer = v.object({
  id: v.string(),
  name: v.string(),
  jobTitle: v.optional(nullableString),
  company: v.optional(nullableString),
  phone: v.optional(nullableString),
  email: v.optional(nullableString),
  customerRelation: v.optional(v.string()),
  logoUrl: v.optional(nullableString),
});

const statusAt = v.object({ status: v.string(), dateTime: when });

const whistleblower = v.object({
  name: nullableString,
  email: nullableString,
  phone: nullableString,
  phoneCountryCode: nullableString,
  notification: v.boolean(),
});

const report = v.nullable(
  v.object({
    text: v.string(),
    updatedAt: when,
    version: v.number(),
    sha256: v.string(),
    versions: v.array(v.object({ version: v.number(), sha256: v.string(), createdAt: when, approvedAt: v.nullable(when), text: v.string() })),
  }),
);

const comment = v.object({ comment: v.string(), created: when });

/** The transcripts of a case's voice files (issue 40; docs/decisions/voice-messages.md "Transcript"): the record's parts per file. */
const recordVersionShape = v.object({ version: v.number(), sha256: v.string(), createdAt: when, approvedAt: v.nullable(when), text: v.string(), authorId: v.optional(nullableString), author: v.optional(nullableString) });
const transcripts = v.array(v.object({ fileId: v.string(), approvedAt: v.nullable(when), versions: v.array(recordVersionShape), comments: v.array(comment) }));
const sealedTranscripts = v.optional(
  v.array(v.object({ fileId: v.string(), versions: v.array(recordVersionShape), comments: v.array(v.object({ id: v.string(), body: v.string(), created: when })) })),
);

/** A case as its reporter sees it (docs/architecture.md "Wire shapes"). */
const caseView = v.object({
  caseNumber: v.string(),
  status: v.string(),
  description: nullableString,
  violation: nullableString,
  repeatedViolations: v.nullable(v.boolean()),
  created: when,
  receivedDate: v.nullable(when),
  submission: v.object({ type: v.string() }),
  creationChannel: v.string(),
  /** How a report a handler entered came (LETTER, EMAIL, IN_PERSON); null: the reporter sent it. */
  entryChannel: v.optional(nullableString),
  approvedAt: v.nullable(when),
  pendingWhistleblowerAction: v.boolean(),
  protectionOfficer: v.nullable(officer),
  whistleblowerRelation: nullableString,
  reportedPersons: v.array(v.object({ name: v.optional(nullableString), jobTitle: v.optional(nullableString), phoneOrEmail: v.optional(nullableString) })),
  reportedUnit: v.nullable(v.looseObject({})),
  subsidiary: v.nullable(v.looseObject({})),
  caseAccount: v.object({ follow: v.boolean() }),
  files: v.array(caseFile),
  messages: v.array(message),
  events: v.array(statusAt),
  caseStatusHistory: v.array(statusAt),
  whistleblower: v.nullable(whistleblower),
  report,
  comments: v.array(comment),
  transcripts,
  scheduledDeletion: v.nullable(when),
});

const deadline = v.nullable(v.object({ kind: v.string(), due: when }));

/** A case as a handler sees it: the reporter's view, the next legal deadline and the audit trail. */
const auditTrail = v.array(v.object({ at: when, handlerId: nullableString, handlerName: nullableString, action: v.string(), detail: v.record(v.string(), v.unknown()) }));
/** A sealed case as both reads give it: envelopes, wraps and clear metadata (docs/decisions/sealed-cases.md). */
const sealedCase = v.object({
    caseNumber: v.string(),
    caseId: v.string(),
    status: v.string(),
    created: when,
    protectionOfficerId: v.string(),
    subsidiaryId: nullableString,
    epoch: v.number(),
    envelopes: v.object({ details: v.string(), whistleblower: nullableString }),
    wrap: v.nullable(v.object({ recipientKeyId: v.string(), kind: v.string(), wrap: v.string() })),
    files: v.array(v.object({ id: v.string(), messageId: nullableString, name: v.string(), size: v.number(), created: when, epoch: v.optional(v.number()) })),
    messages: v.array(v.object({ id: v.string(), type: v.string(), time: when, createdByUserId: v.string(), answerWanted: v.boolean(), body: v.string(), epoch: v.optional(v.number()) })),
    currentEpoch: v.optional(v.number()),
    /** The reporter's read: whether a notification address is stored (sealed to the mail key). */
    notify: v.optional(v.boolean()),
    links: v.optional(v.array(v.object({ epoch: v.number(), kind: v.picklist(['previous', 'next']), link: v.string() }))),
    submissionType: v.optional(v.string()),
    entryChannel: v.optional(nullableString),
    approvedAt: v.optional(v.nullable(when)),
    record: v.optional(v.object({ versions: v.array(v.object({ version: v.number(), sha256: v.string(), createdAt: when, approvedAt: v.nullable(when), text: v.string() })), comments: v.array(v.object({ id: v.string(), body: v.string(), created: when })) })),
    transcripts: sealedTranscripts,
});
const handlerCaseView = v.object({
  ...caseView.entries,
  deadline,
  audit: auditTrail,
  reporterLanguage: nullableString,
});

const newCase = v.object({ caseDto: v.object({ caseNumber: v.string(), status: v.string(), created: when, submission: v.object({ type: v.string() }) }) });
const uploadSession = v.object({ uploadSession: v.string(), expiresAt: when });
const roles = v.object({ operator: v.boolean(), admin: v.boolean(), handler: v.boolean() });
const handlerIdentity = v.object({ id: v.string(), name: v.string(), email: v.optional(nullableString), companyId: v.string(), companyName: v.optional(v.string()), officers: v.optional(v.array(v.string())), roles: v.optional(roles) });
const handlerSession = v.object({ handler: handlerIdentity, idleTimeoutMs: v.number(), signIn: v.optional(v.object({ failedSignIns: v.number(), previousSignInAt: v.nullable(when) })) });

const accountView = v.object({
  id: v.string(),
  name: v.string(),
  email: nullableString,
  officers: v.array(v.string()),
  roles: v.object({ admin: v.boolean(), handler: v.boolean() }),
  enrolled: v.boolean(),
  enrolledAt: v.nullable(when),
  lastSignInAt: v.nullable(when),
  state: v.picklist(['invited', 'active', 'disabled', 'expired']),
  enrolmentExpiresAt: v.nullable(when),
  activeSessions: v.number(),
  activeTokens: v.number(),
});
const tokenView = v.object({
  id: v.string(),
  label: v.string(),
  madeBy: v.picklist(['handler', 'operator']),
  createdAt: when,
  expiresAt: when,
  revokedAt: v.nullable(when),
  lastUsedAt: v.nullable(when),
  state: v.picklist(['active', 'expired', 'revoked']),
});
const invitation = v.object({ account: accountView, enrolmentLink: nullableString, mailed: v.boolean(), enrolmentExpiresAt: when });
const trailEntry = v.object({
  id: v.string(),
  at: when,
  actor: v.object({ id: nullableString, name: v.string(), role: v.string() }),
  action: v.string(),
  target: v.nullable(v.object({ id: v.string(), name: nullableString })),
  detail: v.record(v.string(), v.unknown()),
});

const languageEntry = v.object({ languageCode: v.string(), languageName: v.string() });

/** Component schemas of the answers, by the name each gets in the description. */
export const ANSWER_SCHEMAS = {
  OpenApiDocument: v.object({ openapi: v.string(), info: v.record(v.string(), v.unknown()), paths: v.record(v.string(), v.unknown()) }),
  PowChallenge: v.object({ challenge: v.string(), difficulty: v.number(), expiresAt: when }),
  CompanyInfo: v.object({ protectionOfficers: v.array(officer), subsidiaries: v.array(v.unknown()) }),
  LookAndFeel: v.object({ languageCode: v.string(), languageName: v.string(), logoFileName: v.optional(nullableString), supportLanguages: v.array(languageEntry) }),
  NewCase: newCase,
  EnteredCase: v.object({ caseDto: v.object({ ...newCase.entries.caseDto.entries, entryChannel: v.picklist(['LETTER', 'EMAIL', 'IN_PERSON']) }) }),
  CaseEntryChoices: v.object({ officers: v.array(colleague), subsidiaries: v.array(colleague) }),
  UploadSession: uploadSession,
  TokenCheck: v.object({ valid: v.literal(true), caseNumber: v.string() }),
  Case: caseView,
  CaseReservation: v.object({ reservation: v.string(), caseNumber: v.string(), salt: v.string(), expiresAt: when }),
  Messages: v.array(message),
  MessageSent: v.object({ message }),
  SealedCase: sealedCase,
  SealedCommentSent: v.object({ id: v.string(), created: when }),
  SealedRecordStored: v.object({ version: v.number(), changed: v.boolean() }),
  TranscriptApproved: v.object({ approvedAt: when, sha256: v.string(), version: v.number() }),
  /** The sealed case as a handler reads it: with its status history (clear data) and its audit trail, written in clear (sealed-workspace.md "Status and audit"); an entry from before the case was sealed (retire-master) comes sealed under the data key. */
  HandlerSealedCase: v.object({ ...sealedCase.entries, audit: v.array(v.union([auditTrail.item, v.object({ at: when, sealed: v.string() })])), caseStatusHistory: v.array(statusAt) }),
  SealedMessageSent: v.object({ message: v.object({ id: v.string(), time: when, files: v.array(v.object({ id: v.string(), size: v.number() })) }) }),
  ReporterWrapOffer: v.object({ caseId: v.string(), epoch: v.number(), dataKey: v.string() }),
  ReporterWrapStored: v.object({ epoch: v.number() }),
  SealedIdentityStored: v.object({ stored: v.literal(true) }),
  SealedNotifyStored: v.object({ notify: v.boolean() }),
  KeyHolders: v.object({ epoch: v.number(), recipientKeyIds: v.array(v.string()), holders: v.array(v.object({ recipientKeyId: v.string(), kind: v.picklist(['handler', 'recovery']) })), reporter: v.boolean() }),
  Assignment: v.object({ assignee: v.nullable(colleague), shares: v.array(colleague), colleagues: v.array(colleague) }),
  /** Internal notes (docs/decisions/internal-notes.md): `text` on a server-keyed case, `body` (the envelope) and `epoch` on a sealed one. */
  Notes: v.object({ sealed: v.boolean(), notes: v.array(note) }),
  Note: v.object({ note }),
  KeyGranted: v.object({ recipientKeyId: v.string(), epoch: v.number() }),
  KeyRevoked: v.object({ epoch: v.number(), revoked: v.string() }),
  ExportRecorded: v.object({ recorded: v.literal(true) }),
  CaseSummaries: v.object({
    summaries: v.array(
      v.union([
        v.object({ caseNumber: v.string(), sealed: v.literal(true), caseId: v.string(), epoch: v.number(), wrap: v.nullable(v.object({ recipientKeyId: v.string(), kind: v.string(), wrap: v.string() })), links: v.array(v.object({ epoch: v.number(), kind: v.literal('previous'), link: v.string() })), envelopes: v.object({ details: v.string(), whistleblower: v.null() }), messages: v.array(v.object({ id: v.string(), epoch: v.number(), body: v.string() })), notes: v.array(v.object({ id: v.string(), epoch: v.number(), body: v.string(), column: v.string() })) }),
        v.object({ caseNumber: v.string(), sealed: v.literal(false), violation: v.nullable(v.string()), language: v.nullable(v.string()), texts: v.array(v.string()) }),
      ]),
    ),
  }),
  ReporterEpochWrapStored: v.object({ epoch: v.number() }),
  Comment: comment,
  WhistleblowerUpdated: v.object({ whistleblower }),
  PasswordChangeAsked: v.object({ mustChangePassword: v.literal(true) }),
  EnrolmentStarted: v.object({ name: v.string(), email: nullableString, companyName: v.string(), secret: v.string(), uri: v.string() }),
  EnrolmentFinished: v.object({ recoveryCodes: v.array(v.string()) }),
  HandlerSession: handlerSession,
  Handler: v.object({ id: v.string(), name: v.string(), companyId: v.string() }),
  HandlerCases: v.object({
    cases: v.array(
      v.object({
        caseNumber: v.string(),
        status: v.string(),
        created: when,
        submission: v.object({ type: v.string() }),
        creationChannel: v.string(),
        entryChannel: v.optional(nullableString),
        protectionOfficerId: nullableString,
        officerName: nullableString,
        subsidiary: v.nullable(v.object({ id: v.string(), name: v.string() })),
        assignee: v.nullable(colleague),
        sharedWithMe: v.boolean(),
        receivedDate: v.nullable(when),
        pendingWhistleblowerAction: v.boolean(),
        approvedAt: v.nullable(when),
        unreadMessages: v.number(),
        deadline,
        scheduledDeletion: v.nullable(when),
      }),
    ),
    nextCursor: nullableString,
  }),
  HandlerCase: handlerCaseView,
  HandlerCreated: v.object({
    id: v.string(),
    token: nullableString,
    companyId: v.string(),
    name: v.string(),
    email: nullableString,
    officers: v.array(v.string()),
    hosts: v.array(v.string()),
    enrolmentCode: nullableString,
    enrolmentExpiresAt: v.nullable(when),
    enrolmentLink: v.optional(nullableString),
    roles: v.optional(v.object({ admin: v.boolean(), handler: v.boolean() })),
  }),
  OperatorCreated: v.object({ id: v.string(), name: v.string(), email: v.string(), enrolmentCode: v.string(), enrolmentLink: v.string(), enrolmentExpiresAt: when }),
  AdminCompanies: v.object({ companies: v.array(v.object({ id: v.string(), name: v.string(), hosts: v.array(v.string()) })), operator: v.boolean() }),
  Accounts: v.object({ accounts: v.array(accountView), officers: v.array(v.object({ id: v.string(), name: v.string() })), mail: v.boolean(), hosts: v.array(v.string()) }),
  Account: accountView,
  Invitation: invitation,
  SessionsEnded: v.object({ sessionsEnded: v.number() }),
  Tokens: v.object({ tokens: v.array(tokenView) }),
  Token: tokenView,
  NewToken: v.object({ token: v.string(), ...tokenView.entries }),
  Trail: v.object({ entries: v.array(trailEntry) }),
  SignInChallenge: v.object({ challenge: v.nullable(v.object({ challenge: v.string(), difficulty: v.number(), expiresAt: when })) }),
  Purge: v.object({ dryRun: v.boolean(), cases: v.array(v.unknown()) }),
  KeyAnchor: v.object({ ecdhSpki: v.string(), ecdsaSpki: v.string(), fingerprint: v.string() }),
  KeyLog: v.object({
    anchor: v.nullable(v.object({ ecdhSpki: v.string(), ecdsaSpki: v.string(), fingerprint: v.string() })),
    entries: v.array(
      v.object({
        seq: v.number(),
        handlerId: v.string(),
        ecdhSpki: v.string(),
        ecdsaSpki: v.string(),
        officerIds: v.array(v.string()),
        addedAt: v.string(),
        action: v.picklist(['add', 'remove']),
        prevHash: v.string(),
        certifierKeyId: v.string(),
        signature: v.string(),
      }),
    ),
    // Only with SEALED_CASES=browser: the mail key the report form seals the notification address to.
    mailKey: v.optional(v.object({ spki: v.string(), keyId: v.string() })),
    // Only with SEALED_CASES=browser: the statistics key, signed, for the browser to verify before it seals categories to it.
    statisticsKey: v.optional(v.nullable(v.object({ spki: v.string(), keyId: v.string(), certifierKeyId: v.string(), signature: v.string(), replaces: v.optional(v.string()) }))),
  }),
  KeyLogAppended: v.object({ seq: v.number(), hash: v.string() }),
  StatisticsKey: v.object({ spki: v.string(), keyId: v.string(), certifierKeyId: v.string(), signature: v.string(), replaces: v.optional(v.string()) }),
  StatisticsKeyGiven: v.object({ recipientKeyId: v.string(), statsKeyIds: v.array(v.string()) }),
  Statistics: v.object({
    key: v.nullable(v.object({ spki: v.string(), keyId: v.string(), certifierKeyId: v.string(), signature: v.string(), replaces: v.optional(v.string()) })),
    wrap: v.nullable(v.object({ recipientKeyId: v.string(), box: v.string() })),
    keys: v.array(
      v.object({
        key: v.object({ spki: v.string(), keyId: v.string(), certifierKeyId: v.string(), signature: v.string(), replaces: v.optional(v.string()) }),
        wrap: v.nullable(v.object({ recipientKeyId: v.string(), box: v.string() })),
        holders: v.array(v.string()),
      }),
    ),
    boxes: v.array(v.object({ caseId: v.string(), keyId: v.string(), box: v.string() })),
    notHeld: v.number(),
  }),
  SignInSalt: v.object({ salt: v.string(), kdf: v.object({ name: v.string() }), legacy: v.optional(v.literal(true)) }),
  SealedKeys: v.object({ salt: v.string(), kdf: v.object({ name: v.string() }), ecdhSpki: v.string(), ecdsaSpki: v.string(), sealedKeys: v.string(), sealedKeysRecovery: v.string() }),
  Colleagues: v.object({
    handlers: v.array(v.object({ id: v.string(), name: v.string(), email: v.nullable(v.string()), ecdhSpki: v.string(), ecdsaSpki: v.string(), officerIds: v.array(v.string()), disabled: v.boolean() })),
  }),
  CompanyImported: v.object({ id: v.string(), created: v.boolean() }),
  SigningKey: v.object({ kid: v.string() }),
  CompanyEditor: v.object({ version: v.number(), file: v.record(v.string(), v.unknown()), images: v.record(v.string(), v.object({ sha256: v.string(), contentType: v.string() })), canEditHosts: v.boolean() }),
  CompanyVersion: v.object({ version: v.number() }),
  Templates: v.object({ templates: v.array(v.object({ id: v.string(), name: v.string(), texts: v.record(v.string(), v.string()), updatedAt: when })), languages: v.array(v.string()), defaultLanguage: v.string() }),
  TemplateSaved: v.object({ template: v.object({ id: v.string(), name: v.string(), texts: v.record(v.string(), v.string()), updatedAt: when }) }),
  CompanyVersions: v.object({
    versions: v.array(v.object({ version: v.number(), action: v.picklist(['import', 'save', 'revert']), revertedTo: v.nullable(v.number()), actorName: v.string(), actorRole: v.string(), createdAt: when })),
  }),
  CompanyExport: v.object({ file: v.record(v.string(), v.unknown()), assets: v.record(v.string(), v.object({ contentType: v.string(), base64: v.string() })) }),
  CompanyImage: v.object({ sha256: v.string(), contentType: v.string(), file: v.string() }),
  CompanyPreview: v.object({ id: v.string(), languages: v.array(v.string()), expiresAt: when }),
} satisfies Record<string, GenericSchema>;

export type AnswerName = keyof typeof ANSWER_SCHEMAS;

/**
 * A success answer: JSON of a named schema, or bytes of the listed media types; an
 * operation that is not here answers without a body (204, HEAD, OPTIONS).
 * `also`: further success statuses with the same body (an import that replaces: 200).
 */
export interface Answer {
  json?: AnswerName;
  media?: string[];
  also?: number[];
  /** Headers only, though the status is not 204. */
  bodiless?: true;
}

const IMAGE = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp', 'image/gif'];
const FILE = ['application/octet-stream'];
const RECORD = ['text/plain'];

/** By `METHOD path` as in OPERATIONS (Fastify's `:param` form). */
export const ANSWERS: Record<string, Answer> = {
  'GET /api/openapi.json': { json: 'OpenApiDocument' },
  'GET /api/public/pow/challenge': { json: 'PowChallenge' },
  'GET /api/public/case/company-info': { json: 'CompanyInfo' },
  'GET /api/public/site-look-and-feel/language/:languageCode': { json: 'LookAndFeel' },
  'GET /api/public/site-look-and-feel/logo/:logoFileName': { media: IMAGE },
  'GET /api/public/case/protection-officer/:poUuid/logo': { media: IMAGE },
  'POST /api/public/case/reservation': { json: 'CaseReservation' },
  'POST /api/public/case/new/by-form': { json: 'NewCase' },
  'POST /api/public/case/new/sealed': { json: 'NewCase' },
  'GET /api/private/case/my-case/sealed': { json: 'SealedCase' },
  'GET /api/private/case/my-case/reporter-wrap': { json: 'ReporterWrapOffer' },
  'PUT /api/private/case/my-case/reporter-wrap': { json: 'ReporterWrapStored' },
  'POST /api/private/case/messages/sealed': { json: 'SealedMessageSent' },
  'PUT /api/private/case/whistleblower/sealed': { json: 'SealedIdentityStored' },
  'PUT /api/private/case/notification/sealed': { json: 'SealedNotifyStored' },
  'DELETE /api/private/case/notification/sealed': { json: 'SealedNotifyStored' },
  'POST /api/private/case/comments/sealed': { json: 'SealedCommentSent' },
  'POST /api/handler/cases/:caseNumber/record/sealed': { json: 'SealedRecordStored' },
  'POST /api/handler/cases/:caseNumber/files/:fileId/transcript/sealed': { json: 'SealedRecordStored' },
  'PUT /api/handler/cases/:caseNumber/files/:fileId/transcript': { json: 'HandlerCase' },
  'PUT /api/private/case/files/:fileId/transcript/approve': { json: 'TranscriptApproved' },
  'POST /api/private/case/files/:fileId/transcript/comments': { json: 'Comment' },
  'POST /api/private/case/files/:fileId/transcript/comments/sealed': { json: 'SealedCommentSent' },
  'GET /api/handler/cases/:caseNumber/sealed': { json: 'HandlerSealedCase' },
  'POST /api/handler/cases/:caseNumber/messages/sealed': { json: 'SealedMessageSent' },
  'POST /api/handler/cases/:caseNumber/upload-sessions': { json: 'UploadSession' },
  'GET /api/handler/cases/:caseNumber/key-wraps': { json: 'KeyHolders' },
  'GET /api/handler/cases/:caseNumber/assignment': { json: 'Assignment' },
  'PUT /api/handler/cases/:caseNumber/assignee': { json: 'Assignment' },
  'POST /api/handler/cases/:caseNumber/shares': { json: 'Assignment' },
  'DELETE /api/handler/cases/:caseNumber/shares/:handlerId': { json: 'Assignment' },
  'GET /api/handler/cases/:caseNumber/notes': { json: 'Notes' },
  'POST /api/handler/cases/:caseNumber/notes': { json: 'Note' },
  'PUT /api/handler/cases/:caseNumber/notes/:noteId': { json: 'Note' },
  'POST /api/handler/cases/:caseNumber/notes/:noteId/files': { json: 'Note' },
  'POST /api/handler/cases/:caseNumber/key-wraps': { json: 'KeyGranted' },
  'POST /api/handler/cases/:caseNumber/key-epochs': { json: 'KeyRevoked' },
  'POST /api/handler/cases/:caseNumber/exports': { json: 'ExportRecorded' },
  'POST /api/handler/cases/summaries': { json: 'CaseSummaries' },
  'GET /api/handler/case-entry': { json: 'CaseEntryChoices' },
  'POST /api/handler/case-entry/reservation': { json: 'CaseReservation' },
  'POST /api/handler/case-entry/sealed': { json: 'EnteredCase' },
  'POST /api/handler/case-entry': { json: 'EnteredCase' },
  'PUT /api/private/case/my-case/epoch-wrap': { json: 'ReporterEpochWrapStored' },
  'POST /api/public/case/new/by-phone': { json: 'NewCase' },
  'POST /api/public/case/new/by-meeting': { json: 'NewCase' },
  'POST /api/public/upload-sessions': { json: 'UploadSession' },
  'GET /api/private/case/token/verify': { json: 'TokenCheck' },
  'GET /api/private/case/my-case': { json: 'Case' },
  'GET /api/private/case/messages': { json: 'Messages' },
  'POST /api/private/case/messages/new': { json: 'MessageSent' },
  'POST /api/private/case/upload-sessions': { json: 'UploadSession' },
  'PUT /api/private/case/approve': { json: 'Case' },
  'GET /api/private/case/record/:version/approved': { media: RECORD },
  'POST /api/private/case/whistleblower/update': { json: 'WhistleblowerUpdated' },
  'PUT /api/private/case/whistleblower/update': { json: 'WhistleblowerUpdated' },
  'PUT /api/private/case/password/request-update': { json: 'PasswordChangeAsked' },
  'POST /api/private/case/comments': { json: 'Comment' },
  'GET /api/private/case/files/:fileId': { media: FILE },
  'POST /api/handler/enrolment/start': { json: 'EnrolmentStarted' },
  'POST /api/handler/enrolment/finish': { json: 'EnrolmentFinished' },
  'POST /api/handler/session': { json: 'HandlerSession' },
  'GET /api/handler/session': { json: 'HandlerSession' },
  'POST /api/handler/session/refresh': { json: 'HandlerSession' },
  'GET /api/handler/me': { json: 'Handler' },
  'GET /api/handler/cases': { json: 'HandlerCases' },
  'GET /api/handler/cases/:caseNumber': { json: 'HandlerCase' },
  'GET /api/handler/cases/:caseNumber/files/:fileId': { media: FILE },
  'PUT /api/handler/cases/:caseNumber/status': { json: 'HandlerCase' },
  'PUT /api/handler/cases/:caseNumber/report': { json: 'HandlerCase' },
  'GET /api/handler/cases/:caseNumber/record/:version/approved': { media: RECORD },
  'POST /api/handler/cases/:caseNumber/messages': { json: 'MessageSent' },
  'POST /api/admin/handlers': { json: 'HandlerCreated' },
  'POST /api/admin/cases/purge': { json: 'Purge' },
  'GET /api/public/key-log': { json: 'KeyLog' },
  'POST /api/handler/key-log': { json: 'KeyLogAppended' },
  'PUT /api/admin/companies/:company/key-anchor': { json: 'KeyAnchor' },
  'POST /api/handler/key-anchor': { json: 'KeyAnchor' },
  'POST /api/handler/statistics-key': { json: 'StatisticsKey' },
  'POST /api/handler/statistics-key/wraps': { json: 'StatisticsKeyGiven' },
  'GET /api/handler/statistics': { json: 'Statistics' },
  'POST /api/handler/session/salt': { json: 'SignInSalt' },
  'GET /api/handler/keys': { json: 'SealedKeys' },
  'GET /api/handler/keys/colleagues': { json: 'Colleagues' },
  // 201 for a new company, 200 for one replaced.
  'POST /api/admin/companies': { json: 'CompanyImported', also: [201] },
  // tus creation: the answer is its Location and Upload-Offset headers.
  'POST /api/public/uploads': { bodiless: true },
  'POST /api/admin/identity/rotate-signing-key': { json: 'SigningKey' },
  'GET /api/handler/session/challenge': { json: 'SignInChallenge' },
  'GET /api/handler/tokens': { json: 'Tokens' },
  'POST /api/handler/tokens': { json: 'NewToken' },
  'DELETE /api/handler/tokens/:token': { json: 'Token' },
  'POST /api/admin/operators': { json: 'OperatorCreated' },
  'GET /api/admin/trail': { json: 'Trail' },
  'GET /api/admin/companies': { json: 'AdminCompanies' },
  'GET /api/admin/companies/:company/accounts': { json: 'Accounts' },
  'POST /api/admin/companies/:company/accounts': { json: 'Invitation' },
  'PATCH /api/admin/companies/:company/accounts/:account': { json: 'Account' },
  'POST /api/admin/companies/:company/accounts/:account/disable': { json: 'Account' },
  'POST /api/admin/companies/:company/accounts/:account/enable': { json: 'Account' },
  'POST /api/admin/companies/:company/accounts/:account/reset': { json: 'Invitation' },
  'POST /api/admin/companies/:company/accounts/:account/sessions/end': { json: 'SessionsEnded' },
  'GET /api/admin/companies/:company/accounts/:account/tokens': { json: 'Tokens' },
  'POST /api/admin/companies/:company/accounts/:account/tokens': { json: 'NewToken' },
  'DELETE /api/admin/companies/:company/accounts/:account/tokens/:token': { json: 'Token' },
  'GET /api/admin/companies/:company/trail': { json: 'Trail' },
  'GET /api/admin/companies/:company/editor': { json: 'CompanyEditor' },
  'GET /api/admin/companies/:company/templates': { json: 'Templates' },
  'POST /api/admin/companies/:company/templates': { json: 'TemplateSaved' },
  'PUT /api/admin/companies/:company/templates/:id': { json: 'TemplateSaved' },
  'GET /api/handler/templates': { json: 'Templates' },
  'PUT /api/admin/companies/:company/settings': { json: 'CompanyVersion' },
  'GET /api/admin/companies/:company/versions': { json: 'CompanyVersions' },
  'POST /api/admin/companies/:company/versions/:version/revert': { json: 'CompanyVersion' },
  'GET /api/admin/companies/:company/export': { json: 'CompanyExport' },
  'POST /api/admin/companies/:company/import': { json: 'CompanyVersion' },
  'POST /api/admin/companies/:company/images': { json: 'CompanyImage' },
  'GET /api/admin/companies/:company/images/:sha256': { media: IMAGE },
  'POST /api/admin/companies/:company/preview': { json: 'CompanyPreview' },
  'GET /api/admin/companies/:company/preview/:previewId/:language': { media: ['text/html'] },
};
