/**
 * Shared model of the three report channels (machines/report.ts).
 *
 * The draft has many free-text fields, so the graph walks a projection of it: the
 * state value, each step's validity, and exactly the facts the guards read (is
 * there data a choice would drop, is the typed person complete, is notification on,
 * is Send enabled). Fill events carry their real value only while their step is the
 * first invalid one (elsewhere they re-send the current value), so the steps fill in
 * order and the state space stays small; the choices that ask to discard stay open
 * on every step, so each confirmation is reached with data both typed and not.
 */
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import {
  createReportMachine,
  requiredSteps,
  stepValidity,
  isSendEnabled,
  type CaseReservation,
  type CompanyInfo,
  type DerivedSecret,
  type KeyCheckOutcome,
  type ReportChannel,
  type ReportContext,
  type RateLimited,
  type SealedUploadOutcome,
  type StepName,
  type SubmissionProof,
  type SuccessData,
} from '../../machines/report.ts';
import type { MachineModel } from './harness.ts';

export const TWO_OFFICERS_WITH_SUBSIDIARIES: CompanyInfo = {
  protectionOfficers: [
    { id: 'po-1', name: 'Anna Berg', jobTitle: 'Lawyer', company: 'Law & Co', phone: '+4511111111', customerRelation: 'EXTERNAL', logoUrl: null },
    { id: 'po-2', name: 'Bo Lund', jobTitle: 'Compliance officer', company: 'Group A/S', phone: '+4522222222', customerRelation: 'INTERNAL', logoUrl: null },
  ],
  subsidiaries: [{ id: 'sub-1', name: 'Group Nord' }],
};
export const ONE_OFFICER: CompanyInfo = {
  protectionOfficers: [{ id: 'po-9', name: 'Solo Officer', jobTitle: 'Officer', company: 'Acme', phone: null, customerRelation: 'INTERNAL', logoUrl: null }],
  subsidiaries: [],
};
export const SUCCESS: SuccessData = {
  caseDto: { caseNumber: '1234567890123456', status: 'RECEIVED', created: '2026-11-22T01:00:00Z', submission: { type: 'ONLINE_FORM' } },
};

export const VOICE_FILE = { name: 'voice-message.webm', size: 2000, type: 'audio/webm' };

export const PROOF: SubmissionProof = { challenge: 'v1.4.1893456000.id.mac', nonce: '1b', expiresAt: '2030-01-01T00:00:00.000Z' };
export const RATE_LIMITED: RateLimited = { rateLimited: { retryAfterSeconds: 900 } };
export const RESERVATION: CaseReservation = { reservation: 'r'.repeat(43), caseNumber: '1234567812345678', salt: 'AAAAAAAAAAAAAAAAAAAAAA' };
export const DERIVED: DerivedSecret = { verifier: 'v'.repeat(43), kdf: { name: 'argon2id-v1', m: 65536, t: 3, p: 1 }, reporterKey: 'reporter-key' };
/** The key log's check when it verified: the recipients are opaque to the chart. */
export const KEYS: KeyCheckOutcome = { recipients: 'verified-recipients' };
/** The files sealed and uploaded (opaque to the chart: case id, data key, session, upload ids). */
export const SEALED_UPLOADS: SealedUploadOutcome = { sealedUploads: 'sealed-uploads' };

/** The steps in the order a reporter fills them (subsidiary is always valid). */
function fillOrder(channel: ReportChannel): StepName[] {
  return requiredSteps(channel).filter((s) => s !== 'subsidiary');
}

/**
 * The step being filled: the first one not yet done. A step is done when valid, and
 * reportRelated and identity only on their longest branch (persons added, identity
 * revealed), so their other branches (company, anonymous) and the confirmations to
 * leave them are walked while the step is still open.
 */
export function phaseOf(context: ReportContext): StepName | 'complete' {
  const validity = stepValidity(context);
  const d = context.draft;
  const done = (s: StepName) =>
    validity[s] &&
    (s !== 'reportRelated' || (d.concerns === 'persons' && d.reportedPersons.length > 0)) &&
    (s !== 'identity' || d.identity === 'reveal');
  return fillOrder(context.channel).find((s) => !done(s)) ?? 'complete';
}

const filled = (s: string) => (s.trim() ? 1 : 0);

