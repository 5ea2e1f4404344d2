/**
 * The one set of rules that the SPA, the machines and the server all apply
 * (spec §5, §9; DESIGN.md §2). Anything a reporter can type is checked here first;
 * the server runs the same schemas again, because a browser can be bypassed.
 *
 * Messages are i18n *keys*, never English text: the views translate them.
 */
import * as v from 'valibot';

export const LIMITS = {
  descriptionMax: 200,
  chatMax: 200,
  commentMax: 5000,
  freeTextMax: 1000,
  passwordMin: 4,
  passwordMax: 256,
  maxFiles: 5,
  maxFileBytes: 2 * 1024 ** 3,
  personsMax: 50,
} as const;

export const VIOLATIONS = ['MONEY_LAUNDERING', 'FRAUD', 'FORGERY', 'THEFT', 'OTHER_OFFENCE', 'DONT_KNOW'] as const;
export type Violation = (typeof VIOLATIONS)[number];

export const CASE_STATUSES = [
  'PENDING_WHISTLEBLOWER_CONTACT',
  'RECEIVED',
  'BEING_INVESTIGATED',
  'BEING_CLOSED',
  'CLOSED',
] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

export const MESSAGE_TYPES = ['STANDARD', 'FEEDBACK', 'CONFIRMATION'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const CREATION_CHANNELS = ['BY_ONLINE_FORM', 'BY_PHONE'] as const;
export type CreationChannel = (typeof CREATION_CHANNELS)[number];

export const SUBMISSION_TYPES = ['ONLINE_FORM', 'PHONE', 'MEETING'] as const;
export type SubmissionType = (typeof SUBMISSION_TYPES)[number];

/** Interface languages (machines/languages.ts, kept free of valibot for the landing page). */
import { LANGUAGES, PRIVATE_LANGUAGES, DEFAULT_LANGUAGE, type Language } from './languages.ts';
export { LANGUAGES, PRIVATE_LANGUAGES, DEFAULT_LANGUAGE, type Language };

/** File types (spec §5). Each extension maps to the content types its bytes may have. */
export const ALLOWED_FILE_TYPES = {
  docx: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  csv: ['text/csv', 'text/plain', 'application/vnd.ms-excel'],
  pdf: ['application/pdf'],
  txt: ['text/plain'],
  xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  xls: ['application/vnd.ms-excel'],
  jpg: ['image/jpeg'],
  jpeg: ['image/jpeg'],
  png: ['image/png'],
  mp4: ['video/mp4', 'audio/mp4'],
  mov: ['video/quicktime'],
  avi: ['video/x-msvideo', 'video/avi'],
  wmv: ['video/x-ms-wmv'],
  // Voice messages recorded in the browser (issue 40): Opus in WebM (Chromium,
  // Firefox) or in Ogg; Safari's MP4 is the `mp4` above.
  webm: ['audio/webm', 'video/webm'],
  ogg: ['audio/ogg'],
} as const satisfies Record<string, readonly string[]>;
export type AllowedExtension = keyof typeof ALLOWED_FILE_TYPES;
export const ALLOWED_EXTENSIONS = Object.keys(ALLOWED_FILE_TYPES) as AllowedExtension[];
export const ALLOWED_MIME_TYPES = [...new Set(Object.values(ALLOWED_FILE_TYPES).flat())];

export function fileExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * Characters that change how text is shown rather than what it says: C0 and C1
 * controls, DEL, the bidirectional overrides, embeddings, isolates and marks (which
 * turn `invoice\u202Efdp.exe` into "invoiceexe.pdf" on screen), zero-width characters
 * and the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex
export const INVISIBLE_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

/** Most bytes of UTF-8 a stored file name may take (file systems allow 255). */
export const FILE_NAME_MAX_BYTES = 255;

/** Cuts `s` to at most `max` bytes of UTF-8, never inside a character (surrogate pairs stay whole). */
export function cutUtf8(s: string, max: number): string {
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    const n = new TextEncoder().encode(ch).length;
    if (bytes + n > max) break;
    bytes += n;
    out += ch;
  }
  return out;
}

/**
 * A file name safe to store, show and save (issue 11, findings 8 and 10): the last
 * path segment only, no controls or bidi overrides, Unicode NFC, at most 255 bytes of
 * UTF-8 cut at a character boundary with the extension kept. The server cleans every
 * upload with it; the SPA may show names the same way.
 */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  const cleaned = base.normalize('NFC').replace(INVISIBLE_CONTROLS, '').trim();
  if (cleaned === '.' || cleaned === '..') return '';
  if (new TextEncoder().encode(cleaned).length <= FILE_NAME_MAX_BYTES) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const ext = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  const stem = ext ? cleaned.slice(0, dot) : cleaned;
  return cutUtf8(stem, FILE_NAME_MAX_BYTES - new TextEncoder().encode(ext).length) + ext;
}

export function isAllowedFileName(name: string): boolean {
  return Object.hasOwn(ALLOWED_FILE_TYPES, fileExtension(name));
}

// ---- file content (magic bytes) ---------------------------------------------

/** How many first bytes the signature check reads. */
export const FILE_HEAD_BYTES = 64;
/** How much of a text file the browser checks before sending; the server checks every byte. */
export const TEXT_SAMPLE_BYTES = 64 * 1024;

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (b: Uint8Array, s: string, at = 0) =>
  b.length >= at + s.length && [...s].every((ch, i) => b[at + i] === ch.charCodeAt(0));

const ASF_GUID = [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11, 0xa6, 0xd9, 0x00, 0xaa, 0x00, 0x62, 0xce, 0x6c];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const QUICKTIME_ATOMS = ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'];
/** The EBML header every Matroska/WebM file opens with. */
const EBML = [0x1a, 0x45, 0xdf, 0xa3];

/**
 * Does `head` (a file's first bytes) look like a file of extension `ext`? The one
 * rule the browser (before sending) and the server (while storing) both apply.
 * Text types are judged by `isTextContent` instead.
 */
