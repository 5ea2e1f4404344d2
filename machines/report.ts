/**
 * The three report channels (spec §2, §4, §5): online form, oral report and book
 * meeting, as one statechart factory configured per channel
 * (docs/decisions/report-machines.md).
 *
 * Shape: `loadingCompany` (company info: officers and subsidiaries; passed at once
 * when the input holds it, guard `hasCompanyInfo`), then `editing`,
 * whose `steps` is a parallel state with one region per step. Every dialog is a
 * state of its own beside `steps` (`editing.confirmingDiscard.*`) or beside
 * `editing` (validation, sending, success, failure), so only one is ever open and
 * the form is frozen while it is. The draft lives in context and survives them
 * all, so a failed send never loses a word of the report.
 *
 * Invariants:
 * - The draft lives in context; each step's validity is derived from it with the
 *   shared valibot rules (`stepValidity`), never stored.
 * - Every change that would drop typed data goes through `editing.confirmingDiscard`
 *   (one substate per step that can drop data); `discard.cancel` leaves the earlier
 *   choice untouched.
 * - While notification is on, follow is forced and not-follow is refused.
 * - `report.submit` is accepted only when the terms are accepted and, if following,
 *   the password is typed and equals its confirmation; with any required step
 *   invalid it opens the validation dialog and names the first invalid step.
 * - Effects (the submit request, copying, navigation) are named here and supplied
 *   with `.provide()`; the machine never touches the network, the DOM or storage.
 * - Every submission carries a solved proof-of-work (docs/api.md). `solveProofOfWork`
 *   runs while the reporter is in `editing`, so the proof is usually ready before Send;
 *   `sending` waits for one only when it is not (`provingWork`). A proof is spent by
 *   one attempt, whatever its outcome.
 * - A refusal for too many submissions (`rateLimited`) keeps the draft, like a failure.
 * - A request that never reached the server (`failed.offline`) is told apart from a
 *   refusal: the form is complete, only the connection is missing.
 * - A followed case never sends its password (issue 37): `sending.reserving` asks for
 *   a case number and salt (spending the proof), `sending.deriving` derives the
 *   verifier in the browser, and the case goes with the verifier, the reservation
 *   and the derivation. Both are forgotten when `sending` ends: a new attempt
 *   reserves again.
 * - Sealing (issue 37, every channel): before the case leaves, `sending.checkingKeys`
 *   reads the company's key log and verifies it in the browser. A company that takes
 *   no sealed cases gets the plain send as before; one that does gets
 *   `sending.sealing` (the data key made here, the draft sealed and wrapped to the
 *   verified keys, with the reporter key of a followed case, and a notification
 *   address sealed to the log's mail key). Files go first, in `sending.uploading`
 *   (online form): sealed chunk by chunk under that data key and uploaded as
 *   ciphertext, resumable; the sealed case then names the uploads. A log that does
 *   not verify never gets the report: `keysRefused` names why and keeps the draft. A
 *   key certified (or a mail key rotated) between the read and the send (the server's
 *   WRAP_MISSING or MAIL_KEY_CHANGED) makes one more read and seal, never more; the
 *   files uploaded stay uploaded.
 */