/** The projection the graph walks: the state, the step being filled and the facts its guards read. */
export function serializeReport(snapshot: AnyMachineSnapshot): string {
  const c = snapshot.context as ReportContext;
  const d = c.draft;
  const w = d.whistleblower;
  const p = d.personInput;
  const phase = phaseOf(c);
  const sending = { terms: d.termsAccepted, send: isSendEnabled(d) };
  const detail =
    phase === 'protectionOfficer' || (phase === 'relation' && c.channel !== 'online')
      ? { officers: c.company.protectionOfficers.length, ...sending, password: filled(d.password) }
      : phase === 'describeProblem'
        ? { description: filled(d.description), repeated: d.repeatedViolations }
        : phase === 'reportRelated'
          ? {
              concerns: d.concerns,
              person: filled(p.name) + filled(p.jobTitle) + filled(p.phoneOrEmail),
              persons: Math.min(d.reportedPersons.length, 2),
              unit: filled(d.reportedUnit),
            }
          : phase === 'identity'
            ? { identity: d.identity, name: filled(w.name), email: filled(w.email), notification: w.notification }
            : phase === 'followReport'
              ? {
                  follow: d.follow,
                  password: filled(d.password),
                  confirmed: d.password === d.passwordConfirmation,
                  notification: w.notification,
                  ...sending,
                }
              : phase === 'complete'
                ? // Whether a proof is ready decides how Send goes on, so it counts only here.
                  // So does following (a followed case reserves and derives first, issue 37).
                  // Files are sealed and uploaded first on a sealed send (issue 37): whether there are any, and whether they went.
                  {
                    ...sending,
                    response: c.response ? 1 : 0,
                    proof: c.proof ? 1 : 0,
                    follow: d.follow,
                    reserved: c.reservation ? 1 : 0,
                    files: d.files.length > 0 ? 1 : 0,
                    uploaded: c.sealedUploads ? 1 : 0,
                    resealed: c.resealed ? 1 : 0,
                  }
                : null;
  return JSON.stringify({ v: snapshot.value, phase, detail });
}

const PERSON = { name: 'Per Hansen', jobTitle: 'Finance director', phoneOrEmail: 'per@example.com' };

/**
 * Sample events. A step's events carry real values only while it is being filled;
 * elsewhere they re-send the current value, a transition that changes nothing.
 */