export function headMatches(ext: AllowedExtension, head: Uint8Array): boolean {
  switch (ext) {
    case 'pdf':
      return ascii(head, '%PDF-');
    case 'png':
      return startsWith(head, PNG);
    case 'jpg':
    case 'jpeg':
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case 'docx':
    case 'xlsx':
      return startsWith(head, [0x50, 0x4b, 0x03, 0x04]);
    case 'xls':
      return startsWith(head, OLE);
    case 'mp4':
      return ascii(head, 'ftyp', 4);
    case 'mov':
      return ascii(head, 'ftyp', 4) || QUICKTIME_ATOMS.some((a) => ascii(head, a, 4));
    case 'avi':
      return ascii(head, 'RIFF') && ascii(head, 'AVI ', 8);
    case 'wmv':
      return startsWith(head, ASF_GUID);
    case 'webm':
      return startsWith(head, EBML);
    case 'ogg':
      return ascii(head, 'OggS');
    case 'txt':
    case 'csv':
      return true;
  }
}

export const isTextExtension = (ext: string) => ext === 'txt' || ext === 'csv';

/**
 * Text (`txt`, `csv`): UTF-8 without NUL bytes. `more` says the bytes are only a
 * beginning, so a character cut at the end is not an error.
 */
export function isTextContent(bytes: Uint8Array, more = false): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: more });
    return true;
  } catch {
    return false;
  }
}

/**
 * Does a file's content fit its name? `sample` is its first bytes (for text, up to
 * TEXT_SAMPLE_BYTES; `complete` when that is the whole file). An unknown or not
 * allowed extension never fits.
 */
export function contentMatches(name: string, sample: Uint8Array, complete: boolean): boolean {
  const ext = fileExtension(name);
  if (!Object.hasOwn(ALLOWED_FILE_TYPES, ext)) return false;
  return isTextExtension(ext) ? isTextContent(sample, !complete) : headMatches(ext as AllowedExtension, sample);
}

/** A dropped file is checked by name and, when the browser reports one, by type. */
export function isAllowedFile(file: { name: string; type?: string }): boolean {
  if (!isAllowedFileName(file.name)) return false;
  return !file.type || (ALLOWED_MIME_TYPES as string[]).includes(file.type);
}

/** A file's first bytes as the browser read them, for `contentMatches`. */
export interface FileSample {
  bytes: Uint8Array;
  /** True when `bytes` is the whole file. */
  complete: boolean;
}

/** Why a chosen file was not added: beyond the five, a type not allowed, over 2 GB. */
export type FileRejection = 'tooMany' | 'type' | 'tooLarge';
export interface RejectedFile {
  name: string;
  reason: FileRejection;
}

/**
 * Keeps the first five allowed files (spec §5); the others are not added, and each
 * is named with its reason (`rejected`, in the order chosen): beyond the five, a
 * type not allowed, or larger than 2 GB. With samples (same order as `added`), a
 * file whose content does not fit its name is refused by name at once (`refused`),
 * as the server would refuse it. `dropped` counts `rejected`.
 */
export function keepAllowedFiles<F extends { name: string; type?: string; size?: number }>(
  existing: readonly F[],
  added: readonly F[],
  samples?: readonly (FileSample | undefined)[],
) {
  const refused: string[] = [];
  const rejected: RejectedFile[] = [];
  const kept: F[] = [];
  let room = Math.max(0, LIMITS.maxFiles - existing.length);
  added.forEach((f, i) => {
    if (!isAllowedFile(f)) return rejected.push({ name: f.name, reason: 'type' });
    if (typeof f.size === 'number' && f.size > LIMITS.maxFileBytes) return rejected.push({ name: f.name, reason: 'tooLarge' });
    const sample = samples?.[i];
    if (sample && !contentMatches(f.name, sample.bytes, sample.complete)) return refused.push(f.name);
    if (room === 0) return rejected.push({ name: f.name, reason: 'tooMany' });
    room--;
    kept.push(f);
  });
  return { files: [...existing, ...kept], dropped: rejected.length, refused, rejected };
}

// ---- single values ---------------------------------------------------------

const trimmed = v.pipe(v.string(), v.trim());
export const requiredText = (max: number = LIMITS.freeTextMax) =>
  v.pipe(trimmed, v.nonEmpty('validation.required'), v.maxLength(max, 'validation.tooLong'));

export const emailSchema = v.pipe(trimmed, v.nonEmpty('validation.required'), v.email('validation.email'), v.maxLength(254, 'validation.email'));

/** Danish phone: exactly 11 characters, +45 then 8 digits (spec §5, §9). */
export const DANISH_PHONE = /^\+45\d{8}$/;

/**
 * International phone as the phone input gives it: + and 8 to 15 digits (E.164).
 * A Danish number (+45) is always exactly +45 and 8 digits (spec §5, §9), wherever
 * it is typed: `+451234567` and `+45123456789` are refused.
 */
export const INTERNATIONAL_PHONE = /^(?:\+45\d{8}|\+(?!45)[1-9]\d{7,14})$/;
// A +45 number of the wrong length is told the Danish rule, not just "not valid".
const isDanishWhenPlus45 = (s: string) => !s.startsWith('+45') || DANISH_PHONE.test(s);
export const internationalPhoneSchema = v.pipe(trimmed, v.check(isDanishWhenPlus45, 'validation.phoneDanish'), v.regex(INTERNATIONAL_PHONE, 'validation.phone'));

/**
 * A reported person's phone or e-mail. A phone may be typed in groups, as the hint
 * shows it ("+45 12 34 56 78"): spaces between digits are not part of the number.
 */
export const phoneOrEmailSchema = v.pipe(
  trimmed,
  v.nonEmpty('validation.required'),
  v.check((s) => {
    const compact = s.replace(/(?<=[+\d]) (?=\d)/g, '');
    return DANISH_PHONE.test(compact) || INTERNATIONAL_PHONE.test(compact) || v.is(emailSchema, s);
  }, 'validation.phoneOrEmail'),
);

export const descriptionSchema = v.pipe(
  trimmed,
  v.nonEmpty('validation.required'),
  v.maxLength(LIMITS.descriptionMax, 'validation.descriptionTooLong'),
);
/** With a voice message attached the text is optional (issue 40): only its length is checked. */
export const optionalDescriptionSchema = v.pipe(trimmed, v.maxLength(LIMITS.descriptionMax, 'validation.descriptionTooLong'));