import { and, assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import * as v from 'valibot';
import {
  descriptionSchema,
  keepAllowedFiles,
  LIMITS,
  optionalDescriptionSchema,
  type RejectedFile,
  passwordSchema,
  reportedPersonSchema,
  requiredText,
  whistleblowerSchema,
  VIOLATIONS,
  type CaseDto,
  type DerivedAccount,
  type FileSample,
  type OralSubmissionDto,
  type ReportedPerson,
  type Violation,
} from './schema.ts';

// ---- types -------------------------------------------------------------------------

export type ReportChannel = 'online' | 'oral' | 'meeting';

export interface ProtectionOfficer {
  id: string;
  name: string;
  jobTitle?: string | null;
  company?: string | null;
  phone?: string | null;
  customerRelation?: string | null;
  logoUrl?: string | null;
}
export interface Subsidiary {
  id: string;
  name: string;
}
export interface CompanyInfo {
  protectionOfficers: ProtectionOfficer[];
  subsidiaries: Subsidiary[];
}

/** A file as the browser gives it (a `File` satisfies this). */
export interface ReportFile {
  name: string;
  size: number;
  type: string;
}

export type StepName =
  | 'subsidiary'
  | 'protectionOfficer'
  | 'relation'
  | 'describeProblem'
  | 'reportRelated'
  | 'documents'
  | 'identity'
  | 'followReport';

export type Concerns = 'persons' | 'company';
export type IdentityChoice = 'reveal' | 'anonymous';

export interface PersonInput {
  name: string;
  jobTitle: string;
  phoneOrEmail: string;
}
export interface WhistleblowerInput {
  name: string;
  email: string;
  phone: string;
  phoneCountryCode: string;
  /**
   * Spec §5: the phone's validity comes from the phone input (the digits its country's
   * format expects); a number the input finds impossible keeps the identity invalid.
   */
  phoneValid: boolean;
  notification: boolean;
}

export interface ReportDraft {
  subsidiary: string | null;
  protectionOfficer: string | null;
  whistleblowerRelation: string;
  description: string;
  violation: Violation;
  repeatedViolations: boolean | null;
  concerns: Concerns | null;
  reportedPersons: ReportedPerson[];
  personInput: PersonInput;
  reportedUnit: string;
  files: ReportFile[];
  /**
   * The voice message recorded in the description step (issue 40), when one is
   * attached: it is also one of `files` (the same object), so it is sent, counted and
   * refused like any file; while it is among them the description text is optional.
   */
  voice: ReportFile | null;
  identity: IdentityChoice | null;
  whistleblower: WhistleblowerInput;
  follow: boolean | null;
  password: string;
  passwordConfirmation: string;
  termsAccepted: boolean;
}

/** A solved proof-of-work challenge (core/pow.ts): opaque to the machine, sent with the report. */
export interface SubmissionProof {
  challenge: string;
  nonce: string;
  expiresAt: string;
}

/** The submit actor's answer when the server refused for too many submissions (429). */
export interface RateLimited {
  rateLimited: { retryAfterSeconds: number };
}

/** The submit actor's answer when the request never reached the server (offline, connection lost): the draft is complete and kept. */
export interface NetworkFailure {
  networkFailure: true;
}

/** What the submit actor resolves with: the new case, a rate-limit refusal, one refused file, a network failure, or null for any other failure. */
export type SubmitOutcome = SuccessData | RateLimited | RefusedFile | NetworkFailure | null;

/** What the server answered for a new case (spec §3 "Success data"). */
export interface SuccessData {
  caseDto: { caseNumber: string; status?: string; created?: string; submission?: { type: string } };
}

/** The server refused one file for its content: which one (its place in the draft's files). */
export interface RefusedFile {
  refusedFile: { index: number; name: string };
}

/** The same answer under the name the file-refusal work gave it. */
export type SubmitResult = SubmitOutcome;

export interface UploadProgress {
  loaded: number;
  total: number;
  /** Speed of the last seconds and the time left at it; null (or absent) while unknown. */
  bytesPerSecond?: number | null;
  secondsLeft?: number | null;
  /** The connection was lost; the upload effect is retrying and will continue where it stopped. */
  retrying?: boolean;
}

export interface ReportContext {
  channel: ReportChannel;
  company: CompanyInfo;
  draft: ReportDraft;
  /** Files dropped by the last `files.add` (not allowed, or beyond five): for a notice. */
  droppedFiles: number;
  /** The same files, each with its reason (too many, type not allowed, too large): the notice names each. */
  rejectedFiles: RejectedFile[];
  /** Names of the files whose content did not fit their type: refused at once, by name. */
  refusedFiles: string[];
  /** A typed person was offered to "Add person" with fields still missing: name them. */
  personIncomplete: boolean;
  /** Per file, while sending. */
  progress: UploadProgress[];
  firstInvalidStep: StepName | null;
  /**
   * How many times Send found the form incomplete. A field shows its error once it
   * was left, or after a Send that came while it was shown: a field revealed later
   * (identity given, a person to add, following chosen) stays quiet until then.
   */
  sendAttempts: number;
  response: SuccessData | null;
  /** A proof-of-work solved in the background, spent by the next submission. */
  proof: SubmissionProof | null;
  /** Seconds the server asked to wait after a rate-limit refusal. */
  retryAfterSeconds: number | null;
  /** While sending a followed case: the reserved number and salt, then what was derived for it. */
  reservation: CaseReservation | null;
  derived: DerivedSecret | null;
  /** The keys the key log verified in this browser, for `sending.sealing` (opaque here: core/crypto's Recipients). */
  recipients: unknown;
  /** Why the browser would not seal to the company's keys (`keysRefused`). */
  keyRefusal: KeyRefusal | null;
  /** The log was read again after the server's WRAP_MISSING: once per send. */
  resealed: boolean;
  /** The files sealed and uploaded for this send (opaque here: the case id, data key, session and upload ids the sealed case names). */
  sealedUploads: unknown;
}

export type Submission =
  | { channel: 'online'; dto: CaseDto; files: ReportFile[] }
  | { channel: 'oral' | 'meeting'; dto: OralSubmissionDto; files: [] };

export interface UploadProgressEvent {
  type: 'upload.progress';
  index: number;
  loaded: number;
  total: number;
  /** Measured by the upload effect (src/uploads/rate.ts). */
  bytesPerSecond?: number | null;
  secondsLeft?: number | null;
  retrying?: boolean;
}

/** A case number and salt reserved before the case is sent (issue 37; POST /api/public/case/reservation). */
export interface CaseReservation {
  reservation: string;
  caseNumber: string;
  salt: string;
}
export type ReserveOutcome = CaseReservation | { rateLimited: { retryAfterSeconds: number } } | NetworkFailure | null;
/** What the browser derived for the reserved number: the verifier (base64url) and the derivation used. */
export interface DerivedSecret {
  verifier: string;
  kdf: DerivedAccount['kdf'];
  /** The reporter key (a non-extractable CryptoKey in the browser) that wraps a sealed case's data key; opaque here. */
  reporterKey?: unknown;
}

/**
 * Why the browser refuses to seal (core/crypto/case.ts `recipientsFor`): a signature
 * that does not verify (a swapped key), another trust anchor than the one this browser
 * saw, a log that does not extend the head it saw (`fork`), no certified key for the
 * chosen officer, or a log broken in another way (`invalid`).
 */
export const KEY_REFUSALS = ['signature', 'anchor', 'fork', 'no-keys', 'invalid'] as const;
export type KeyRefusal = (typeof KEY_REFUSALS)[number];

/** The key-log check's answer: the plain path (no sealed cases here), the verified keys, a refusal, no answer, or null. */
export type KeyCheckOutcome = { plain: true } | { recipients: unknown } | { refused: KeyRefusal } | NetworkFailure | null;

/** Input of the `checkKeyLog` actor. */
export interface CheckKeyLogInput {
  officerId: string;
}

/** Input of the `sealReport` actor: the report as it would go plain, the verified keys, the reporter key. */
export interface SealReportInput {
  submission: Submission;
  recipients: unknown;
  /** The reporter key of a followed case; null when nobody follows it. */
  reporterKey: unknown;
  proof: SubmissionProof | null;
  /** A second send after WRAP_MISSING: the reservation paid once already, so a proof pays this one. */
  resealed: boolean;
  /** The files `sending.uploading` sealed and uploaded (null: none); the case is sealed under their data key and names them. */
  uploads: unknown;
}

/** Input of the `uploadSealedFiles` actor: the draft's files, the verified keys, the proof for the upload session, where progress goes. */
export interface UploadSealedInput {
  files: ReportFile[];
  recipients: unknown;
  /** Spent by the upload session when given; a followed case (its proof went with the reservation) solves one. */
  proof: SubmissionProof | null;
  reportProgress: (e: UploadProgressEvent) => void;
}

/** What sealing and uploading the files gave: the uploads for the sealed case, a refused file, a rate limit, no connection, or null. */
export type SealedUploadOutcome = { sealedUploads: unknown } | RefusedFile | RateLimited | NetworkFailure | null;

/** The sealed send's answer: as the plain send's, or the server's WRAP_MISSING or MAIL_KEY_CHANGED (keys changed since the log was read: `wrapMissing`). */
export type SealOutcome = SubmitOutcome | { wrapMissing: true };

/** Input of the `submitReport` actor: the request, and where to report upload progress. */
export interface SubmitReportInput {
  submission: Submission;
  /** The solved challenge for the `X-Proof-Of-Work` header. */
  proof: SubmissionProof | null;
  reportProgress: (e: UploadProgressEvent) => void;
}

export type ReportEvent =
  | { type: 'subsidiary.select'; id: string | null }
  | { type: 'officer.select'; id: string }
  | { type: 'relation.change'; value: string }
  | { type: 'description.change'; value: string }
  | { type: 'violation.select'; value: Violation }
  | { type: 'repeated.choose'; value: boolean }
  | { type: 'concerns.choose'; value: Concerns }
  | { type: 'person.change'; field: keyof PersonInput; value: string }
  | { type: 'person.add' }
  | { type: 'person.remove'; index: number }
  | { type: 'unit.change'; value: string }
  | { type: 'files.add'; files: ReportFile[]; samples?: (FileSample | undefined)[] }
  | { type: 'file.remove'; index: number }
  | { type: 'voice.attach'; file: ReportFile }
  | { type: 'voice.remove' }
  | { type: 'identity.choose'; value: IdentityChoice }
  | { type: 'identity.change'; field: 'name' | 'email'; value: string }
  | { type: 'phone.change'; phone: string; countryCode: string; isValid: boolean }
  | { type: 'notification.toggle'; value: boolean }
  | { type: 'follow.choose'; value: boolean }
  | { type: 'password.change'; value: string }
  | { type: 'passwordConfirmation.change'; value: string }
  | { type: 'terms.toggle'; value: boolean }
  | { type: 'discard.confirm' }
  | { type: 'discard.cancel' }
  | { type: 'report.submit' }
  | UploadProgressEvent
  | { type: 'dialog.close' }
  /** The success dialog's close confirmation: "Have you saved your case number?" */
  | { type: 'close.confirm' }
  | { type: 'close.cancel' }
  | { type: 'caseNumber.copy' }
  | { type: 'login.start' }
  | { type: 'form.reset' };

// ---- steps and validity ------------------------------------------------------------

/** The steps a channel shows, in order (spec §2). Subsidiary only with subsidiaries. */
export function reportSteps(channel: ReportChannel, hasSubsidiaries: boolean): StepName[] {
  const steps: StepName[] =
    channel === 'online'
      ? ['protectionOfficer', 'relation', 'describeProblem', 'reportRelated', 'documents', 'identity', 'followReport']
      : ['protectionOfficer', 'relation', 'identity', 'followReport'];
  return hasSubsidiaries ? ['subsidiary', ...steps] : steps;
}

/** Steps whose validity decides whether the report may be sent (spec §4). */
export function requiredSteps(channel: ReportChannel): StepName[] {
  return channel === 'online'
    ? ['subsidiary', 'protectionOfficer', 'relation', 'describeProblem', 'reportRelated', 'identity', 'followReport']
    : ['subsidiary', 'protectionOfficer', 'relation', 'identity', 'followReport'];
}

function isPersonInputEmpty(p: PersonInput): boolean {
  return !p.name.trim() && !p.jobTitle.trim() && !p.phoneOrEmail.trim();
}

/** The identity as it goes on the wire, or null while it is not a valid one. */
export function whistleblowerPayload(w: WhistleblowerInput) {
  if (w.phone && !w.phoneValid) return null;
  const result = v.safeParse(whistleblowerSchema, {
    name: w.name,
    email: w.email,
    phone: w.phone || null,
    phoneCountryCode: w.phone ? w.phoneCountryCode || null : null,
    notification: w.notification,
  });
  return result.success ? result.output : null;
}

/** Is a recorded voice message among the files to send? */
export function hasVoiceMessage(d: Pick<ReportDraft, 'voice' | 'files'>): boolean {
  return d.voice !== null && d.files.includes(d.voice);
}

export function stepValidity(context: Pick<ReportContext, 'company' | 'draft'>): Record<StepName, boolean> {
  const d = context.draft;
  return {
    subsidiary: true,
    protectionOfficer:
      d.protectionOfficer !== null && context.company.protectionOfficers.some((o) => o.id === d.protectionOfficer),
    relation: v.is(requiredText(), d.whistleblowerRelation),
    describeProblem: v.is(hasVoiceMessage(d) ? optionalDescriptionSchema : descriptionSchema, d.description) && d.repeatedViolations !== null,
    reportRelated:
      d.concerns === 'persons'
        ? d.reportedPersons.length > 0 || v.is(reportedPersonSchema, d.personInput)
        : d.concerns === 'company'
          ? d.reportedUnit.trim() !== ''
          : false,
    documents: true,
    identity: d.identity === 'anonymous' || (d.identity === 'reveal' && whistleblowerPayload(d.whistleblower) !== null),
    followReport:
      d.termsAccepted &&
      (d.follow === false ||
        (d.follow === true && v.is(passwordSchema, d.password) && d.password === d.passwordConfirmation)),
  };
}

export function firstInvalidStep(context: Pick<ReportContext, 'channel' | 'company' | 'draft'>): StepName | null {
  const validity = stepValidity(context);
  return requiredSteps(context.channel).find((s) => !validity[s]) ?? null;
}

/** Spec §4: Send is enabled only when terms are accepted and, if following, the password is typed and confirmed. */
export function isSendEnabled(d: ReportDraft): boolean {
  return d.termsAccepted && (d.follow !== true || (d.password !== '' && d.password === d.passwordConfirmation));
}

/** The request for the server, built from a draft whose steps are valid. */
export function buildSubmission(context: Pick<ReportContext, 'channel' | 'draft'> & Partial<Pick<ReportContext, 'reservation' | 'derived'>>): Submission {
  const d = context.draft;
  // The SPA sends the verifier; the plain password only where nothing was derived (a test's own call).
  const followed =
    context.reservation && context.derived
      ? ({ follow: true, reservation: context.reservation.reservation, verifier: context.derived.verifier, kdf: context.derived.kdf } as const)
      : ({ follow: true, password: d.password } as const);
  const common = {
    whistleblowerRelation: d.whistleblowerRelation.trim(),
    subsidiary: d.subsidiary,
    protectionOfficer: { id: d.protectionOfficer ?? '' },
    whistleblower: d.identity === 'reveal' ? whistleblowerPayload(d.whistleblower) : null,
  };
  if (context.channel !== 'online') {
    return {
      channel: context.channel,
      dto: { ...common, creationChannel: 'BY_PHONE', caseAccount: followed },
      files: [],
    };
  }
  const typed = v.safeParse(reportedPersonSchema, d.personInput);
  const persons = d.concerns === 'persons' ? [...d.reportedPersons, ...(typed.success ? [typed.output] : [])] : [];
  return {
    channel: 'online',
    dto: {
      ...common,
      creationChannel: 'BY_ONLINE_FORM',
      description: d.description.trim(),
      voiceMessage: hasVoiceMessage(d),
      violation: d.violation,
      repeatedViolations: d.repeatedViolations === true,
      caseAccount: d.follow ? followed : { follow: false, password: null },
      reportedPersons: persons,
      reportedUnit: d.concerns === 'company' ? d.reportedUnit.trim() : null,
      // Filled by the submit effect with the resumable uploads of `files`.
      uploads: [],
    },
    files: [...d.files],
  };
}

export function isSuccessData(x: SubmitResult): x is SuccessData {
  return x !== null && 'caseDto' in x;
}
export function isRefusedFile(x: SubmitResult): x is RefusedFile {
  return x !== null && 'refusedFile' in x;
}
export function isNetworkFailure(x: SubmitResult): x is NetworkFailure {
  return x !== null && 'networkFailure' in x;
}

// ---- context -------------------------------------------------------------------------

const emptyPerson = (): PersonInput => ({ name: '', jobTitle: '', phoneOrEmail: '' });
const emptyWhistleblower = (): WhistleblowerInput => ({
  name: '',
  email: '',
  phone: '',
  phoneCountryCode: '',
  phoneValid: true,
  notification: false,
});

export function emptyDraft(channel: ReportChannel, company: CompanyInfo): ReportDraft {
  const officers = company.protectionOfficers;
  return {
    subsidiary: null,
    // Spec §4: a single protection officer is selected for the reporter.
    protectionOfficer: officers.length === 1 ? officers[0]!.id : null,
    whistleblowerRelation: '',
    description: '',
    violation: 'DONT_KNOW',
    repeatedViolations: null,
    concerns: null,
    reportedPersons: [],
    personInput: emptyPerson(),
    reportedUnit: '',
    files: [],
    voice: null,
    identity: null,
    whistleblower: emptyWhistleblower(),
    // Oral report and meeting: follow is fixed on (spec §2).
    follow: channel === 'online' ? null : true,
    password: '',
    passwordConfirmation: '',
    termsAccepted: false,
  };
}

const noCompany: CompanyInfo = { protectionOfficers: [], subsidiaries: [] };

/**
 * What the page already knows when the form opens: the company info, when the
 * look-and-feel actor has it (it came in the page's head). Without it the chart loads it.
 */
export interface ReportInput {
  company?: CompanyInfo | null;
}

type Ev<T extends ReportEvent['type']> = Extract<ReportEvent, { type: T }>;

// ---- machine -----------------------------------------------------------------------

const reportSetup = setup({
  types: {
    context: {} as ReportContext,
    events: {} as ReportEvent,
    input: {} as ReportInput | undefined,
  },
  actors: {
    /** Loads company info (officers, subsidiaries); rejects on any failure. */
    loadCompanyInfo: fromPromise<CompanyInfo>(async () => {
      throw new Error('loadCompanyInfo not provided');
    }),
    /** Sends the report; resolves with the server's answer, a rate-limit refusal, the file it refused, or null when it failed. */
    submitReport: fromPromise<SubmitOutcome, SubmitReportInput>(async () => null),
    /**
     * Fetches a proof-of-work challenge and solves it (in a Web Worker in the browser);
     * given a proof still fresh enough, may resolve with it at once.
     */
    solveProofOfWork: fromPromise<SubmissionProof, { proof: SubmissionProof | null }>(async () => {
      throw new Error('solveProofOfWork not provided');
    }),
    /** Reserves a case number and salt, spending the proof; resolves with the reservation, a rate-limit refusal, a network failure, or null. */
    reserveCase: fromPromise<ReserveOutcome, { proof: SubmissionProof | null }>(async () => null),
    /** Derives the verifier from case number, password and salt (core/crypto, in the browser); rejects when it cannot. */
    deriveReporterKeys: fromPromise<DerivedSecret, { caseNumber: string; password: string; salt: string }>(async () => {
      throw new Error('deriveReporterKeys not provided');
    }),
    /** Reads the company's key log and verifies it in the browser against what it saw before (core/crypto/case.ts recipientsFor); unprovided, the plain path as before. */
    checkKeyLog: fromPromise<KeyCheckOutcome, CheckKeyLogInput>(async () => ({ plain: true })),
    /** Seals the report to the verified keys in the browser and sends only what was sealed. */
    sealReport: fromPromise<SealOutcome, SealReportInput>(async () => null),
    /** Seals each file chunk by chunk under the case's data key (made here, or kept from a failed send) and uploads the ciphertext (tus). */
    uploadSealedFiles: fromPromise<SealedUploadOutcome, UploadSealedInput>(async () => null),
  },
  delays: {
    /** Spec §9: the "copied" hint shows for 2 seconds. */
    copiedHint: 2000,
  },
  actions: {
    /** Copies the case number to the clipboard (supplied by the view). */
    copyCaseNumber: (_, _params: { caseNumber: string }) => {},
    /** Leaves the form for the front page (supplied by the view). */
    goToFrontPage: () => {},
    /**
     * Starts sign-in at /private/status (supplied by the view), with the case number
     * just shown: the view hands it to the sign-in page (docs/decisions/signin-handover.md).
     */
    goToLogin: (_, _params: { caseNumber: string }) => {},
    /** Company info could not be loaded: spec §8 sends the reporter to /something-went-wrong. */
    goToErrorPage: () => {},
    assignCompany: assign({
      company: (_, params: { company: CompanyInfo }) => params.company,
      draft: ({ context }, params: { company: CompanyInfo }) => emptyDraft(context.channel, params.company),
    }),
    resetDraft: assign(({ context }) => ({
      draft: emptyDraft(context.channel, context.company),
      droppedFiles: 0,
      rejectedFiles: [],
      refusedFiles: [],
      personIncomplete: false,
      progress: [],
      firstInvalidStep: null,
      sendAttempts: 0,
      response: null,
      retryAfterSeconds: null,
    })),
    assignSubsidiary: assign({
      draft: ({ context, event }) => ({ ...context.draft, subsidiary: (event as Ev<'subsidiary.select'>).id }),
    }),
    assignOfficer: assign({
      draft: ({ context, event }) => ({ ...context.draft, protectionOfficer: (event as Ev<'officer.select'>).id }),
    }),
    assignRelation: assign({
      draft: ({ context, event }) => ({
        ...context.draft,
        whistleblowerRelation: (event as Ev<'relation.change'>).value,
      }),
    }),
    assignDescription: assign({
      draft: ({ context, event }) => ({ ...context.draft, description: (event as Ev<'description.change'>).value }),
    }),
    assignViolation: assign({
      draft: ({ context, event }) => ({ ...context.draft, violation: (event as Ev<'violation.select'>).value }),
    }),
    assignRepeated: assign({
      draft: ({ context, event }) => ({
        ...context.draft,
        repeatedViolations: (event as Ev<'repeated.choose'>).value,
      }),
    }),
    assignConcerns: assign({
      draft: ({ context, event }) => ({ ...context.draft, concerns: (event as Ev<'concerns.choose'>).value }),
    }),
    /** Confirmed switch: drop the other choice's data and take the new one. */
    switchConcernsDiscarding: assign({
      draft: ({ context }) => ({
        ...context.draft,
        concerns: context.draft.concerns === 'persons' ? ('company' as const) : ('persons' as const),
        reportedPersons: [],
        personInput: emptyPerson(),
        reportedUnit: '',
      }),
      personIncomplete: false,
    }),
    assignPersonField: assign({
      draft: ({ context, event }) => {
        const e = event as Ev<'person.change'>;
        return { ...context.draft, personInput: { ...context.draft.personInput, [e.field]: e.value } };
      },
    }),
    addPerson: assign({
      draft: ({ context }) => {
        const p = context.draft.personInput;
        const person = { name: p.name.trim(), jobTitle: p.jobTitle.trim(), phoneOrEmail: p.phoneOrEmail.trim() };
        return { ...context.draft, reportedPersons: [...context.draft.reportedPersons, person], personInput: emptyPerson() };
      },
      personIncomplete: false,
    }),
    /** "Add person" with a name but fields missing: the view names what is still needed. */
    markPersonIncomplete: assign({ personIncomplete: true }),
    removePerson: assign({
      draft: ({ context, event }) => ({
        ...context.draft,
        reportedPersons: context.draft.reportedPersons.filter((_, i) => i !== (event as Ev<'person.remove'>).index),
      }),
    }),
    assignUnit: assign({
      draft: ({ context, event }) => ({ ...context.draft, reportedUnit: (event as Ev<'unit.change'>).value }),
    }),
    addFiles: assign(({ context, event }) => {
      const e = event as Ev<'files.add'>;
      const kept = keepAllowedFiles(context.draft.files, e.files, e.samples);
      return { draft: { ...context.draft, files: kept.files }, droppedFiles: kept.dropped, rejectedFiles: kept.rejected, refusedFiles: kept.refused };
    }),
    /** A new recording replaces the one attached before; without room among the five files it is not added. */
    attachVoice: assign(({ context, event }) => {
      const file = (event as Ev<'voice.attach'>).file;
      const others = context.draft.files.filter((f) => f !== context.draft.voice);
      if (others.length >= LIMITS.maxFiles) return {};
      return { draft: { ...context.draft, files: [...others, file], voice: file } };
    }),
    removeVoice: assign(({ context }) => ({
      draft: { ...context.draft, files: context.draft.files.filter((f) => f !== context.draft.voice), voice: null },
    })),
    removeFile: assign(({ context, event }) => ({
      draft: { ...context.draft, files: context.draft.files.filter((_, i) => i !== (event as Ev<'file.remove'>).index) },
      droppedFiles: 0,
      rejectedFiles: [],
      refusedFiles: [],
    })),
    /** The server refused one file: it leaves the draft, everything else stays, and the dialog names it. */
    removeRefusedFile: assign(({ context }, params: { refused: RefusedFile['refusedFile'] }) => ({
      draft: { ...context.draft, files: context.draft.files.filter((_, i) => i !== params.refused.index) },
      refusedFiles: [params.refused.name],
      droppedFiles: 0,
      rejectedFiles: [],
    })),
    assignIdentityChoice: assign({
      draft: ({ context, event }) => ({ ...context.draft, identity: (event as Ev<'identity.choose'>).value }),
    }),
    becomeAnonymousDiscarding: assign({
      draft: ({ context }) => ({ ...context.draft, identity: 'anonymous' as const, whistleblower: emptyWhistleblower() }),
    }),
    assignIdentityField: assign({
      draft: ({ context, event }) => {
        const e = event as Ev<'identity.change'>;
        return { ...context.draft, whistleblower: { ...context.draft.whistleblower, [e.field]: e.value } };
      },
    }),
    assignPhone: assign({
      draft: ({ context, event }) => {
        const e = event as Ev<'phone.change'>;
        return {
          ...context.draft,
          whistleblower: { ...context.draft.whistleblower, phone: e.phone, phoneCountryCode: e.countryCode, phoneValid: e.isValid },
        };
      },
    }),
    /** Notification on forces follow on (spec §4). */
    assignNotification: assign({
      draft: ({ context, event }) => {
        const on = (event as Ev<'notification.toggle'>).value;
        return {
          ...context.draft,
          whistleblower: { ...context.draft.whistleblower, notification: on },
          follow: on ? true : context.draft.follow,
        };
      },
    }),
    assignFollow: assign({
      draft: ({ context, event }) => ({ ...context.draft, follow: (event as Ev<'follow.choose'>).value }),
    }),
    stopFollowingDiscarding: assign({
      draft: ({ context }) => ({ ...context.draft, follow: false, password: '', passwordConfirmation: '' }),
    }),
    assignPassword: assign({
      draft: ({ context, event }) => ({ ...context.draft, password: (event as Ev<'password.change'>).value }),
    }),
    assignPasswordConfirmation: assign({
      draft: ({ context, event }) => ({
        ...context.draft,
        passwordConfirmation: (event as Ev<'passwordConfirmation.change'>).value,
      }),
    }),
    assignTerms: assign({
      draft: ({ context, event }) => ({ ...context.draft, termsAccepted: (event as Ev<'terms.toggle'>).value }),
    }),
    assignFirstInvalidStep: assign({
      firstInvalidStep: ({ context }) => firstInvalidStep(context),
      sendAttempts: ({ context }) => context.sendAttempts + 1,
    }),
    clearFirstInvalidStep: assign({ firstInvalidStep: null }),
    startProgress: assign({
      progress: ({ context }) => context.draft.files.map((f) => ({ loaded: 0, total: f.size })),
    }),
    assignProgress: assign({
      progress: ({ context, event }) => {
        const e = event as UploadProgressEvent;
        return context.progress.map((p, i) =>
          i === e.index
            ? { loaded: e.loaded, total: e.total, bytesPerSecond: e.bytesPerSecond ?? null, secondsLeft: e.secondsLeft ?? null, retrying: e.retrying ?? false }
            : p,
        );
      },
    }),
    assignResponse: assign({ response: (_, params: { response: SubmitOutcome }) => (isSuccessData(params.response) ? params.response : null) }),
    assignProof: assign({ proof: (_, params: { proof: SubmissionProof }) => params.proof }),
    /** A proof pays for one attempt; a failed solve is retried by the next `editing` or `sending`. */
    forgetProof: assign({ proof: null }),
    assignReservation: assign({ reservation: (_, params: { reservation: CaseReservation }) => params.reservation }),
    assignDerived: assign({ derived: (_, params: { derived: DerivedSecret }) => params.derived }),
    forgetReservation: assign({ reservation: null, derived: null, recipients: null, sealedUploads: null }),
    assignSealedUploads: assign({ sealedUploads: (_, params: { outcome: SealedUploadOutcome }) => (params.outcome && 'sealedUploads' in params.outcome ? params.outcome.sealedUploads : null) }),
    startSending: assign({ keyRefusal: null, resealed: false }),
    assignRecipients: assign({ recipients: (_, params: { outcome: KeyCheckOutcome }) => (params.outcome && 'recipients' in params.outcome ? params.outcome.recipients : null) }),
    assignKeyRefusal: assign({ keyRefusal: (_, params: { outcome: KeyCheckOutcome }) => (params.outcome && 'refused' in params.outcome ? params.outcome.refused : null) }),
    markResealed: assign({ resealed: true, recipients: null }),
    assignReserveRetryAfter: assign({
      retryAfterSeconds: (_, params: { outcome: ReserveOutcome }) =>
        params.outcome && 'rateLimited' in params.outcome ? params.outcome.rateLimited.retryAfterSeconds : null,
    }),
    assignRetryAfter: assign({ retryAfterSeconds: (_, params: { outcome: SubmitOutcome }) => (params.outcome as RateLimited).rateLimited.retryAfterSeconds }),
  },
  guards: {
    /** The company info came with the chart's input: nothing to wait for. */
    hasCompanyInfo: ({ context }) => context.company !== noCompany,
    /** Switching persons ⇄ company would drop what was typed for the current choice. */
    hasConcernDataToDiscard: ({ context, event }) => {
      const d = context.draft;
      const next = (event as Ev<'concerns.choose'>).value;
      if (d.concerns === null || d.concerns === next) return false;
      return d.concerns === 'persons'
        ? d.reportedPersons.length > 0 || !isPersonInputEmpty(d.personInput)
        : d.reportedUnit.trim() !== '';
    },
    /** Only a complete person (name, job title, phone or e-mail) is added: the server needs all three. */
    isPersonComplete: ({ context }) =>
      context.draft.concerns === 'persons' && v.is(reportedPersonSchema, context.draft.personInput),
    /** Spec §5: "Add person" is enabled once a name is typed. */
    hasPersonName: ({ context }) => context.draft.concerns === 'persons' && context.draft.personInput.name.trim() !== '',
    hasIdentityDataToDiscard: ({ context, event }) => {
      const w = context.draft.whistleblower;
      return (
        (event as Ev<'identity.choose'>).value === 'anonymous' &&
        (w.name.trim() !== '' || w.email.trim() !== '' || w.phone.trim() !== '' || w.notification)
      );
    },
    isRevealing: ({ context }) => context.draft.identity === 'reveal',
    /** Not-follow is refused while notification is on (spec §4). */
    isFollowChoiceAllowed: ({ context, event }) =>
      (event as Ev<'follow.choose'>).value || !context.draft.whistleblower.notification,
    /** Choosing not-follow (allowed) with a password typed would drop it. */
    isDiscardingPassword: ({ context, event }) =>
      !(event as Ev<'follow.choose'>).value &&
      !context.draft.whistleblower.notification &&
      (context.draft.password !== '' || context.draft.passwordConfirmation !== ''),
    isSendEnabled: ({ context }) => isSendEnabled(context.draft),
    hasInvalidStep: ({ context }) => firstInvalidStep(context) !== null,
    hasResponse: (_, params: { outcome: SubmitOutcome }) => isSuccessData(params.outcome),
    isRateLimited: (_, params: { outcome: SubmitOutcome }) => params.outcome !== null && 'rateLimited' in params.outcome,
    isFileRefused: (_, params: { outcome: SubmitOutcome }) => isRefusedFile(params.outcome),
    isNetworkFailure: (_, params: { outcome: SubmitOutcome }) => isNetworkFailure(params.outcome),
    hasProof: ({ context }) => context.proof !== null,
    /** Oral and meeting cases are always followed; the online form when the reporter chose to. */
    isFollowing: ({ context }) => context.channel !== 'online' || context.draft.follow === true,
    hasReservation: (_, params: { outcome: ReserveOutcome }) => params.outcome !== null && 'reservation' in params.outcome,
    isReservationRateLimited: (_, params: { outcome: ReserveOutcome }) => params.outcome !== null && 'rateLimited' in params.outcome,
    isReservationOffline: (_, params: { outcome: ReserveOutcome }) => params.outcome !== null && 'networkFailure' in params.outcome,
    /** Verified keys, and files to seal and upload before the sealed case, not uploaded yet in this send (after WRAP_MISSING they stay uploaded). */
    hasRecipientsAndFilesToUpload: ({ context }, params: { outcome: KeyCheckOutcome }) =>
      params.outcome !== null && 'recipients' in params.outcome && context.draft.files.length > 0 && context.sealedUploads === null,
    hasSealedUploads: (_, params: { outcome: SealedUploadOutcome }) => params.outcome !== null && 'sealedUploads' in params.outcome,
    isUploadRateLimited: (_, params: { outcome: SealedUploadOutcome }) => params.outcome !== null && 'rateLimited' in params.outcome,
    isUploadFileRefused: (_, params: { outcome: SealedUploadOutcome }) => params.outcome !== null && 'refusedFile' in params.outcome,
    isUploadOffline: (_, params: { outcome: SealedUploadOutcome }) => params.outcome !== null && 'networkFailure' in params.outcome,
    isPlainPath: (_, params: { outcome: KeyCheckOutcome }) => params.outcome !== null && 'plain' in params.outcome,
    hasRecipients: (_, params: { outcome: KeyCheckOutcome }) => params.outcome !== null && 'recipients' in params.outcome,
    isKeyRefused: (_, params: { outcome: KeyCheckOutcome }) => params.outcome !== null && 'refused' in params.outcome,
    isKeyCheckOffline: (_, params: { outcome: KeyCheckOutcome }) => params.outcome !== null && 'networkFailure' in params.outcome,
    isSealed: (_, params: { outcome: SealOutcome }) => isSuccessData(params.outcome as SubmitOutcome),
    isSealRateLimited: (_, params: { outcome: SealOutcome }) => params.outcome !== null && 'rateLimited' in params.outcome,
    isSealOffline: (_, params: { outcome: SealOutcome }) => params.outcome !== null && 'networkFailure' in params.outcome,
    /** WRAP_MISSING the first time in this send: the log is read and the report sealed once more. */
    isWrapMissingFirst: ({ context }, params: { outcome: SealOutcome }) => params.outcome !== null && 'wrapMissing' in params.outcome && !context.resealed,
  },
});

/** Builds the machine of one channel. */
export function createReportMachine(channel: ReportChannel) {
  const online = channel === 'online';
  const id = `${channel}Report`;

  // The step regions only the online form has (spec §2).
  const onlineSteps = {
    describeProblem: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'description.change': { actions: 'assignDescription' },
            'voice.attach': { actions: 'attachVoice' },
            'voice.remove': { actions: 'removeVoice' },
            'violation.select': { actions: 'assignViolation' },
            'repeated.choose': { actions: 'assignRepeated' },
          },
        },
      },
    },
    reportRelated: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'concerns.choose': [
              { guard: 'hasConcernDataToDiscard', target: '#' + id + '.editing.confirmingDiscard.reportRelated' },
              { actions: 'assignConcerns' },
            ],
            'person.change': { actions: 'assignPersonField' },
            'person.add': [
              { guard: 'isPersonComplete', actions: 'addPerson' },
              { guard: 'hasPersonName', actions: 'markPersonIncomplete' },
            ],
            'person.remove': { actions: 'removePerson' },
            'unit.change': { actions: 'assignUnit' },
          },
        },
      },
    },
    documents: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'files.add': { actions: 'addFiles' },
            'file.remove': { actions: 'removeFile' },
          },
        },
      },
    },
  } as const;

  const followChoice = online
    ? ({
        'follow.choose': [
          { guard: 'isDiscardingPassword', target: '#' + id + '.editing.confirmingDiscard.followReport' },
          { guard: 'isFollowChoiceAllowed', actions: 'assignFollow' },
        ],
      } as const)
    : {};

  // The online form's sealing (issue 37): the key log checked here, then the sealed send.
  const sealingStates = {
    checkingKeys: {
      invoke: {
        id: 'checkKeyLog',
        src: 'checkKeyLog',
        input: ({ context }: { context: ReportContext }) => ({ officerId: context.draft.protectionOfficer ?? '' }),
        onDone: [
          { guard: { type: 'isPlainPath', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) }, target: 'submitting' },
          ...(online
            ? [
                {
                  guard: { type: 'hasRecipientsAndFilesToUpload', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) },
                  target: 'uploading',
                  actions: { type: 'assignRecipients', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) },
                } as const,
              ]
            : []),
          {
            guard: { type: 'hasRecipients', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) },
            target: 'sealing',
            actions: { type: 'assignRecipients', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) },
          },
          {
            guard: { type: 'isKeyRefused', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) },
            target: '#' + id + '.keysRefused',
            actions: { type: 'assignKeyRefusal', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) },
          },
          { guard: { type: 'isKeyCheckOffline', params: ({ event }: { event: { output: KeyCheckOutcome } }) => ({ outcome: event.output }) }, target: '#' + id + '.failed.offline' },
          { target: '#' + id + '.failed' },
        ],
        onError: { target: '#' + id + '.failed' },
      },
    },
    sealing: {
      invoke: {
        id: 'sealReport',
        src: 'sealReport',
        input: ({ context }: { context: ReportContext }) => ({
          submission: buildSubmission(context),
          recipients: context.recipients,
          reporterKey: context.draft.follow ? (context.derived?.reporterKey ?? null) : null,
          proof: context.proof,
          resealed: context.resealed,
          uploads: context.sealedUploads,
        }),
        onDone: [
          {
            guard: { type: 'isSealed', params: ({ event }: { event: { output: SealOutcome } }) => ({ outcome: event.output }) },
            target: '#' + id + '.succeeded',
            actions: { type: 'assignResponse', params: ({ event }: { event: { output: SealOutcome } }) => ({ response: event.output as SubmitOutcome }) },
          },
          {
            guard: { type: 'isWrapMissingFirst', params: ({ event }: { event: { output: SealOutcome } }) => ({ outcome: event.output }) },
            target: 'checkingKeys',
            // The proof went with the refused send; the next one needs its own.
            actions: ['markResealed', 'forgetProof'],
          },
          {
            guard: { type: 'isSealRateLimited', params: ({ event }: { event: { output: SealOutcome } }) => ({ outcome: event.output }) },
            target: '#' + id + '.rateLimited',
            actions: { type: 'assignRetryAfter', params: ({ event }: { event: { output: SealOutcome } }) => ({ outcome: event.output as SubmitOutcome }) },
          },
          { guard: { type: 'isSealOffline', params: ({ event }: { event: { output: SealOutcome } }) => ({ outcome: event.output }) }, target: '#' + id + '.failed.offline' },
          { target: '#' + id + '.failed' },
        ],
        onError: { target: '#' + id + '.failed' },
      },
    },
  } as const;

  // The online form's files, sealed chunk by chunk and uploaded before the sealed case names them.
  const uploadingState = {
    uploading: {
      invoke: {
        id: 'uploadSealedFiles',
        src: 'uploadSealedFiles',
        input: ({ context, self }: { context: ReportContext; self: { send: (e: UploadProgressEvent) => void } }) => ({
          files: [...context.draft.files],
          recipients: context.recipients,
          proof: context.proof,
          reportProgress: (e: UploadProgressEvent) => self.send(e),
        }),
        onDone: [
          {
            guard: { type: 'hasSealedUploads', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ outcome: event.output }) },
            target: 'sealing',
            // The upload session spent the proof (if it had one): the case pays with its own.
            actions: ['forgetProof', { type: 'assignSealedUploads', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ outcome: event.output }) }],
          },
          {
            guard: { type: 'isUploadRateLimited', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ outcome: event.output }) },
            target: '#' + id + '.rateLimited',
            actions: { type: 'assignRetryAfter', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ outcome: event.output as SubmitOutcome }) },
          },
          {
            // The browser's content check before sealing refused a file: named and left out, as the server's refusal on the plain path.
            guard: { type: 'isUploadFileRefused', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ outcome: event.output }) },
            target: '#' + id + '.failed.fileRefused',
            actions: { type: 'removeRefusedFile', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ refused: (event.output as RefusedFile).refusedFile }) },
          },
          { guard: { type: 'isUploadOffline', params: ({ event }: { event: { output: SealedUploadOutcome } }) => ({ outcome: event.output }) }, target: '#' + id + '.failed.offline' },
          { target: '#' + id + '.failed' },
        ],
        onError: { target: '#' + id + '.failed' },
      },
      on: { 'upload.progress': { actions: 'assignProgress' } },
    },
  } as const;

  const keysRefusedState = {
    keysRefused: {
      tags: ['keysRefusedDialog'],
      on: { 'dialog.close': { target: 'editing' } },
    },
  } as const;

  const login = {
    type: 'goToLogin',
    params: ({ context }: { context: ReportContext }) => ({ caseNumber: context.response?.caseDto.caseNumber ?? '' }),
  } as const;

  const copy = {
    type: 'copyCaseNumber',
    params: ({ context }: { context: ReportContext }) => ({ caseNumber: context.response?.caseDto.caseNumber ?? '' }),
  } as const;

  return reportSetup.createMachine({
    id,
    context: ({ input }) => ({
      channel,
      company: input?.company ?? noCompany,
      draft: emptyDraft(channel, input?.company ?? noCompany),
      droppedFiles: 0,
      rejectedFiles: [],
      refusedFiles: [],
      personIncomplete: false,
      progress: [],
      firstInvalidStep: null,
      sendAttempts: 0,
      response: null,
      proof: null,
      retryAfterSeconds: null,
      reservation: null,
      derived: null,
      recipients: null,
      keyRefusal: null,
      resealed: false,
      sealedUploads: null,
    }),
    initial: 'loadingCompany',
    on: {
      // Spec §2: leaving a form route resets validation, dialog data and the draft.
      // The company info stays.
      'form.reset': { target: '.editing', reenter: true, actions: 'resetDraft' },
    },
    states: {
      loadingCompany: {
        // With the company info in the input the form opens at once: its steps are in
        // the page's first render, not in a second pass after a read that asks nothing.
        always: { guard: 'hasCompanyInfo', target: 'editing' },
        invoke: {
          id: 'loadCompanyInfo',
          src: 'loadCompanyInfo',
          onDone: {
            target: 'editing',
            actions: { type: 'assignCompany', params: ({ event }) => ({ company: event.output }) },
          },
          onError: { target: 'companyUnavailable' },
        },
      },
      companyUnavailable: {
        entry: 'goToErrorPage',
      },
      editing: {
        initial: 'steps',
        // The proof is worked out while the reporter types, so Send never waits for it.
        invoke: {
          id: 'solveProofOfWork',
          src: 'solveProofOfWork',
          input: ({ context }) => ({ proof: context.proof }),
          onDone: { actions: { type: 'assignProof', params: ({ event }) => ({ proof: event.output }) } },
          onError: { actions: 'forgetProof' },
        },
        states: {
          // One region per step; a step's data lives in the draft, its validity is derived.
          steps: {
            type: 'parallel',
            on: {
              'report.submit': [
                {
                  guard: and(['isSendEnabled', 'hasInvalidStep']),
                  target: '#' + id + '.showingValidation',
                  actions: 'assignFirstInvalidStep',
                },
                { guard: 'isSendEnabled', target: '#' + id + '.sending' },
              ],
            },
            states: {
              subsidiary: {
                initial: 'editing',
                states: { editing: { on: { 'subsidiary.select': { actions: 'assignSubsidiary' } } } },
              },
              protectionOfficer: {
                initial: 'editing',
                states: { editing: { on: { 'officer.select': { actions: 'assignOfficer' } } } },
              },
              relation: {
                initial: 'editing',
                states: { editing: { on: { 'relation.change': { actions: 'assignRelation' } } } },
              },
              ...(online ? onlineSteps : {}),
              identity: {
                initial: 'editing',
                states: {
                  editing: {
                    on: {
                      'identity.choose': [
                        { guard: 'hasIdentityDataToDiscard', target: '#' + id + '.editing.confirmingDiscard.identity' },
                        { actions: 'assignIdentityChoice' },
                      ],
                      'identity.change': { guard: 'isRevealing', actions: 'assignIdentityField' },
                      'phone.change': { guard: 'isRevealing', actions: 'assignPhone' },
                      'notification.toggle': { guard: 'isRevealing', actions: 'assignNotification' },
                    },
                  },
                },
              },
              followReport: {
                initial: 'editing',
                states: {
                  editing: {
                    on: {
                      ...followChoice,
                      'password.change': { actions: 'assignPassword' },
                      'passwordConfirmation.change': { actions: 'assignPasswordConfirmation' },
                      'terms.toggle': { actions: 'assignTerms' },
                    },
                  },
                },
              },
            },
          },
          // A change that would drop typed data waits here for the reporter's answer;
          // the steps are frozen meanwhile, and cancelling keeps the earlier choice.
          confirmingDiscard: {
            tags: ['discardDialog'],
            // Only ever entered through a named substate; `identity` is there in every channel.
            initial: 'identity',
            on: { 'discard.cancel': { target: 'steps' } },
            states: {
              ...(online
                ? {
                    reportRelated: {
                      on: { 'discard.confirm': { target: '#' + id + '.editing.steps', actions: 'switchConcernsDiscarding' } },
                    },
                  }
                : {}),
              identity: {
                on: { 'discard.confirm': { target: '#' + id + '.editing.steps', actions: 'becomeAnonymousDiscarding' } },
              },
              ...(online
                ? {
                    followReport: {
                      on: { 'discard.confirm': { target: '#' + id + '.editing.steps', actions: 'stopFollowingDiscarding' } },
                    },
                  }
                : {}),
            },
          },
        },
      },
      showingValidation: {
        tags: ['validationDialog'],
        on: { 'dialog.close': { target: 'editing' } },
      },
      sending: {
        tags: ['busy'],
        entry: ['clearFirstInvalidStep', 'startProgress', 'startSending'],
        // Whatever the outcome, the proof was spent: the next attempt needs a new one.
        exit: ['forgetProof', 'forgetReservation'],
        initial: 'checkingProof',
        states: {
          checkingProof: {
            always: [
              { guard: and(['hasProof', 'isFollowing']), target: 'reserving' },
              // Oral and meeting cases are always followed: only the online form sends without an account.
              ...(online ? [{ guard: 'hasProof' as const, target: 'checkingKeys' }] : []),
              { target: 'provingWork' },
            ],
          },
          // Only when Send came before the background proof was ready.
          provingWork: {
            invoke: {
              id: 'solveProofOfWork',
              src: 'solveProofOfWork',
              input: () => ({ proof: null }),
              onDone: { target: 'checkingProof', actions: { type: 'assignProof', params: ({ event }) => ({ proof: event.output }) } },
              onError: { target: '#' + id + '.failed' },
            },
          },
          // A followed case: its number and salt first, so the browser can derive (issue 37).
          reserving: {
            invoke: {
              id: 'reserveCase',
              src: 'reserveCase',
              input: ({ context }) => ({ proof: context.proof }),
              onDone: [
                {
                  guard: { type: 'hasReservation', params: ({ event }) => ({ outcome: event.output }) },
                  target: 'deriving',
                  // The reservation spent the proof; the case's own is solved by the submit effect.
                  actions: ['forgetProof', { type: 'assignReservation', params: ({ event }) => ({ reservation: event.output as CaseReservation }) }],
                },
                {
                  guard: { type: 'isReservationRateLimited', params: ({ event }) => ({ outcome: event.output }) },
                  target: '#' + id + '.rateLimited',
                  actions: { type: 'assignReserveRetryAfter', params: ({ event }) => ({ outcome: event.output }) },
                },
                {
                  guard: { type: 'isReservationOffline', params: ({ event }) => ({ outcome: event.output }) },
                  target: '#' + id + '.failed.offline',
                },
                { target: '#' + id + '.failed' },
              ],
              onError: { target: '#' + id + '.failed' },
            },
          },
          // The verifier from the reserved number, the password and the salt, in the browser.
          deriving: {
            invoke: {
              id: 'deriveReporterKeys',
              src: 'deriveReporterKeys',
              input: ({ context }) => ({ caseNumber: context.reservation!.caseNumber, password: context.draft.password, salt: context.reservation!.salt }),
              onDone: { target: 'checkingKeys', actions: { type: 'assignDerived', params: ({ event }) => ({ derived: event.output }) } },
              onError: { target: '#' + id + '.failed' },
            },
          },
          ...sealingStates,
          ...(online ? uploadingState : {}),
          submitting: {
            invoke: {
              id: 'submitReport',
              src: 'submitReport',
              input: ({ context, self }) => ({
                submission: buildSubmission(context),
                proof: context.proof,
                reportProgress: (e: UploadProgressEvent) => self.send(e),
              }),
              onDone: [
                {
                  guard: { type: 'hasResponse', params: ({ event }) => ({ outcome: event.output }) },
                  target: '#' + id + '.succeeded',
                  actions: { type: 'assignResponse', params: ({ event }) => ({ response: event.output }) },
                },
                {
                  guard: { type: 'isRateLimited', params: ({ event }) => ({ outcome: event.output }) },
                  target: '#' + id + '.rateLimited',
                  actions: { type: 'assignRetryAfter', params: ({ event }) => ({ outcome: event.output }) },
                },
                {
                  guard: { type: 'isFileRefused', params: ({ event }) => ({ outcome: event.output }) },
                  target: '#' + id + '.failed.fileRefused',
                  actions: {
                    type: 'removeRefusedFile',
                    params: ({ event }) => ({ refused: (event.output as RefusedFile).refusedFile }),
                  },
                },
                {
                  guard: { type: 'isNetworkFailure', params: ({ event }) => ({ outcome: event.output }) },
                  target: '#' + id + '.failed.offline',
                },
                { target: '#' + id + '.failed' },
              ],
              onError: { target: '#' + id + '.failed' },
            },
            on: { 'upload.progress': { actions: 'assignProgress' } },
          },
        },
      },
      succeeded: {
        tags: ['successDialog'],
        initial: 'showing',
        on: {
          // The number goes with the effect before the draft (and the answer) is reset.
          'login.start': { target: 'editing', actions: [login, 'resetDraft'] },
          // Copying again restarts the 2-second hint.
          'caseNumber.copy': { target: '.copied', reenter: true, actions: copy },
        },
        states: {
          showing: {
            on: { 'dialog.close': 'confirmingClose' },
          },
          copied: {
            tags: ['copied'],
            after: { copiedHint: 'showing' },
            on: { 'dialog.close': 'confirmingClose' },
          },
          // One tap must not lose the case number: closing asks first (an AlertDialog).
          confirmingClose: {
            tags: ['closeConfirmation'],
            on: {
              // Spec §2: closing the success dialog resets the draft and goes to /.
              'close.confirm': { target: '#' + id + '.editing', actions: ['resetDraft', 'goToFrontPage'] },
              'close.cancel': 'showing',
            },
          },
        },
      },
      failed: {
        tags: ['failureDialog'],
        // The draft is kept: the reporter completes the form and tries again.
        on: { 'dialog.close': { target: 'editing' } },
        initial: 'incomplete',
        states: {
          incomplete: {},
          /** The server refused one file for its content: it is named and left out, the rest is kept. */
          fileRefused: { tags: ['fileRefused'] },
          /** The request never reached the server (offline): the form is complete, the report is kept; try again when connected. */
          offline: { tags: ['networkFailure'] },
        },
      },
      // Too many submissions from this connection (429): the draft is kept, the dialog says how long to wait.
      rateLimited: {
        tags: ['rateLimitDialog'],
        on: { 'dialog.close': { target: 'editing' } },
      },
      // The key log did not verify in this browser: nothing was sent, the draft is kept, the dialog names why.
      ...keysRefusedState,
    },
  });
}

// Marked pure so that a bundle which does not use them (the SPA builds its chart per
// channel when a form first opens, src/forms/ReportPage.tsx) drops them: built at
// import, the three walked the whole state tree in the form's first script task
// (performance.md, seventeenth round). The diagrams and the model tests use them.
export const onlineReportMachine = /* @__PURE__ */ createReportMachine('online');
export const oralReportMachine = /* @__PURE__ */ createReportMachine('oral');
export const meetingReportMachine = /* @__PURE__ */ createReportMachine('meeting');

export type ReportMachine = typeof onlineReportMachine;
export type ReportActor = ActorRefFrom<ReportMachine>;

export { VIOLATIONS };