export function reportEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const c = snapshot.context as ReportContext;
  const d = c.draft;
  const w = d.whistleblower;
  const phase = phaseOf(c);
  const now = (step: StepName) => phase === step;
  const either = <T,>(step: StepName, values: T[], current: T): T[] => (now(step) ? values : [current]);
  const copiedId = `${c.channel}Report.succeeded.copied`;
  const early = c.channel === 'online' ? phase === 'protectionOfficer' : phase === 'relation';
  const termsOpen = early || phase === 'followReport';
  const events: Array<EventObject & Record<string, unknown>> = [
    { type: 'xstate.done.actor.loadCompanyInfo', output: TWO_OFFICERS_WITH_SUBSIDIARIES },
    { type: 'xstate.done.actor.loadCompanyInfo', output: ONE_OFFICER },
    { type: 'xstate.error.actor.loadCompanyInfo', error: new Error('500') },
    { type: 'subsidiary.select', id: d.subsidiary },
    { type: 'officer.select', id: now('protectionOfficer') ? 'po-2' : d.protectionOfficer },
    { type: 'relation.change', value: now('relation') ? 'Employee in finance' : d.whistleblowerRelation },
    ...either('identity', ['reveal', 'anonymous'], d.identity).map((value) => ({ type: 'identity.choose', value })),
    { type: 'identity.change', field: 'name', value: now('identity') ? 'Ida Jensen' : w.name },
    { type: 'identity.change', field: 'email', value: now('identity') ? 'ida@example.com' : w.email },
    { type: 'phone.change', phone: now('identity') ? '+4512345678' : w.phone, countryCode: now('identity') ? 'dk' : w.phoneCountryCode, isValid: now('identity') ? true : w.phoneValid },
    ...(now('identity') || now('followReport') ? [true, false] : [w.notification]).map((value) => ({ type: 'notification.toggle', value })),
    // Oral and meeting follow from the start: a password typed early opens Send with steps still invalid.
    { type: 'password.change', value: now('followReport') || (termsOpen && c.channel !== 'online') ? 'secret' : d.password },
    { type: 'passwordConfirmation.change', value: now('followReport') || (termsOpen && c.channel !== 'online') ? 'secret' : d.passwordConfirmation },
    ...(termsOpen ? [true, false] : [d.termsAccepted]).map((value) => ({ type: 'terms.toggle', value })),
    { type: 'discard.confirm' },
    { type: 'discard.cancel' },
    { type: 'report.submit' },
    { type: 'upload.progress', index: 0, loaded: 50, total: 100 },
    { type: 'xstate.done.actor.submitReport', output: SUCCESS },
    { type: 'xstate.done.actor.submitReport', output: null },
    // The server refused one file for its content: it names the file.
    { type: 'xstate.done.actor.submitReport', output: { refusedFile: { index: 0, name: 'a.pdf' } } },
    { type: 'xstate.done.actor.submitReport', output: { networkFailure: true } },
    { type: 'xstate.error.actor.submitReport', error: new Error('network') },
    { type: 'xstate.done.actor.submitReport', output: RATE_LIMITED },
    { type: 'xstate.done.actor.reserveCase', output: RESERVATION },
    { type: 'xstate.done.actor.reserveCase', output: null },
    { type: 'xstate.done.actor.reserveCase', output: { networkFailure: true } },
    { type: 'xstate.done.actor.reserveCase', output: RATE_LIMITED },
    { type: 'xstate.error.actor.reserveCase', error: new Error('network') },
    { type: 'xstate.done.actor.deriveReporterKeys', output: DERIVED },
    { type: 'xstate.error.actor.deriveReporterKeys', error: new Error('no WebCrypto') },
    { type: 'xstate.done.actor.checkKeyLog', output: { plain: true } },
    { type: 'xstate.done.actor.checkKeyLog', output: KEYS },
    { type: 'xstate.done.actor.checkKeyLog', output: { refused: 'signature' } },
    { type: 'xstate.done.actor.checkKeyLog', output: { networkFailure: true } },
    { type: 'xstate.done.actor.checkKeyLog', output: null },
    { type: 'xstate.error.actor.checkKeyLog', error: new Error('network') },
    { type: 'xstate.done.actor.sealReport', output: SUCCESS },
    { type: 'xstate.done.actor.sealReport', output: { wrapMissing: true } },
    { type: 'xstate.done.actor.sealReport', output: RATE_LIMITED },
    { type: 'xstate.done.actor.sealReport', output: { networkFailure: true } },
    { type: 'xstate.done.actor.sealReport', output: null },
    { type: 'xstate.error.actor.sealReport', error: new Error('no WebCrypto') },
    { type: 'xstate.done.actor.uploadSealedFiles', output: SEALED_UPLOADS },
    { type: 'xstate.done.actor.uploadSealedFiles', output: RATE_LIMITED },
    // The browser's content check before sealing refused a file: it names the file.
    { type: 'xstate.done.actor.uploadSealedFiles', output: { refusedFile: { index: 0, name: 'a.pdf' } } },
    { type: 'xstate.done.actor.uploadSealedFiles', output: { networkFailure: true } },
    { type: 'xstate.done.actor.uploadSealedFiles', output: null },
    { type: 'xstate.error.actor.uploadSealedFiles', error: new Error('no WebCrypto') },
    { type: 'xstate.done.actor.solveProofOfWork', output: PROOF },
    { type: 'xstate.error.actor.solveProofOfWork', error: new Error('no challenge') },
    { type: 'dialog.close' },
    { type: 'close.confirm' },
    { type: 'close.cancel' },
    { type: 'caseNumber.copy' },
    { type: `xstate.after.copiedHint.${copiedId}` },
    { type: 'login.start' },
    { type: 'form.reset' },
  ];
  if (c.channel === 'online') {
    const p = d.personInput;
    events.push(
      { type: 'description.change', value: now('describeProblem') ? 'Invoices were forged' : d.description },
      { type: 'violation.select', value: d.violation },
      ...either('describeProblem', [true, false], d.repeatedViolations).map((value) => ({ type: 'repeated.choose', value })),
      ...either('reportRelated', ['persons', 'company'], d.concerns).map((value) => ({ type: 'concerns.choose', value })),
      { type: 'person.change', field: 'name', value: now('reportRelated') ? PERSON.name : p.name },
      { type: 'person.change', field: 'jobTitle', value: now('reportRelated') ? PERSON.jobTitle : p.jobTitle },
      { type: 'person.change', field: 'phoneOrEmail', value: now('reportRelated') ? PERSON.phoneOrEmail : p.phoneOrEmail },
      { type: 'person.add' },
      { type: 'person.remove', index: now('reportRelated') ? 0 : 99 },
      { type: 'unit.change', value: now('reportRelated') ? 'Finance department' : d.reportedUnit },
      { type: 'files.add', files: phase === 'complete' ? [{ name: 'a.pdf', size: 100, type: 'application/pdf' }] : [] },
      { type: 'file.remove', index: 99 },
      // A voice message (issue 40) is attached and removed once the form is complete:
      // the transitions are taken without multiplying the state space.
      ...(phase === 'complete' ? [{ type: 'voice.attach', file: VOICE_FILE }, { type: 'voice.remove' }] : []),
      ...either('followReport', [true, false], d.follow).map((value) => ({ type: 'follow.choose', value })),
    );
  }
  return events;
}

export function reportModel(channel: ReportChannel): MachineModel {
  return {
    name: `${channel}Report`,
    machine: createReportMachine(channel),
    events: reportEvents,
    serializeState: serializeReport,
  };
}

/**
 * The same chart opened with the company info in hand (the look-and-feel actor had it
 * from the page's head): it starts at `editing`, the lone officer already chosen, and
 * walks on from there like the other.
 */
export function reportModelWithCompany(channel: ReportChannel): MachineModel {
  return { ...reportModel(channel), name: `${channel}Report (company in hand)`, input: { company: ONE_OFFICER } };
}