/** Is `mimeType` (as the server stored it) a voice message's? */
export const isAudioType = (mimeType: string) => mimeType.startsWith('audio/') || mimeType === 'video/webm';

// ---- voice messages (issue 40, docs/decisions/voice-messages.md) -------------------

export const VOICE_DISGUISE_POLICIES = ['always', 'choice', 'never'] as const;
/** always: every recording is disguised; choice: the reporter chooses (disguised unless they say otherwise); never: no disguise. */
export type VoiceDisguisePolicy = (typeof VOICE_DISGUISE_POLICIES)[number];
export const VOICE_LIMITS = { defaultMinutes: 10, minMinutes: 1, maxMinutes: 30 } as const;
/** A company's voice-message settings as the SPA receives them. */
export interface VoiceSettings {
  enabled: boolean;
  maxMinutes: number;
  disguise: VoiceDisguisePolicy;
}
export const VOICE_OFF: VoiceSettings = { enabled: false, maxMinutes: VOICE_LIMITS.defaultMinutes, disguise: 'choice' };

export const passwordSchema = v.pipe(
  v.string(),
  v.minLength(LIMITS.passwordMin, 'validation.passwordMin'),
  v.maxLength(LIMITS.passwordMax, 'validation.tooLong'),
);

/** Case number: 16 digits, shown grouped by four, accepted with or without spaces. */
export const CASE_NUMBER = /^\d{16}$/;
export function normalizeCaseNumber(input: string): string {
  return input.replace(/[\s-]/g, '');
}
export function formatCaseNumber(n: string): string {
  return normalizeCaseNumber(n).replace(/(\d{4})(?=\d)/g, '$1 ');
}

// ---- the Directive's clocks ---------------------------------------------------

/**
 * Directive 2019/1937 art. 9(1)(b) and (f): acknowledge within 7 days of receipt;
 * give feedback within 3 months of the acknowledgement or, when none came within
 * those 7 days, of their end. The one reading of the clocks: the reporter's status
 * page, the handlers' inbox and the reminder mails all call this, in UTC, so the
 * three never show different dates for one case. The first CONFIRMATION or
 * FEEDBACK message acknowledges receipt; the first FEEDBACK message gives feedback.
 */
export const ACKNOWLEDGEMENT_DAYS = 7;
export const FEEDBACK_MONTHS = 3;
const CLOCK_DAY_MS = 24 * 3600 * 1000;

export function addMonthsUtc(d: Date, months: number): Date {
  const out = new Date(d.getTime());
  const day = out.getUTCDate();
  out.setUTCDate(1);
  out.setUTCMonth(out.getUTCMonth() + months);
  // 30 November + 3 months is the last day of February, not 2 March.
  const last = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate();
  out.setUTCDate(Math.min(day, last));
  return out;
}

export interface LegalClocks {
  acknowledgement: { due: Date; metAt: Date | null };
  feedback: { due: Date; metAt: Date | null };
}

/** Null before receipt (a phone case waiting for its call has no clock yet). */
export function legalClocks(receivedAt: Date | null, acknowledgedAt: Date | null, feedbackAt: Date | null): LegalClocks | null {
  if (!receivedAt) return null;
  const ackDue = new Date(receivedAt.getTime() + ACKNOWLEDGEMENT_DAYS * CLOCK_DAY_MS);
  const feedbackDue = addMonthsUtc(acknowledgedAt && acknowledgedAt < ackDue ? acknowledgedAt : ackDue, FEEDBACK_MONTHS);
  return { acknowledgement: { due: ackDue, metAt: acknowledgedAt }, feedback: { due: feedbackDue, metAt: feedbackAt } };
}

// ---- objects on the wire ---------------------------------------------------

export const whistleblowerSchema = v.object({
  name: requiredText(200),
  email: emailSchema,
  phone: v.optional(v.nullable(v.union([v.literal(''), internationalPhoneSchema]))),
  phoneCountryCode: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(8)))),
  notification: v.optional(v.boolean(), false),
});
export type Whistleblower = v.InferOutput<typeof whistleblowerSchema>;

/** The private identity form (spec §5): name required; phone and e-mail each checked only when given. */
export const whistleblowerUpdateSchema = v.object({
  name: requiredText(200),
  email: v.optional(v.nullable(v.union([v.literal(''), emailSchema]))),
  phone: v.optional(v.nullable(v.union([v.literal(''), internationalPhoneSchema]))),
  phoneCountryCode: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(8)))),
  notification: v.optional(v.boolean(), false),
});
export type WhistleblowerUpdate = v.InferOutput<typeof whistleblowerUpdateSchema>;

export const reportedPersonSchema = v.object({
  name: requiredText(200),
  jobTitle: requiredText(200),
  phoneOrEmail: phoneOrEmailSchema,
});
export type ReportedPerson = v.InferOutput<typeof reportedPersonSchema>;

/**
 * The derivation a reporter's browser used (core/crypto `Kdf`): its shape here, its
 * bounds (no weaker than the defaults) checked by the server with core/crypto.
 */
export const kdfSchema = v.variant('name', [
  v.object({ name: v.literal('argon2id-v1'), m: v.number(), t: v.number(), p: v.number() }),
  v.object({ name: v.literal('pbkdf2-v1'), iterations: v.number() }),
]);
const base64url43 = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{43}$/, 'validation.invalid'));

/**
 * A followed case from the portal's own form (issue 37): no password, only the
 * verifier derived in the browser from the reserved case number, the password and
 * the reservation's salt, with the derivation used (docs/decisions/blind-server.md).
 */
export const derivedAccountSchema = v.object({ follow: v.literal(true), reservation: base64url43, verifier: base64url43, kdf: kdfSchema });
export type DerivedAccount = v.InferOutput<typeof derivedAccountSchema>;
const plainAccountSchema = v.object({ follow: v.literal(true), password: passwordSchema });

/** Scripted clients may still send the spec's plain `password` (the weaker path: the server derives the same verifier). */
export const caseAccountSchema = v.variant('follow', [
  plainAccountSchema,
  derivedAccountSchema,
  v.object({ follow: v.literal(false), password: v.optional(v.nullable(v.literal(''))) }),
]);
export type CaseAccount = v.InferOutput<typeof caseAccountSchema>;

const idRef = v.object({ id: v.pipe(v.string(), v.nonEmpty('validation.required'), v.maxLength(100)) });

const commonSubmission = {
  whistleblowerRelation: requiredText(),
  subsidiary: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
  protectionOfficer: idRef,
  whistleblower: v.optional(v.nullable(whistleblowerSchema), null),
};

/** A reporter who asks to be notified by e-mail must follow the case (spec §4). */
const notificationNeedsFollow = <T extends { whistleblower?: Whistleblower | null; caseAccount: CaseAccount }>(x: T) =>
  !x.whistleblower?.notification || x.caseAccount.follow;

export const caseDtoSchema = v.pipe(
  v.object({
    ...commonSubmission,
    creationChannel: v.optional(v.literal('BY_ONLINE_FORM'), 'BY_ONLINE_FORM'),
    description: optionalDescriptionSchema,
    /** One of the files is a voice message (issue 40): the text may then be empty. The server checks the audio file is there. */
    voiceMessage: v.optional(v.boolean(), false),
    violation: v.optional(v.picklist(VIOLATIONS), 'DONT_KNOW'),
    repeatedViolations: v.boolean(),
    caseAccount: caseAccountSchema,
    reportedPersons: v.optional(v.pipe(v.array(reportedPersonSchema), v.maxLength(LIMITS.personsMax)), []),
    reportedUnit: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(LIMITS.freeTextMax)))),
    /** Ids of finished resumable uploads of the request's upload session (docs/decisions/resumable-uploads.md), joined to the case with it. */
    uploads: v.optional(v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.maxLength(LIMITS.maxFiles)), []),
  }),
  // A partial check: it runs (and names the description) even while other fields are wrong.
  v.forward(
    v.partialCheck([['description'], ['voiceMessage']], (c) => c.description !== '' || c.voiceMessage === true, 'validation.required'),
    ['description'],
  ),
  v.check((c) => c.reportedPersons.length > 0 || !!c.reportedUnit, 'validation.reportRelated'),
  v.check(notificationNeedsFollow, 'validation.notificationNeedsFollow'),
);
export type CaseDto = v.InferOutput<typeof caseDtoSchema>;

/**
 * A case sealed in the reporter's browser (issue 37, docs/decisions/blind-server.md
 * "Sealed cases"): clear metadata the server needs, the sealed fields (core/crypto
 * field format, base64) and the data key's wraps: `reporter` (core/crypto
 * wrapDataKey) when followed, and a sealed box to every key the verified log entitles
 * to the officer and to the company's recovery key, each named by its keyId.
 */
const base64Text = (max: number) => v.pipe(v.string(), v.maxLength(max), v.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'validation.invalid'));
export const keyWrapSchema = v.object({
  recipientKeyId: v.union([v.literal('reporter'), v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid'))]),
  kind: v.picklist(['reporter', 'handler', 'recovery']),
  wrap: base64Text(400),
});
export type KeyWrap = v.InferOutput<typeof keyWrapSchema>;
/**
 * The company's statistics key as a handler's browser publishes it (docs/decisions/sealed-cases.md
 * "The statistics key"): the public half signed by the anchor or the handler's certified key
 * (core/crypto signStatisticsKey), and its private half sealed to handler keys of the verified log.
 */
export const statisticsKeyWrapSchema = v.object({ recipientKeyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')), box: base64Text(1024) });
export const statisticsKeyDtoSchema = v.object({
  key: v.object({
    spki: base64Text(512),
    keyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')),
    certifierKeyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')),
    signature: base64Text(200),
    /** A rotation: the id of the company's newest key, which this one replaces (signed with it). */
    replaces: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid'))),
  }),
  wraps: v.pipe(v.array(statisticsKeyWrapSchema), v.minLength(1), v.maxLength(200)),
});
export type StatisticsKeyDto = v.InferOutput<typeof statisticsKeyDtoSchema>;
/**
 * A holder gives the statistics keys she holds to a colleague certified later
 * (docs/decisions/sealed-workspace.md "The statistics key for colleagues certified later"):
 * each key's private half sealed in her browser to the colleague's key from the verified log.
 */
export const statisticsKeyGiftDtoSchema = v.object({
  recipientKeyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')),
  wraps: v.pipe(
    v.array(v.object({ statsKeyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')), box: base64Text(1024) })),
    v.minLength(1),
    v.maxLength(50),
  ),
});
export type StatisticsKeyGiftDto = v.InferOutput<typeof statisticsKeyGiftDtoSchema>;
export const sealedCaseDtoSchema = v.object({
  caseId: v.pipe(v.string(), v.uuid()),
  /** The channel, in clear as on the plain routes: the online form, or a phone or meeting report (followed, no files; its record is sealed in the handler's browser: docs/decisions/record-versions.md). */
  submissionType: v.optional(v.picklist(SUBMISSION_TYPES), 'ONLINE_FORM'),
  protectionOfficer: idRef,
  subsidiary: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
  caseAccount: v.variant('follow', [derivedAccountSchema, v.object({ follow: v.literal(false) })]),
  envelopes: v.object({
    details: base64Text(4 * 1024 * 1024),
    whistleblower: v.optional(v.nullable(base64Text(64 * 1024)), null),
  }),
  wraps: v.pipe(v.array(keyWrapSchema), v.minLength(1), v.maxLength(200)),
  /** Ids of finished uploads of the request's sealed upload session (X-Upload-Session): files sealed in the browser. */
  uploads: v.optional(v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.maxLength(LIMITS.maxFiles)), []),
  /** The address given for notifications, sealed to the key log's `mailKey` (core/crypto sealNotifyAddress); only with a followed case. */
  notify: v.optional(v.nullable(v.object({ keyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')), box: base64Text(1024) })), null),
  /** The case's categories for statistics, sealed to the key log's verified `statisticsKey` (core/crypto sealCategories); none while the company has no statistics key. */
  categories: v.optional(v.nullable(v.object({ keyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')), box: base64Text(1024) })), null),
});
export type SealedCaseDto = v.InferOutput<typeof sealedCaseDtoSchema>;

/**
 * A message of a sealed case, sealed in the sender's browser under the case's data key
 * with additional data `wb:<case id>:case_message.body_enc:<id>`: the browser picks
 * the id, so the envelope is bound to its row before it is sent.
 */
/**
 * The reporter wraps a sealed case's new-password page re-wrapped under the new reporter
 * key (the `wraps` field, JSON; server/cases/reporter-rewrap.ts): one per epoch. The bytes
 * (size, version) are checked where they are decoded.
 */
export const reporterRewrapsSchema = v.pipe(
  v.array(v.object({ epoch: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(2 ** 31 - 1)), wrap: v.pipe(v.string(), v.maxLength(400)) })),
  v.maxLength(1000),
);
export type ReporterRewraps = v.InferOutput<typeof reporterRewrapsSchema>;
export const sealedMessageDtoSchema = v.object({
  id: v.pipe(v.string(), v.uuid()),
  body: base64Text(64 * 1024),
  type: v.optional(v.picklist(MESSAGE_TYPES), 'STANDARD'),
  answerWanted: v.optional(v.boolean(), false),
  /** Ids of finished uploads of the sender's sealed upload session for this case (X-Upload-Session). */
  uploads: v.optional(v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.maxLength(LIMITS.maxFiles)), []),
  /** The key epoch whose data key sealed the body and the files (core/crypto/epochs.ts); absent: the first. */
  epoch: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000))),
});
export type SealedMessageDto = v.InferOutput<typeof sealedMessageDtoSchema>;

/**
 * The reporter's identity changed on a sealed case (docs/decisions/sealed-cases.md
 * "Reporter pages"): the browser seals `{ name, email, phone, phoneCountryCode,
 * notification }` under the case's data key (core/crypto `sealIdentity`); the server
 * checks the envelope's shape only and stores it as sent.
 */
export const sealedIdentityDtoSchema = v.object({ envelope: base64Text(8 * 1024) });
export type SealedIdentityDto = v.InferOutput<typeof sealedIdentityDtoSchema>;

/**
 * The notification address of a sealed case, changed in the private area: sealed in the
 * browser to the key log's mail key (core/crypto `sealNotifyAddress`), as the report
 * form's `notify`; the server checks its shape and key only and never opens it.
 */
export const sealedNotifyDtoSchema = v.object({
  notify: v.object({ keyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')), box: base64Text(1024) }),
});
export type SealedNotifyDto = v.InferOutput<typeof sealedNotifyDtoSchema>;

/**
 * A grant (docs/decisions/sealed-workspace.md "Handler pages and grants"): a handler who
 * opened a sealed case re-wraps its data key in the browser, as a sealed box to a
 * colleague's ECDH key the verified key log certifies; `recipientKeyId` is that key's id.
 */
export const keyGrantDtoSchema = v.object({
  recipientKeyId: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid')),
  wrap: base64Text(400),
});
export type KeyGrantDto = v.InferOutput<typeof keyGrantDtoSchema>;

const keyIdSchema = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'validation.invalid'));
/**
 * A revocation with a new key epoch (docs/decisions/sealed-cases.md "Revocation and key
 * epochs", core/crypto/epochs.ts makeNextEpoch): the revoking handler's browser made the
 * next epoch's data key, wrapped it to every remaining holder, linked it back to the
 * current key (`previous`) and, when the case has a reporter wrap, forward for the
 * reporter (`next`).
 */
export const keyEpochDtoSchema = v.object({
  epoch: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(1_000_000)),
  revoke: keyIdSchema,
  wraps: v.pipe(v.array(v.object({ recipientKeyId: keyIdSchema, kind: v.picklist(['handler', 'recovery']), wrap: base64Text(400) })), v.minLength(1), v.maxLength(200)),
  previous: base64Text(200),
  next: v.optional(v.nullable(base64Text(200)), null),
});
export type KeyEpochDto = v.InferOutput<typeof keyEpochDtoSchema>;

/**
 * The reporter's own wrap of a later epoch's key (sealed-cases.md "Revocation and key
 * epochs"): her page walked forward through the `next` links, wraps the newest key
 * under her reporter key, and the server drops the links it replaces.
 */
export const reporterEpochWrapDtoSchema = v.object({
  epoch: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(1_000_000)),
  wrap: base64Text(200),
});
export type ReporterEpochWrapDto = v.InferOutput<typeof reporterEpochWrapDtoSchema>;

/** Phone and meeting reports: follow is fixed on, no description or persons (spec §2). */
const oralSubmissionSchema = v.object({
  ...commonSubmission,
  creationChannel: v.optional(v.literal('BY_PHONE'), 'BY_PHONE'),
  caseAccount: v.variant('follow', [plainAccountSchema, derivedAccountSchema]),
});
export const submissionByPhoneDtoSchema = oralSubmissionSchema;
export const submissionByMeetingDtoSchema = oralSubmissionSchema;
export type OralSubmissionDto = v.InferOutput<typeof oralSubmissionSchema>;

export const messageDtoSchema = v.object({
  message: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(LIMITS.chatMax, 'validation.chatTooLong')), ''),
  /** Resumable uploads (ids) of the reporter's upload session, sent in X-Upload-Session, that the message takes. */
  uploads: v.optional(v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.maxLength(LIMITS.maxFiles)), []),
});
export type MessageDto = v.InferOutput<typeof messageDtoSchema>;

export const commentDtoSchema = v.object({
  comment: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(LIMITS.commentMax, 'validation.tooLong')),
});

/** Returns the first issue as `{ field, message }`, field as a dotted path, for 4xx answers and UI labels. */
export function firstIssue(issues: readonly v.BaseIssue<unknown>[]): { field?: string; message: string } {
  const issue = issues[0];
  if (!issue) return { message: 'validation.invalid' };
  const path = v.getDotPath(issue) ?? undefined;
  return { field: path ?? undefined, message: issue.message };
}

// ---- the rules in words, for API answers (docs/api.md "Validation errors") -----------

/** One bad field of a refused request: its dotted path, the rule in plain English, and the rule's catalogue key. */
export interface FieldIssue {
  field: string;
  message: string;
  /** The `validation.*` catalogue key of the rule (src/i18n/common), so a client can say it in the reporter's language. */
  rule: string;
}

const chars = (n: unknown) => `${String(n)} characters`;
/**
 * What each rule above means, in the API's words: the schemas name their rules by
 * catalogue key (the forms translate them); this table is the one place those keys
 * are put into English for a client. `field` names the field a whole-object rule is about.
 */
export const RULE_WORDS: Record<string, { words: (issue: v.BaseIssue<unknown>) => string; field?: string }> = {
  'validation.required': { words: () => 'is required' },
  'validation.email': { words: () => 'must be a valid e-mail address (at most 254 characters)' },
  'validation.phone': { words: () => 'must be a phone number in international form: + and 8 to 15 digits, without spaces' },
  'validation.phoneDanish': { words: () => 'must be a Danish number written +45 and 8 digits' },
  'validation.phoneOrEmail': { words: () => 'must be a valid e-mail address or a phone number such as +4512345678' },
  'validation.passwordMin': { words: () => `must contain at least ${chars(LIMITS.passwordMin)}` },
  'validation.passwordTooShort': { words: (i) => `must contain at least ${chars(i.requirement)}` },
  'validation.descriptionTooLong': { words: () => `must be ${chars(LIMITS.descriptionMax)} or less` },
  'validation.chatTooLong': { words: () => `must be ${chars(LIMITS.chatMax)} or less` },
  'validation.tooLong': { words: (i) => (typeof i.requirement === 'number' ? `must be ${chars(i.requirement)} or less` : 'is too long') },
  'validation.reportRelated': { words: () => 'must name at least one reported person, or the reported unit', field: 'reportedPersons' },
  'validation.notificationNeedsFollow': { words: () => 'must be true when whistleblower.notification is true: e-mail notifications need a followed case', field: 'caseAccount.follow' },
  'validation.invalid': { words: () => 'is not valid' },
  'entry.receivedFuture': { words: () => 'must not be in the future' },
  'entry.receivedTooOld': { words: () => 'must be within the last 366 days' },
};

/** Valibot's own wording ("Invalid type: …") for a rule that names no key, without echoing the value sent. */
function defaultWords(issue: v.BaseIssue<unknown>): { message: string; rule: string } {
  const many = Array.isArray(issue.input);
  if (issue.kind === 'schema') {
    if (issue.input === undefined) return { message: 'is required', rule: 'validation.required' };
    if (issue.type === 'picklist' || issue.type === 'enum' || issue.type === 'literal' || issue.type === 'variant') {
      return { message: `must be one of: ${String(issue.expected ?? '').replace(/[()"]/g, '').split(' | ').join(', ')}`, rule: 'validation.invalid' };
    }
    return { message: `must be ${/^[A-Z]/.test(issue.expected ?? '') ? 'an ' : 'a '}${(issue.expected ?? 'other value').toLowerCase()}`, rule: 'validation.invalid' };
  }
  if (issue.type === 'max_length' || issue.type === 'max_size') return { message: many ? `must have at most ${String(issue.requirement)} items` : `must be ${chars(issue.requirement)} or less`, rule: 'validation.tooLong' };
  if (issue.type === 'min_length') return { message: many ? `must have at least ${String(issue.requirement)} items` : `must contain at least ${chars(issue.requirement)}`, rule: 'validation.invalid' };
  if (issue.type === 'non_empty') return { message: 'is required', rule: 'validation.required' };
  if (issue.type === 'uuid') return { message: 'must be a UUID', rule: 'validation.invalid' };
  if (issue.type === 'email') return { message: 'must be a valid e-mail address', rule: 'validation.email' };
  return { message: 'is not valid', rule: 'validation.invalid' };
}

/**
 * Every bad field of a refused value, once each (its first broken rule), in plain
 * English: `{ field, message, rule }`. A message that is neither a catalogue key nor
 * valibot's default ("must be a lower-case hex SHA-256") is already words and is kept.
 */
export function fieldIssues(issues: readonly v.BaseIssue<unknown>[]): FieldIssue[] {
  const out: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const known = RULE_WORDS[issue.message];
    const field = v.getDotPath(issue) ?? known?.field ?? '';
    if (seen.has(field)) continue;
    seen.add(field);
    if (known) out.push({ field, message: known.words(issue), rule: issue.message });
    else if (issue.message.startsWith('Invalid ') || issue.message.startsWith('validation.')) out.push({ field, ...defaultWords(issue) });
    else out.push({ field, message: issue.message, rule: 'validation.invalid' });
  }
  return out;
}

// ---- the record's versions (docs/decisions/record-versions.md) ---------------------------

/** A version of the oral report's record is named by the hex SHA-256 of its UTF-8 text. */
export const recordHashSchema = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256'));
/** `PUT /api/private/case/approve`: the version approved (required once a record exists). */
export const recordApprovalSchema = v.object({ sha256: v.optional(recordHashSchema) });

/**
 * A version of a sealed case's record (docs/decisions/record-versions.md "Sealed cases"):
 * `text` sealed in the handler's browser under the case's data key with additional data
 * `wb:<case id>:case_record_version.text_enc:<version>`, `sha256` computed there over the
 * plaintext, `version` the next after the latest the handler read.
 */
export const sealedRecordVersionDtoSchema = v.object({
  version: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(999_999)),
  text: base64Text(128 * 1024),
  sha256: recordHashSchema,
});
export type SealedRecordVersionDto = v.InferOutput<typeof sealedRecordVersionDtoSchema>;

/**
 * Internal notes of the case's handlers (docs/decisions/internal-notes.md). A note's text
 * on a server-keyed case (the server seals it), or its envelope on a sealed case
 * (core/crypto/note.ts `sealNote`, bound to the note's id and version, under the data key
 * of `epoch`). An edit names the version it was written over (`version`, the one read):
 * anything else is refused 409 NOTE_CHANGED.
 */
export const NOTE_TEXT_MAX = 20_000;
const noteVersion = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(999_999));
const noteEpoch = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)));
export const noteTextSchema = v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(NOTE_TEXT_MAX, 'validation.tooLong'));
export const noteDtoSchema = v.object({ text: noteTextSchema });
export const noteEditDtoSchema = v.object({ text: noteTextSchema, version: noteVersion });
export const sealedNoteDtoSchema = v.object({ id: v.pipe(v.string(), v.uuid()), body: base64Text(128 * 1024), epoch: noteEpoch });
export const sealedNoteEditDtoSchema = v.object({ body: base64Text(128 * 1024), version: noteVersion, epoch: noteEpoch });
export type SealedNoteDto = v.InferOutput<typeof sealedNoteDtoSchema>;
export type SealedNoteEditDto = v.InferOutput<typeof sealedNoteEditDtoSchema>;
/**
 * Files attached to an existing note (internal-notes.md "Files"): on a sealed case the ids
 * of finished uploads of a sealed upload session of the case (X-Upload-Session), sealed in
 * the handler's browser as a message's files are; on a server-keyed case they come as the
 * `files` parts of a multipart body beside this JSON part (`noteFilesDto`).
 */
export const noteFilesDtoSchema = v.object({ uploads: v.optional(v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.maxLength(LIMITS.maxFiles)), []), epoch: noteEpoch });
export type NoteFilesDto = v.InferOutput<typeof noteFilesDtoSchema>;

/** The reporter's comment on a sealed case's record, sealed to the id its additional data names (`…:case_comment.body_enc:<id>`). */
export const sealedCommentDtoSchema = v.object({
  id: v.pipe(v.string(), v.uuid()),
  body: base64Text(32 * 1024),
});
export type SealedCommentDto = v.InferOutput<typeof sealedCommentDtoSchema>;

// ---- the handler inbox's pages (issue 41) ----------------------------------------

/** The inbox's assignment filter (issue 38): assigned to me, shared with me, assigned to nobody. */
export const INBOX_ASSIGNED = ['ME', 'SHARED', 'UNASSIGNED'] as const;
export type InboxAssigned = (typeof INBOX_ASSIGNED)[number];

/** Rows per inbox page: the default when a client names none, and the most it may ask for. */
export const INBOX_PAGE = { default: 50, max: 200 } as const;

/**
 * GET /api/handler/cases' query: a page size, the cursor the previous page ended with
 * (opaque to clients), and the filters the server applies before paging (status,
 * channel, digits of the case number). Query values arrive as strings.
 */
export const inboxQuerySchema = v.object({
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,4}$/, 'must be a whole number'), v.transform(Number), v.minValue(1), v.maxValue(INBOX_PAGE.max))),
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,120}$/, 'must be a cursor from a previous page'))),
  status: v.optional(v.picklist(CASE_STATUSES)),
  channel: v.optional(v.picklist(SUBMISSION_TYPES)),
  search: v.optional(v.pipe(v.string(), v.maxLength(40))),
  /** 'true': closed cases left out (the workspace's default, issue 38). */
  open: v.optional(v.picklist(['true', 'false'])),
  /** Cases assigned to the caller, shared with the caller, or assigned to nobody. */
  assigned: v.optional(v.picklist(INBOX_ASSIGNED)),
});
export type InboxQuery = v.InferOutput<typeof inboxQuerySchema>;

/**
 * POST /api/handler/cases/summaries (issue 38 Build 3): the cases whose searchable parts
 * the handler's browser opens for the inbox's category and language columns and its
 * search over content. A batch, so 10,000 cases cost a hundred calls, not 10,000.
 */
export const SUMMARY_BATCH = 100;
export const caseSummariesDtoSchema = v.strictObject({
  caseNumbers: v.pipe(v.array(v.pipe(v.string(), v.regex(/^\d{16}$/, 'must be a case number of 16 digits'))), v.minLength(1), v.maxLength(SUMMARY_BATCH)),
});
export type CaseSummariesDto = v.InferOutput<typeof caseSummariesDtoSchema>;

// ---- case export (issue 38; docs/decisions/case-export.md) ------------------------

/** The parts a handler may put in a case's export; `notes` are the internal notes (docs/decisions/internal-notes.md), an explicit choice as the identity is. */
export const EXPORT_PARTS = ['report', 'identity', 'messages', 'notes', 'record', 'status', 'audit', 'files'] as const;
export type ExportPart = (typeof EXPORT_PARTS)[number];
/** Terms a handler may black out in one export. */
export const EXPORT_TERMS_MAX = 50;
/** One term or selected passage, in characters. */
export const EXPORT_TERM_MAX = 2000;
/**
 * What the browser tells the server of an export it is about to make: which parts and
 * how many terms are blacked out; never the terms or any content (the audit trail's entry).
 */
export const caseExportDtoSchema = v.strictObject({
  parts: v.pipe(v.array(v.picklist(EXPORT_PARTS, `must be among ${EXPORT_PARTS.join(', ')}`)), v.minLength(1, 'validation.required'), v.maxLength(EXPORT_PARTS.length), v.check((p) => new Set(p).size === p.length, 'validation.duplicate')),
  redactedTerms: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(EXPORT_TERMS_MAX)),
});
export type CaseExportDto = v.InferOutput<typeof caseExportDtoSchema>;

// ---- reports a handler enters (issue 38 Build 8; docs/decisions/handler-entered-reports.md) ----

/** How a report a handler enters reached the company. */
export const ENTRY_CHANNELS = ['LETTER', 'EMAIL', 'IN_PERSON'] as const;
export type EntryChannel = (typeof ENTRY_CHANNELS)[number];
/** How far back a received date may lie: a report found after more than a year is a finding of its own, not a case to start clocks for. */
export const ENTRY_RECEIVED_MAX_DAYS = 366;
/** Hours the date line runs ahead of UTC at most (UTC+14): a date that has begun somewhere on earth is not in the future. */
const DATE_LINE_AHEAD_MS = 14 * 3600 * 1000;

/**
 * The instant the legal clocks of an entered report start at: the received day's start
 * (UTC), never later than `now`. Why the day's start: a handler knows the day a letter
 * came, not its hour, and the earlier reading never gives the company more time than
 * the Directive does.
 */
export function receivedInstant(day: string, now: Date = new Date()): Date {
  const start = new Date(`${day}T00:00:00.000Z`);
  return start.getTime() > now.getTime() ? now : start;
}

/** Why a received day is refused, or null: `entry.receivedFuture`, `entry.receivedTooOld` (catalogue area `entry`), `validation.invalid`. */
export function receivedDayIssue(day: string, now: Date = new Date()): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return 'validation.invalid';
  const start = new Date(`${day}T00:00:00.000Z`);
  if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== day) return 'validation.invalid';
  if (start.getTime() > now.getTime() + DATE_LINE_AHEAD_MS) return 'entry.receivedFuture';
  if (start.getTime() < now.getTime() - ENTRY_RECEIVED_MAX_DAYS * CLOCK_DAY_MS) return 'entry.receivedTooOld';
  return null;
}

export const receivedDaySchema = v.pipe(
  v.string(),
  v.nonEmpty('validation.required'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const issue = receivedDayIssue(dataset.value);
    if (issue) addIssue({ message: issue });
  }),
);

/** The report's content as the handler types it from the letter, mail or conversation: the online form's fields and rules. */
const enteredContent = {
  channel: v.picklist(ENTRY_CHANNELS),
  receivedOn: receivedDaySchema,
  whistleblowerRelation: requiredText(),
  subsidiary: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
  protectionOfficer: idRef,
  /** The identity as the reporter gave it (optional; a letter has a name and no e-mail address as often as not). No notification: mails need the reporter's own address sealed in her browser. */
  whistleblower: v.optional(v.nullable(v.object({ ...whistleblowerUpdateSchema.entries, notification: v.optional(v.literal(false), false) })), null),
  description: descriptionSchema,
  violation: v.optional(v.picklist(VIOLATIONS), 'DONT_KNOW'),
  repeatedViolations: v.boolean(),
  reportedPersons: v.optional(v.pipe(v.array(reportedPersonSchema), v.maxLength(LIMITS.personsMax)), []),
  reportedUnit: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(LIMITS.freeTextMax)))),
};

/** What the workspace's entry form checks before it seals or sends (machines/handler/caseEntry.ts). */
export const enteredReportSchema = v.pipe(
  v.object({ ...enteredContent, follow: v.boolean() }),
  v.check((c) => c.reportedPersons.length > 0 || !!c.reportedUnit, 'validation.reportRelated'),
);
export type EnteredReport = v.InferOutput<typeof enteredReportSchema>;

/**
 * An entered report at a server-keyed company (`POST /api/handler/case-entry`): the
 * content in clear as on the spec's plain routes, and the password the handler's browser
 * generated when the reporter follows the case (the server derives the verifier from it
 * and keeps only its hash, as for a scripted client's plain password).
 */
export const enteredCaseDtoSchema = v.pipe(
  v.object({ ...enteredContent, caseAccount: v.variant('follow', [plainAccountSchema, v.object({ follow: v.literal(false) })]) }),
  v.check((c) => c.reportedPersons.length > 0 || !!c.reportedUnit, 'validation.reportRelated'),
);
export type EnteredCaseDto = v.InferOutput<typeof enteredCaseDtoSchema>;

/**
 * An entered report sealed in the handler's browser (`POST /api/handler/case-entry/sealed`):
 * as the reporter's browser seals a case (`sealedCaseDtoSchema`), with the channel and the
 * received day in clear beside it (the clocks are the server's to read); no files, no
 * notification address, no statistics categories.
 */
export const sealedEnteredCaseDtoSchema = v.object({
  caseId: v.pipe(v.string(), v.uuid()),
  channel: v.picklist(ENTRY_CHANNELS),
  receivedOn: receivedDaySchema,
  protectionOfficer: idRef,
  subsidiary: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(100)))),
  caseAccount: v.variant('follow', [derivedAccountSchema, v.object({ follow: v.literal(false) })]),
  envelopes: v.object({
    details: base64Text(4 * 1024 * 1024),
    whistleblower: v.optional(v.nullable(base64Text(64 * 1024)), null),
  }),
  wraps: v.pipe(v.array(keyWrapSchema), v.minLength(1), v.maxLength(200)),
});
export type SealedEnteredCaseDto = v.InferOutput<typeof sealedEnteredCaseDtoSchema>;
// ---- reply templates (issue 38 Build 7; docs/decisions/reply-templates.md) ----------

/** Templates one company may keep, and the length of a template's name and of each language's text. */
export const REPLY_TEMPLATE_LIMITS = { perCompany: 50, nameMax: 80, textMax: LIMITS.commentMax } as const;

const templateText = v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(REPLY_TEMPLATE_LIMITS.textMax, 'validation.tooLong'));

/**
 * A reply template as an administrator saves it: a name and one text for each of the
 * company's languages, no more and no fewer (a handler inserts the reporter's language,
 * so a missing one would leave a reporter without it). The SPA's form and the server
 * apply this same schema, built for the company's languages.
 */
export function replyTemplateSchema(languages: readonly Language[]) {
  return v.strictObject({
    name: v.pipe(v.string(), v.trim(), v.nonEmpty('validation.required'), v.maxLength(REPLY_TEMPLATE_LIMITS.nameMax, 'validation.tooLong')),
    texts: v.strictObject(Object.fromEntries(languages.map((l) => [l, templateText])) as Record<Language, typeof templateText>),
  });
}
export interface ReplyTemplateDraft {
  name: string;
  texts: Partial<Record<Language, string>>;
}

/** A template as the server answers it (the administrators' list and the handlers' read). */
export interface ReplyTemplate extends ReplyTemplateDraft {
  id: string;
  updatedAt: string;
}

/** The problems of a draft, per field (`name`, `texts.pl`), each a `validation.*` rule; empty when it may be saved. */
export function replyTemplateIssues(draft: ReplyTemplateDraft, languages: readonly Language[]): { field: string; rule: string }[] {
  const r = v.safeParse(replyTemplateSchema(languages), draft);
  return r.success ? [] : fieldIssues(r.issues).map((i) => ({ field: i.field, rule: i.rule }));
}

/** The language a template is inserted in: the reporter's when the company offers it, else the company's default. */
export function templateLanguage(reporterLanguage: string | null | undefined, languages: readonly Language[], defaultLanguage: Language): Language {
  return reporterLanguage && (languages as readonly string[]).includes(reporterLanguage) ? (reporterLanguage as Language) : defaultLanguage;
}
