/**
 * Model-based tests of the three report channels (machines/report.ts).
 *
 * 1. Every shortest path of each model (createTestModel over report.kit.ts) is
 *    replayed on the chart, and after every step the spec's invariants are checked
 *    against the snapshot: Send enabled exactly as spec §4 says, the validation
 *    dialog naming the first invalid step, a sent report passing the server's own
 *    schema, follow forced by notification, discard confirmations only with data.
 * 2. The same machines run as real actors with the effects supplied by .provide():
 *    auto-selected officer, the submit actor's answer, upload progress, the 2 s
 *    copied hint on a clock, the draft kept after a failure, reset.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as v from 'valibot';
import { createActor, fromPromise, type AnyMachineSnapshot, type EventObject } from 'xstate';
import {
  buildSubmission,
  createReportMachine,
  firstInvalidStep,
  isSendEnabled,
  requiredSteps,
  reportSteps,
  stepValidity,
  type CompanyInfo,
  type ReportChannel,
  type ReportContext,
  type SubmissionProof,
  type SubmitOutcome,
  type SubmitReportInput,
  type SuccessData,
} from '../../machines/report.ts';
import { caseDtoSchema, reportedPersonSchema, submissionByPhoneDtoSchema } from '../../machines/schema.ts';
import { createModelTestModel, createTracingScope } from './harness.ts';
import { DERIVED, KEYS, ONE_OFFICER, PROOF, RESERVATION, SEALED_UPLOADS, SUCCESS, TWO_OFFICERS_WITH_SUBSIDIARIES, reportEvents, reportModel } from './report.kit.ts';
import type { CheckKeyLogInput, KeyCheckOutcome, SealOutcome, SealReportInput, SealedUploadOutcome, UploadSealedInput } from '../../machines/report.ts';

const CHANNELS: ReportChannel[] = ['online', 'oral', 'meeting'];

const inEditing = (s: AnyMachineSnapshot) => s.matches({ editing: 'steps' });
const ctx = (s: AnyMachineSnapshot) => s.context as ReportContext;

/** Event types whose guard said no somewhere along the walked paths. */
const refusals = new Set<string>();
const REFUSABLE = ['person.add', 'identity.change', 'phone.change', 'notification.toggle', 'follow.choose'];

function checkInvariants(channel: ReportChannel, prev: AnyMachineSnapshot, event: EventObject, next: AnyMachineSnapshot) {
  const c = ctx(next);
  const d = c.draft;
  // Oral and meeting: follow is fixed on.
  if (channel !== 'online') expect(d.follow).toBe(true);
  // Notification forces follow.
  if (d.whistleblower.notification) expect(d.follow).toBe(true);
  // Send is enabled exactly when spec §4 says (and only while editing).
  if (inEditing(next)) expect(next.can({ type: 'report.submit' })).toBe(isSendEnabled(d));
  else expect(next.can({ type: 'report.submit' })).toBe(false);

  if (event.type === 'report.submit' && inEditing(prev)) {
    const invalid = firstInvalidStep(ctx(prev));
    if (!isSendEnabled(ctx(prev).draft)) expect(next.value).toEqual(prev.value);
    else if (invalid) {
      expect(next.matches('showingValidation')).toBe(true);
      expect(next.hasTag('validationDialog')).toBe(true);
      expect(c.firstInvalidStep).toBe(invalid);
    } else {
      expect(next.matches('sending')).toBe(true);
      // What goes to the server passes the server's own schema.
      const submission = buildSubmission(c);
      const schema = channel === 'online' ? caseDtoSchema : submissionByPhoneDtoSchema;
      const parsed = v.safeParse(schema, submission.dto);
      expect(parsed.success, JSON.stringify(parsed.issues?.[0]?.message)).toBe(true);
      expect(next.hasTag('busy')).toBe(true);
    }
  }
  // A discard confirmation opens only when there is data to drop.
  if (next.hasTag('discardDialog') && !prev.hasTag('discardDialog')) {
    const pd = ctx(prev).draft;
    if (event.type === 'concerns.choose') {
      expect(pd.reportedPersons.length + pd.personInput.name.length + pd.personInput.jobTitle.length + pd.personInput.phoneOrEmail.length + pd.reportedUnit.trim().length).toBeGreaterThan(0);
    } else if (event.type === 'identity.choose') {
      const w = pd.whistleblower;
      expect(w.name + w.email + w.phone !== '' || w.notification).toBe(true);
    } else if (event.type === 'follow.choose') {
      expect(pd.password + pd.passwordConfirmation).not.toBe('');
      expect(pd.whistleblower.notification).toBe(false);
    } else throw new Error(`unexpected discard dialog after ${event.type}`);
    // The choice itself is not changed until the discard is confirmed.
    expect({ c: d.concerns, i: d.identity, f: d.follow }).toEqual({ c: pd.concerns, i: pd.identity, f: pd.follow });
  }
  if (event.type === 'discard.cancel' && prev.hasTag('discardDialog')) {
    expect(d).toEqual(ctx(prev).draft);
    expect(next.hasTag('discardDialog')).toBe(false);
  }
  if (event.type === 'discard.confirm' && prev.hasTag('discardDialog')) {
    const pd = ctx(prev).draft;
    if (pd.concerns !== d.concerns) {
      expect(d.reportedPersons).toEqual([]);
      expect(d.reportedUnit).toBe('');
    } else if (pd.identity !== d.identity) {
      expect(d.identity).toBe('anonymous');
      expect(d.whistleblower).toMatchObject({ name: '', email: '', phone: '', notification: false });
    } else {
      expect(d.follow).toBe(false);
      expect(d.password + d.passwordConfirmation).toBe('');
    }
  }
  // Guards whose false branch is "nothing happens": the draft stays as it was.
  if (inEditing(prev)) {
    const pd = ctx(prev).draft;
    const refused =
      (event.type === 'person.add' && !(pd.concerns === 'persons' && v.is(reportedPersonSchema, pd.personInput))) ||
      (['identity.change', 'phone.change', 'notification.toggle'].includes(event.type) && pd.identity !== 'reveal') ||
      (event.type === 'follow.choose' && (event as { value?: boolean }).value === false && pd.whistleblower.notification);
    if (refused) {
      expect(d).toEqual(pd);
      refusals.add(event.type);
    }
    // Spec §5: "Add person" is enabled once a name is typed; with fields missing it names them.
    if (event.type === 'person.add' && pd.concerns === 'persons') {
      const named = pd.personInput.name.trim() !== '';
      expect(prev.can({ type: 'person.add' })).toBe(named);
      if (named && !v.is(reportedPersonSchema, pd.personInput)) expect(c.personIncomplete).toBe(true);
    }
  }
  // A failure keeps the draft; a file the server refused leaves it, named, and nothing else does.
  if (next.matches({ failed: 'incomplete' }) || (next.matches('failed') && prev.matches('failed'))) expect(d).toEqual(ctx(prev).draft);
  if (next.matches({ failed: 'fileRefused' }) && !prev.matches('failed')) {
    const refused = (event as unknown as { output: { refusedFile: { index: number; name: string } } }).output.refusedFile;
    expect(d).toEqual({ ...ctx(prev).draft, files: ctx(prev).draft.files.filter((_, i) => i !== refused.index) });
    expect(c.refusedFiles).toEqual([refused.name]);
    expect(next.hasTag('fileRefused')).toBe(true);
  }
  // A request that never reached the server is told apart: the draft (complete) is kept, no file is dropped.
  if (next.matches({ failed: 'offline' }) && !prev.matches('failed')) {
    expect(d).toEqual(ctx(prev).draft);
    expect(next.hasTag('networkFailure')).toBe(true);
    expect(firstInvalidStep(c)).toBeNull();
  }
  // A rate-limit refusal keeps the draft too; success holds the server's answer.
  if (next.matches('rateLimited')) expect(d).toEqual(ctx(prev).draft);
  if (next.matches('succeeded')) expect(c.response?.caseDto.caseNumber).toMatch(/^\d{16}$/);
  // Closing the success dialog or resetting leaves a fresh draft.
  // Closing the success dialog only asks first: the case number is still there.
  if (prev.matches('succeeded') && event.type === 'dialog.close') {
    expect(next.matches({ succeeded: 'confirmingClose' })).toBe(true);
    expect(c.response).toEqual(ctx(prev).response);
  }
  if (prev.matches({ succeeded: 'confirmingClose' }) && event.type === 'close.cancel') {
    expect(next.matches({ succeeded: 'showing' })).toBe(true);
    expect(next.hasTag('successDialog')).toBe(true);
  }
  if ((event.type === 'form.reset' && !prev.matches('loadingCompany')) || (prev.matches({ succeeded: 'confirmingClose' }) && event.type === 'close.confirm')) {
    expect(next.matches({ editing: 'steps' })).toBe(true);
    expect(d.whistleblowerRelation + d.password + d.description).toBe('');
    expect(d.termsAccepted).toBe(false);
  }
}

describe.each(CHANNELS)('%s report: model paths', (channel) => {
  const model = reportModel(channel);
  const testModel = createModelTestModel(model);
  const paths = testModel.getShortestPaths();

  it('walks enough paths to reach every step state, dialog and outcome', () => {
    const reached = new Set<string>();
    for (const p of paths) for (const st of p.steps) for (const n of st.state._nodes) reached.add(n.id);
    for (const id of ['showingValidation', 'sending', 'sending.checkingKeys', 'sending.sealing', 'keysRefused', 'succeeded.copied', 'succeeded.confirmingClose', 'failed.incomplete', 'failed.fileRefused', 'failed.offline', 'companyUnavailable', 'editing.confirmingDiscard.identity']) {
      expect(reached, id).toContain(`${channel}Report.${id}`);
    }
    if (channel === 'online') {
      expect(reached).toContain('onlineReport.editing.confirmingDiscard.reportRelated');
      expect(reached).toContain('onlineReport.editing.confirmingDiscard.followReport');
      expect(reached).toContain('onlineReport.sending.uploading');
    }
  });

  it(`every path (${paths.length}) keeps the spec's invariants at every step`, () => {
    const { scope: sc } = createTracingScope();
    for (const path of paths) {
      let snapshot = model.machine.getInitialSnapshot(sc) as AnyMachineSnapshot;
      for (const step of path.steps.slice(1)) {
        const next = model.machine.transition(snapshot, step.event, sc) as AnyMachineSnapshot;
        expect(next.value, path.description).toEqual(step.state.value);
        checkInvariants(channel, snapshot, step.event, next);
        // The refused events never lie on a shortest path (they change nothing): try them here.
        for (const e of reportEvents(next)) {
          if (!REFUSABLE.includes(e.type)) continue;
          checkInvariants(channel, next, e, model.machine.transition(next, e, sc) as AnyMachineSnapshot);
        }
        snapshot = next;
      }
    }
  });

  it('takes the refusing branch of the guards too (incomplete person, identity not revealed, not-follow while notified)', () => {
    const expected = channel === 'online' ? ['follow.choose', 'identity.change', 'notification.toggle', 'person.add', 'phone.change'] : ['identity.change', 'notification.toggle', 'phone.change'];
    expect([...refusals].filter((t) => expected.includes(t)).sort()).toEqual(expected);
    refusals.clear();
  });
});

// ---- the machines as running actors, effects supplied with .provide() -------------

function run(
  channel: ReportChannel,
  company: CompanyInfo,
  submit: (input: SubmitReportInput) => Promise<SubmitOutcome>,
  proof: () => Promise<SubmissionProof> = async () => PROOF,
  sealed: {
    keys?: (input: CheckKeyLogInput) => Promise<KeyCheckOutcome>;
    seal?: (input: SealReportInput) => Promise<SealOutcome>;
    upload?: (input: UploadSealedInput) => Promise<SealedUploadOutcome>;
  } = {},
) {
  const copied: string[] = [];
  const navigations: string[] = [];
  const derivations: { caseNumber: string; password: string; salt: string }[] = [];
  const reserveProofs: Array<SubmissionProof | null> = [];
  const machine = reportModel(channel).machine.provide({
    actors: {
      loadCompanyInfo: fromPromise(async () => company),
      submitReport: fromPromise<SubmitOutcome, SubmitReportInput>(({ input }) => submit(input)),
      solveProofOfWork: fromPromise(() => proof()),
      reserveCase: fromPromise(async ({ input }: { input: { proof: SubmissionProof | null } }) => {
        reserveProofs.push(input.proof);
        return RESERVATION;
      }),
      deriveReporterKeys: fromPromise(async ({ input }: { input: { caseNumber: string; password: string; salt: string } }) => {
        derivations.push(input);
        return DERIVED;
      }),
      // Without a sealed company: the plain path, as before issue 37.
      checkKeyLog: fromPromise<KeyCheckOutcome, CheckKeyLogInput>(({ input }) => (sealed.keys ? sealed.keys(input) : Promise.resolve({ plain: true }))),
      sealReport: fromPromise<SealOutcome, SealReportInput>(({ input }) => (sealed.seal ? sealed.seal(input) : Promise.resolve(null))),
      uploadSealedFiles: fromPromise<SealedUploadOutcome, UploadSealedInput>(({ input }) => (sealed.upload ? sealed.upload(input) : Promise.resolve(null))),
    },
    actions: {
      copyCaseNumber: (_, params: { caseNumber: string }) => void copied.push(params.caseNumber),
      goToFrontPage: () => void navigations.push('/'),
      goToLogin: (_, params: { caseNumber: string }) => void navigations.push(`/private/status (${params.caseNumber})`),
      goToErrorPage: () => void navigations.push('/something-went-wrong'),
    },
  });
  const actor = createActor(machine).start();
  return { actor, copied, navigations, derivations, reserveProofs };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function fillOnline(send: (e: any) => void) {
  send({ type: 'officer.select', id: 'po-2' });
  send({ type: 'subsidiary.select', id: 'sub-1' });
  send({ type: 'relation.change', value: 'Accountant' });
  send({ type: 'description.change', value: 'Invoices were forged in March.' });
  send({ type: 'violation.select', value: 'FORGERY' });
  send({ type: 'repeated.choose', value: true });
  send({ type: 'concerns.choose', value: 'persons' });
  send({ type: 'person.change', field: 'name', value: 'Per Hansen' });
  send({ type: 'person.change', field: 'jobTitle', value: 'CFO' });
  send({ type: 'person.change', field: 'phoneOrEmail', value: '+4512345678' });
  send({ type: 'person.add' });
  send({ type: 'identity.choose', value: 'anonymous' });
  send({ type: 'follow.choose', value: true });
  send({ type: 'password.change', value: 'hemmelig' });
  send({ type: 'passwordConfirmation.change', value: 'hemmelig' });
  send({ type: 'terms.toggle', value: true });
}

describe('report machines as actors', () => {
  beforeEach(() => vi.useRealTimers());
  afterEach(() => vi.useRealTimers());

  it('steps: 7 or 8 online, 4 or 5 oral and meeting; required steps per channel', () => {
    expect(reportSteps('online', false)).toHaveLength(7);
    expect(reportSteps('online', true)).toHaveLength(8);
    expect(reportSteps('oral', false)).toHaveLength(4);
    expect(reportSteps('meeting', true)).toHaveLength(5);
    expect(requiredSteps('oral')).not.toContain('describeProblem');
    expect(requiredSteps('meeting')).not.toContain('reportRelated');
  });

  it('auto-selects the only protection officer, and only then', async () => {
    const one = run('online', ONE_OFFICER, async () => null);
    await tick();
    expect(one.actor.getSnapshot().context.draft.protectionOfficer).toBe('po-9');
    expect(stepValidity(one.actor.getSnapshot().context).protectionOfficer).toBe(true);
    const two = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => null);
    await tick();
    expect(two.actor.getSnapshot().context.draft.protectionOfficer).toBeNull();
    expect(stepValidity(two.actor.getSnapshot().context).protectionOfficer).toBe(false);
  });

  it('opens at once with the company info in its input, and asks nobody for it', () => {
    let asked = 0;
    const machine = reportModel('online').machine.provide({
      actors: {
        loadCompanyInfo: fromPromise(async () => {
          asked++;
          return TWO_OFFICERS_WITH_SUBSIDIARIES;
        }),
        solveProofOfWork: fromPromise(async () => PROOF),
      },
    });
    const actor = createActor(machine, { input: { company: TWO_OFFICERS_WITH_SUBSIDIARIES } }).start();
    // Synchronously, before any promise could settle: the form's steps are there.
    const s = actor.getSnapshot();
    expect(s.matches({ editing: 'steps' })).toBe(true);
    expect(s.context.company).toEqual(TWO_OFFICERS_WITH_SUBSIDIARIES);
    expect(s.context.draft.protectionOfficer).toBeNull();
    expect(asked).toBe(0);
    actor.stop();
    // A lone officer is chosen for the reporter from the input too (spec §4).
    const lone = createActor(machine, { input: { company: ONE_OFFICER } }).start();
    expect(lone.getSnapshot().context.draft.protectionOfficer).toBe('po-9');
    lone.stop();
    // Without it (or with none known yet) the chart loads it, as before.
    for (const input of [undefined, { company: null }]) {
      const waiting = createActor(machine, { input }).start();
      expect(waiting.getSnapshot().matches('loadingCompany')).toBe(true);
      waiting.stop();
    }
  });

  it('company info failure goes to the error page', async () => {
    const machine = reportModel('online').machine.provide({
      actors: { loadCompanyInfo: fromPromise(async () => { throw new Error('500'); }) },
      actions: { goToErrorPage: () => void navigations.push('/something-went-wrong') },
    });
    const navigations: string[] = [];
    const actor = createActor(machine).start();
    await tick();
    expect(actor.getSnapshot().matches('companyUnavailable')).toBe(true);
    expect(navigations).toEqual(['/something-went-wrong']);
  });

  it('step rules: description length, repeated answer, reveal needs name and valid e-mail, phone only when given', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => null);
    await tick();
    const send = actor.send.bind(actor);
    const valid = () => stepValidity(actor.getSnapshot().context);
    send({ type: 'description.change', value: 'x'.repeat(201) });
    send({ type: 'repeated.choose', value: false });
    expect(valid().describeProblem).toBe(false);
    send({ type: 'description.change', value: 'x'.repeat(200) });
    expect(valid().describeProblem).toBe(true);
    send({ type: 'identity.choose', value: 'reveal' });
    send({ type: 'identity.change', field: 'name', value: 'Ida' });
    expect(valid().identity).toBe(false);
    send({ type: 'identity.change', field: 'email', value: 'not-an-email' });
    expect(valid().identity).toBe(false);
    send({ type: 'identity.change', field: 'email', value: 'ida@example.com' });
    expect(valid().identity).toBe(true);
    send({ type: 'phone.change', phone: '+45123', countryCode: 'dk', isValid: false });
    expect(valid().identity).toBe(false);
    send({ type: 'phone.change', phone: '+4512345678', countryCode: 'dk', isValid: true });
    expect(valid().identity).toBe(true);
    // Spec §5: validity comes from the phone input. "+1 (234) 567-8" has the shape of
    // E.164 but not the digits a US number needs: the input says so, and so does the step.
    send({ type: 'phone.change', phone: '+12345678', countryCode: 'us', isValid: false });
    expect(valid().identity).toBe(false);
    send({ type: 'phone.change', phone: '', countryCode: 'dk', isValid: false });
    expect(valid().identity).toBe(true);
    // Company needs a unit; a typed (not yet added) complete person counts.
    send({ type: 'concerns.choose', value: 'company' });
    expect(valid().reportRelated).toBe(false);
    send({ type: 'unit.change', value: 'Finance' });
    expect(valid().reportRelated).toBe(true);
    // Password: 4 characters and confirmed.
    send({ type: 'follow.choose', value: true });
    send({ type: 'terms.toggle', value: true });
    send({ type: 'password.change', value: 'abc' });
    send({ type: 'passwordConfirmation.change', value: 'abc' });
    expect(actor.getSnapshot().can({ type: 'report.submit' })).toBe(true);
    expect(valid().followReport).toBe(false);
    send({ type: 'passwordConfirmation.change', value: 'abcd' });
    expect(actor.getSnapshot().can({ type: 'report.submit' })).toBe(false);
  });

  it('at most five allowed files are kept, and the rest is counted for the notice', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => null);
    await tick();
    const f = (name: string, type = '') => ({ name, size: 10, type });
    actor.send({ type: 'files.add', files: [f('a.pdf'), f('evil.exe'), f('b.png', 'image/png'), f('c.txt', 'application/x-msdownload')] });
    expect(actor.getSnapshot().context.draft.files.map((x: { name: string }) => x.name)).toEqual(['a.pdf', 'b.png']);
    expect(actor.getSnapshot().context.droppedFiles).toBe(2);
    actor.send({ type: 'files.add', files: [f('1.pdf'), f('2.pdf'), f('3.pdf'), f('4.pdf')] });
    expect(actor.getSnapshot().context.draft.files).toHaveLength(5);
    expect(actor.getSnapshot().context.droppedFiles).toBe(1);
    actor.send({ type: 'file.remove', index: 0 });
    expect(actor.getSnapshot().context.draft.files.map((x: { name: string }) => x.name)).toEqual(['b.png', '1.pdf', '2.pdf', '3.pdf']);
  });

  it('"Add person" is enabled once a name is typed, and says which fields are still needed (spec §5)', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => null);
    await tick();
    actor.send({ type: 'concerns.choose', value: 'persons' });
    expect(actor.getSnapshot().can({ type: 'person.add' })).toBe(false);
    actor.send({ type: 'person.change', field: 'name', value: 'Per Hansen' });
    expect(actor.getSnapshot().can({ type: 'person.add' })).toBe(true);
    actor.send({ type: 'person.add' });
    expect(actor.getSnapshot().context.draft.reportedPersons).toEqual([]);
    expect(actor.getSnapshot().context.personIncomplete).toBe(true);
    actor.send({ type: 'person.change', field: 'jobTitle', value: 'CFO' });
    actor.send({ type: 'person.change', field: 'phoneOrEmail', value: 'per@example.com' });
    // A person typed but not added counts as given ("added or typed").
    expect(stepValidity(actor.getSnapshot().context).reportRelated).toBe(true);
    expect(buildSubmission(actor.getSnapshot().context).dto).toMatchObject({
      reportedPersons: [{ name: 'Per Hansen', jobTitle: 'CFO', phoneOrEmail: 'per@example.com' }],
    });
    actor.send({ type: 'person.add' });
    expect(actor.getSnapshot().context.draft.reportedPersons).toHaveLength(1);
    expect(actor.getSnapshot().context.personIncomplete).toBe(false);
  });

  it('a file whose content does not fit its type is refused at once, by name; the others are kept', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => null);
    await tick();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const pdf = new TextEncoder().encode('%PDF-1.7');
    actor.send({
      type: 'files.add',
      files: [
        { name: 'real.pdf', size: 8, type: 'application/pdf' },
        { name: 'fake.pdf', size: 8, type: 'application/pdf' },
      ],
      samples: [
        { bytes: pdf, complete: true },
        { bytes: png, complete: true },
      ],
    });
    expect(actor.getSnapshot().context.draft.files.map((x: { name: string }) => x.name)).toEqual(['real.pdf']);
    expect(actor.getSnapshot().context.refusedFiles).toEqual(['fake.pdf']);
    expect(actor.getSnapshot().context.droppedFiles).toBe(0);
  });

  it('a file the server still refuses is named and taken out; everything else is kept for the next send', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async (input) => ({
      refusedFile: { index: 1, name: input.submission.files[1]!.name },
    }));
    await tick();
    fillOnline(actor.send.bind(actor));
    const files = ['a.pdf', 'b.pdf', 'c.pdf'].map((name) => ({ name, size: 10, type: 'application/pdf' }));
    actor.send({ type: 'files.add', files });
    const before = actor.getSnapshot().context.draft;
    actor.send({ type: 'report.submit' });
    await tick();
    const s = actor.getSnapshot();
    expect(s.matches({ failed: 'fileRefused' })).toBe(true);
    expect(s.context.refusedFiles).toEqual(['b.pdf']);
    expect(s.context.draft).toEqual({ ...before, files: [files[0], files[2]] });
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
    expect(actor.getSnapshot().can({ type: 'report.submit' })).toBe(true);
  });

  it('online: sends the exact draft, reports upload progress, copies with a 2 s hint, and closing resets and goes home', async () => {
    let release!: (v: SuccessData | null) => void;
    let seen: SubmitReportInput | undefined;
    const { actor, copied, navigations } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, (input) => {
      seen = input;
      return new Promise((r) => (release = r));
    });
    await tick();
    fillOnline(actor.send.bind(actor));
    actor.send({ type: 'files.add', files: [{ name: 'a.pdf', size: 1000, type: 'application/pdf' }] });
    actor.send({ type: 'report.submit' });
    expect(actor.getSnapshot().matches('sending')).toBe(true);
    // Reserved and derived first (issue 37): the password goes into the derivation, never the request.
    await tick();
    await tick();
    await tick();
    expect(actor.getSnapshot().matches({ sending: 'submitting' })).toBe(true);
    expect(seen!.submission).toMatchObject({
      channel: 'online',
      dto: {
        protectionOfficer: { id: 'po-2' },
        subsidiary: 'sub-1',
        whistleblowerRelation: 'Accountant',
        description: 'Invoices were forged in March.',
        violation: 'FORGERY',
        repeatedViolations: true,
        reportedPersons: [{ name: 'Per Hansen', jobTitle: 'CFO', phoneOrEmail: '+4512345678' }],
        reportedUnit: null,
        whistleblower: null,
        caseAccount: { follow: true, reservation: RESERVATION.reservation, verifier: DERIVED.verifier, kdf: DERIVED.kdf },
      },
    });
    expect(seen!.submission.files.map((f) => f.name)).toEqual(['a.pdf']);
    seen!.reportProgress({ type: 'upload.progress', index: 0, loaded: 400, total: 1000 });
    expect(actor.getSnapshot().context.progress).toEqual([{ loaded: 400, total: 1000, bytesPerSecond: null, secondsLeft: null, retrying: false }]);
    // The effect's measured speed and time left, and its retrying notice, reach the view.
    seen!.reportProgress({ type: 'upload.progress', index: 0, loaded: 600, total: 1000, bytesPerSecond: 200, secondsLeft: 2 });
    expect(actor.getSnapshot().context.progress).toEqual([{ loaded: 600, total: 1000, bytesPerSecond: 200, secondsLeft: 2, retrying: false }]);
    seen!.reportProgress({ type: 'upload.progress', index: 0, loaded: 600, total: 1000, bytesPerSecond: null, secondsLeft: null, retrying: true });
    expect(actor.getSnapshot().context.progress[0]!.retrying).toBe(true);
    vi.useFakeTimers();
    release(SUCCESS);
    await vi.advanceTimersByTimeAsync(0);
    expect(actor.getSnapshot().matches({ succeeded: 'showing' })).toBe(true);
    actor.send({ type: 'caseNumber.copy' });
    expect(copied).toEqual(['1234567890123456']);
    expect(actor.getSnapshot().hasTag('copied')).toBe(true);
    await vi.advanceTimersByTimeAsync(1999);
    expect(actor.getSnapshot().hasTag('copied')).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(actor.getSnapshot().hasTag('copied')).toBe(false);
    // Closing asks first; "back" keeps the number on screen.
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().hasTag('closeConfirmation')).toBe(true);
    expect(navigations).toEqual([]);
    actor.send({ type: 'close.cancel' });
    expect(actor.getSnapshot().matches({ succeeded: 'showing' })).toBe(true);
    expect(actor.getSnapshot().context.response?.caseDto.caseNumber).toBe('1234567890123456');
    actor.send({ type: 'dialog.close' });
    actor.send({ type: 'close.confirm' });
    expect(navigations).toEqual(['/']);
    expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
    expect(actor.getSnapshot().context.draft.description).toBe('');
    expect(actor.getSnapshot().context.response).toBeNull();
  });

  it('a request that never reached the server (offline) is its own outcome: not "complete the form", the draft kept', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => ({ networkFailure: true }));
    await tick();
    fillOnline(actor.send.bind(actor));
    const draft = actor.getSnapshot().context.draft;
    actor.send({ type: 'report.submit' });
    await tick();
    const s = actor.getSnapshot();
    expect(s.matches({ failed: 'offline' })).toBe(true);
    expect(s.hasTag('networkFailure')).toBe(true);
    expect(s.hasTag('failureDialog')).toBe(true);
    expect(s.context.draft).toEqual(draft);
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
    expect(actor.getSnapshot().context.draft).toEqual(draft);
  });

  it('a null answer shows the failure dialog and keeps the draft; closing it returns to the form', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => null);
    await tick();
    fillOnline(actor.send.bind(actor));
    const draft = actor.getSnapshot().context.draft;
    actor.send({ type: 'report.submit' });
    await tick();
    expect(actor.getSnapshot().hasTag('failureDialog')).toBe(true);
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
    expect(actor.getSnapshot().context.draft).toEqual(draft);
  });

  it('proof-of-work: solved while the reporter types, sent with the report, and a new one for each attempt', async () => {
    let solves = 0;
    const proofs: Array<SubmissionProof | null> = [];
    const { actor, reserveProofs } = run(
      'online',
      TWO_OFFICERS_WITH_SUBSIDIARIES,
      async (input) => {
        proofs.push(input.proof);
        return proofs.length === 1 ? null : SUCCESS;
      },
      async () => ({ ...PROOF, nonce: String(++solves) }),
    );
    await tick();
    // Solving starts when the form opens, before anything is typed.
    expect(solves).toBe(1);
    expect(actor.getSnapshot().context.proof?.nonce).toBe('1');
    fillOnline(actor.send.bind(actor));
    actor.send({ type: 'report.submit' });
    await tick();
    await tick();
    await tick();
    expect(solves).toBe(1);
    // A followed case: the proof goes to the reservation; the case's own the submit effect solves.
    expect(reserveProofs).toEqual([{ ...PROOF, nonce: '1' }]);
    expect(proofs).toEqual([null]);
    expect(actor.getSnapshot().hasTag('failureDialog')).toBe(true);
    // The proof was spent by the failed attempt: back in the form, the next one is solved.
    expect(actor.getSnapshot().context.proof).toBeNull();
    actor.send({ type: 'dialog.close' });
    await tick();
    expect(solves).toBe(2);
    actor.send({ type: 'report.submit' });
    await tick();
    await tick();
    await tick();
    expect(reserveProofs[1]).toEqual({ ...PROOF, nonce: '2' });
    expect(actor.getSnapshot().matches('succeeded')).toBe(true);
  });

  it('proof-of-work: Send before the proof is ready waits for it, then sends; a proof that cannot be had is a failure that keeps the draft', async () => {
    let resolveProof!: (p: SubmissionProof) => void;
    let sent = 0;
    const { actor } = run('oral', ONE_OFFICER, async () => (++sent, SUCCESS), () => new Promise((r) => (resolveProof = r)));
    await tick();
    actor.send({ type: 'relation.change', value: 'Supplier' });
    actor.send({ type: 'identity.choose', value: 'anonymous' });
    actor.send({ type: 'password.change', value: 'pass1' });
    actor.send({ type: 'passwordConfirmation.change', value: 'pass1' });
    actor.send({ type: 'terms.toggle', value: true });
    actor.send({ type: 'report.submit' });
    expect(actor.getSnapshot().matches({ sending: 'provingWork' })).toBe(true);
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    expect(sent).toBe(0);
    resolveProof(PROOF);
    await tick();
    await tick();
    expect(sent).toBe(1);
    expect(actor.getSnapshot().matches('succeeded')).toBe(true);

    const failing = run('oral', ONE_OFFICER, async () => SUCCESS, async () => {
      throw new Error('no challenge');
    });
    await tick();
    failing.actor.send({ type: 'relation.change', value: 'Supplier' });
    failing.actor.send({ type: 'identity.choose', value: 'anonymous' });
    failing.actor.send({ type: 'password.change', value: 'pass1' });
    failing.actor.send({ type: 'passwordConfirmation.change', value: 'pass1' });
    failing.actor.send({ type: 'terms.toggle', value: true });
    const draft = failing.actor.getSnapshot().context.draft;
    failing.actor.send({ type: 'report.submit' });
    await tick();
    expect(failing.actor.getSnapshot().hasTag('failureDialog')).toBe(true);
    expect(failing.actor.getSnapshot().context.draft).toEqual(draft);
  });

  it('a rate-limit refusal shows its own dialog with the wait, keeps the draft, and closing returns to the form', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => ({ rateLimited: { retryAfterSeconds: 600 } }));
    await tick();
    fillOnline(actor.send.bind(actor));
    const draft = actor.getSnapshot().context.draft;
    actor.send({ type: 'report.submit' });
    await tick();
    expect(actor.getSnapshot().hasTag('rateLimitDialog')).toBe(true);
    expect(actor.getSnapshot().hasTag('failureDialog')).toBe(false);
    expect(actor.getSnapshot().context.retryAfterSeconds).toBe(600);
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
    expect(actor.getSnapshot().context.draft).toEqual(draft);
  });

  it('oral and meeting: follow fixed on, send the phone DTO; login.start resets and goes to sign-in', async () => {
    for (const channel of ['oral', 'meeting'] as const) {
      let seen: SubmitReportInput | undefined;
      const { actor, navigations, derivations } = run(channel, ONE_OFFICER, async (input) => {
        seen = input;
        return SUCCESS;
      });
      await tick();
      actor.send({ type: 'relation.change', value: 'Supplier' });
      actor.send({ type: 'identity.choose', value: 'reveal' });
      actor.send({ type: 'identity.change', field: 'name', value: 'Ida Jensen' });
      actor.send({ type: 'identity.change', field: 'email', value: 'ida@example.com' });
      actor.send({ type: 'follow.choose', value: false } as any);
      expect(actor.getSnapshot().context.draft.follow).toBe(true);
      actor.send({ type: 'terms.toggle', value: true });
      actor.send({ type: 'report.submit' });
      expect(actor.getSnapshot().matches('showingValidation')).toBe(false); // send disabled: no password yet
      actor.send({ type: 'password.change', value: 'pass1' });
      actor.send({ type: 'passwordConfirmation.change', value: 'pass1' });
      actor.send({ type: 'report.submit' });
      await tick();
      await tick();
      await tick();
      await tick();
      expect(derivations).toEqual([{ caseNumber: RESERVATION.caseNumber, password: 'pass1', salt: RESERVATION.salt }]);
      expect(seen!.submission).toEqual({
        channel,
        files: [],
        dto: {
          whistleblowerRelation: 'Supplier',
          subsidiary: null,
          protectionOfficer: { id: 'po-9' },
          whistleblower: { name: 'Ida Jensen', email: 'ida@example.com', phone: null, phoneCountryCode: null, notification: false },
          creationChannel: 'BY_PHONE',
          caseAccount: { follow: true, reservation: RESERVATION.reservation, verifier: DERIVED.verifier, kdf: DERIVED.kdf },
        },
      });
      expect(actor.getSnapshot().matches('succeeded')).toBe(true);
      actor.send({ type: 'login.start' });
      // The effect gets the number just shown, before the draft and the answer are reset.
      expect(navigations).toEqual([`/private/status (${SUCCESS.caseDto.caseNumber})`]);
      expect(actor.getSnapshot().context.response).toBeNull();
      expect(actor.getSnapshot().context.draft.whistleblowerRelation).toBe('');
    }
  });

  it('validation: opens on an invalid step and names the first one; closing returns to the same form', async () => {
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => SUCCESS);
    await tick();
    fillOnline(actor.send.bind(actor));
    actor.send({ type: 'relation.change', value: '   ' });
    actor.send({ type: 'identity.choose', value: 'reveal' });
    actor.send({ type: 'report.submit' });
    expect(actor.getSnapshot().hasTag('validationDialog')).toBe(true);
    expect(actor.getSnapshot().context.firstInvalidStep).toBe('relation');
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
    expect(actor.getSnapshot().context.draft.identity).toBe('reveal');
  });
});

// ---- sealing in the browser (issue 37) ------------------------------------------------

describe('online report: sealing', () => {
  const settle = async () => {
    for (let i = 0; i < 8; i++) await tick();
  };
  const calls = () => {
    const plain: SubmitReportInput[] = [];
    const checks: CheckKeyLogInput[] = [];
    const seals: SealReportInput[] = [];
    return { plain, checks, seals };
  };

  it('a followed report without files: reserved, derived, the log checked, sealed with the reporter key; nothing goes plain', async () => {
    const c = calls();
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async (i) => (c.plain.push(i), SUCCESS), undefined, {
      keys: async (i) => (c.checks.push(i), KEYS),
      seal: async (i) => (c.seals.push(i), SUCCESS),
    });
    await tick();
    fillOnline(actor.send.bind(actor));
    actor.send({ type: 'report.submit' });
    await settle();
    expect(actor.getSnapshot().matches('succeeded')).toBe(true);
    expect(c.plain).toEqual([]);
    expect(c.checks).toEqual([{ officerId: 'po-2' }]);
    expect(c.seals).toHaveLength(1);
    expect(c.seals[0]).toMatchObject({ recipients: 'verified-recipients', reporterKey: 'reporter-key', resealed: false, proof: null });
    expect(c.seals[0]!.submission.dto.caseAccount).toEqual({ follow: true, reservation: RESERVATION.reservation, verifier: DERIVED.verifier, kdf: DERIVED.kdf });
    expect(c.seals[0]!.submission.dto).toMatchObject({ description: 'Invoices were forged in March.' });
    // The keys and the reporter key go with the send.
    expect(actor.getSnapshot().context.recipients).toBeNull();
    expect(actor.getSnapshot().context.derived).toBeNull();
  });

  it('an unfollowed report: the background proof pays, no reporter key is wrapped', async () => {
    const c = calls();
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => SUCCESS, undefined, { keys: async () => KEYS, seal: async (i) => (c.seals.push(i), SUCCESS) });
    await tick();
    fillOnline(actor.send.bind(actor));
    actor.send({ type: 'follow.choose', value: false });
    actor.send({ type: 'discard.confirm' });
    actor.send({ type: 'report.submit' });
    await settle();
    expect(actor.getSnapshot().matches('succeeded')).toBe(true);
    expect(c.seals[0]).toMatchObject({ reporterKey: null, proof: PROOF });
    expect(c.seals[0]!.submission.dto.caseAccount.follow).toBe(false);
  });

  it('a log that does not verify: nothing is sent, the reason is kept for the dialog, the whole draft stays', async () => {
    for (const reason of ['signature', 'anchor', 'fork', 'no-keys', 'invalid'] as const) {
      const c = calls();
      const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async (i) => (c.plain.push(i), SUCCESS), undefined, {
        keys: async () => ({ refused: reason }),
        seal: async (i) => (c.seals.push(i), SUCCESS),
      });
      await tick();
      fillOnline(actor.send.bind(actor));
      const draft = actor.getSnapshot().context.draft;
      actor.send({ type: 'report.submit' });
      await settle();
      expect(actor.getSnapshot().matches('keysRefused')).toBe(true);
      expect(actor.getSnapshot().hasTag('keysRefusedDialog')).toBe(true);
      expect(actor.getSnapshot().context.keyRefusal).toBe(reason);
      expect(c.plain).toEqual([]);
      expect(c.seals).toEqual([]);
      actor.send({ type: 'dialog.close' });
      expect(actor.getSnapshot().matches({ editing: 'steps' })).toBe(true);
      expect(actor.getSnapshot().context.draft).toEqual(draft);
    }
  });

  it("WRAP_MISSING: the log is read and the report sealed once more, paid by a fresh proof; a second one fails and keeps the draft", async () => {
    const c = calls();
    let answers: SealOutcome[] = [{ wrapMissing: true }, SUCCESS];
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => SUCCESS, undefined, {
      keys: async (i) => (c.checks.push(i), KEYS),
      seal: async (i) => (c.seals.push(i), answers.shift()!),
    });
    await tick();
    fillOnline(actor.send.bind(actor));
    actor.send({ type: 'report.submit' });
    await settle();
    expect(actor.getSnapshot().matches('succeeded')).toBe(true);
    expect(c.checks).toHaveLength(2);
    expect(c.seals.map((x) => x.resealed)).toEqual([false, true]);
    expect(c.seals[1]!.proof).toBeNull();

    const again = calls();
    answers = [{ wrapMissing: true }, { wrapMissing: true }, SUCCESS];
    const second = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => SUCCESS, undefined, {
      keys: async (i) => (again.checks.push(i), KEYS),
      seal: async (i) => (again.seals.push(i), answers.shift()!),
    });
    await tick();
    fillOnline(second.actor.send.bind(second.actor));
    const draft = second.actor.getSnapshot().context.draft;
    second.actor.send({ type: 'report.submit' });
    await settle();
    expect(second.actor.getSnapshot().matches('failed')).toBe(true);
    expect(again.seals).toHaveLength(2);
    expect(second.actor.getSnapshot().context.draft).toEqual(draft);
  });

  it('the plain path only for a company without sealed cases; files and notification are sealed too', async () => {
    // The company takes no sealed cases: the key log says so, the report goes as before, files and all.
    for (const withFiles of [false, true]) {
      const c = calls();
      const uploads: UploadSealedInput[] = [];
      const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async (i) => (c.plain.push(i), SUCCESS), undefined, {
        keys: async (i) => (c.checks.push(i), { plain: true }),
        seal: async (i) => (c.seals.push(i), SUCCESS),
        upload: async (i) => (uploads.push(i), SEALED_UPLOADS),
      });
      await tick();
      fillOnline(actor.send.bind(actor));
      if (withFiles) actor.send({ type: 'files.add', files: [{ name: 'a.pdf', size: 10, type: 'application/pdf' }] });
      actor.send({ type: 'report.submit' });
      await settle();
      expect(actor.getSnapshot().matches('succeeded')).toBe(true);
      expect([c.checks.length, c.plain.length, c.seals.length, uploads.length]).toEqual([1, 1, 0, 0]);
      expect(c.plain[0]!.submission.files).toHaveLength(withFiles ? 1 : 0);
    }

    // Notification on: the key log is read and the report sealed (the address goes sealed to the mail key, src/forms/seal.ts).
    const n = calls();
    const r = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async (i) => (n.plain.push(i), SUCCESS), undefined, {
      keys: async (i) => (n.checks.push(i), KEYS),
      seal: async (i) => (n.seals.push(i), SUCCESS),
    });
    await tick();
    fillOnline(r.actor.send.bind(r.actor));
    r.actor.send({ type: 'identity.choose', value: 'reveal' });
    r.actor.send({ type: 'identity.change', field: 'name', value: 'Ida Jensen' });
    r.actor.send({ type: 'identity.change', field: 'email', value: 'ida@example.com' });
    r.actor.send({ type: 'notification.toggle', value: true });
    r.actor.send({ type: 'report.submit' });
    await settle();
    expect(r.actor.getSnapshot().matches('succeeded')).toBe(true);
    expect([n.checks.length, n.plain.length, n.seals.length]).toEqual([1, 0, 1]);
    expect(n.seals[0]!.submission.dto.whistleblower).toMatchObject({ email: 'ida@example.com', notification: true });
  });

  it('files: sealed and uploaded in sending.uploading with progress, then the case names them; after WRAP_MISSING they are not uploaded again', async () => {
    const c = calls();
    const uploads: UploadSealedInput[] = [];
    let answers: SealOutcome[] = [{ wrapMissing: true }, SUCCESS];
    let release = () => {};
    const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async (i) => (c.plain.push(i), SUCCESS), undefined, {
      keys: async (i) => (c.checks.push(i), KEYS),
      seal: async (i) => (c.seals.push(i), answers.shift()!),
      upload: (i) => {
        uploads.push(i);
        return new Promise((resolve) => (release = () => resolve(SEALED_UPLOADS)));
      },
    });
    await tick();
    fillOnline(actor.send.bind(actor));
    const files = [{ name: 'a.pdf', size: 1000, type: 'application/pdf' }, { name: 'b.txt', size: 10, type: 'text/plain' }];
    actor.send({ type: 'files.add', files });
    actor.send({ type: 'report.submit' });
    await settle();
    expect(actor.getSnapshot().matches({ sending: 'uploading' })).toBe(true);
    expect(uploads[0]).toMatchObject({ files, recipients: 'verified-recipients', proof: null });
    uploads[0]!.reportProgress({ type: 'upload.progress', index: 0, loaded: 500, total: 1000 });
    expect(actor.getSnapshot().context.progress[0]).toMatchObject({ loaded: 500, total: 1000 });
    release();
    await settle();
    expect(actor.getSnapshot().matches('succeeded')).toBe(true);
    expect(uploads).toHaveLength(1);
    expect(c.checks).toHaveLength(2);
    expect(c.seals.map((x) => x.uploads)).toEqual(['sealed-uploads', 'sealed-uploads']);
    expect(c.seals[0]!.submission.files).toEqual(files);
    expect(c.plain).toEqual([]);
    expect(actor.getSnapshot().context.sealedUploads).toBeNull();

    // Unfollowed: the background proof pays the upload session, the case solves its own.
    answers = [SUCCESS];
    const u: UploadSealedInput[] = [];
    const seals: SealReportInput[] = [];
    const second = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => SUCCESS, undefined, { keys: async () => KEYS, seal: async (i) => (seals.push(i), answers.shift()!), upload: async (i) => (u.push(i), SEALED_UPLOADS) });
    await tick();
    fillOnline(second.actor.send.bind(second.actor));
    second.actor.send({ type: 'follow.choose', value: false });
    second.actor.send({ type: 'discard.confirm' });
    second.actor.send({ type: 'files.add', files });
    second.actor.send({ type: 'report.submit' });
    await settle();
    expect(second.actor.getSnapshot().matches('succeeded')).toBe(true);
    expect(u[0]!.proof).toEqual(PROOF);
    expect(seals[0]).toMatchObject({ proof: null, reporterKey: null, uploads: 'sealed-uploads' });
  });

  it('files: a file the browser refuses before sealing is named and left out; rate limits, no connection and failures keep the draft', async () => {
    const files = [{ name: 'a.pdf', size: 1000, type: 'application/pdf' }, { name: 'b.txt', size: 10, type: 'text/plain' }];
    const outcomes: [SealedUploadOutcome, string][] = [
      [{ refusedFile: { index: 0, name: 'a.pdf' } }, 'failed.fileRefused'],
      [{ rateLimited: { retryAfterSeconds: 30 } }, 'rateLimited'],
      [{ networkFailure: true }, 'failed.offline'],
      [null, 'failed.incomplete'],
    ];
    for (const [outcome, where] of outcomes) {
      const seals: SealReportInput[] = [];
      const { actor } = run('online', TWO_OFFICERS_WITH_SUBSIDIARIES, async () => SUCCESS, undefined, { keys: async () => KEYS, seal: async (i) => (seals.push(i), SUCCESS), upload: async () => outcome });
      await tick();
      fillOnline(actor.send.bind(actor));
      actor.send({ type: 'files.add', files });
      actor.send({ type: 'report.submit' });
      await settle();
      const snap = actor.getSnapshot();
      expect(snap.matches(where.includes('.') ? { failed: where.split('.')[1] } : where), where).toBe(true);
      expect(seals).toEqual([]);
      expect(snap.context.draft.files.map((f: { name: string }) => f.name)).toEqual(where === 'failed.fileRefused' ? ['b.txt'] : ['a.pdf', 'b.txt']);
      if (where === 'failed.fileRefused') expect(snap.context.refusedFiles).toEqual(['a.pdf']);
      if (where === 'rateLimited') expect(snap.context.retryAfterSeconds).toBe(30);
    }
  });

  it('oral and meeting reports seal like the online one: reserved, derived, the log checked, sealed; a refused log keeps the draft', async () => {
    for (const channel of ['oral', 'meeting'] as const) {
      const machine = createReportMachine(channel);
      expect(Object.keys(machine.root.states)).toContain('keysRefused');
      expect(Object.keys(machine.root.states.sending!.states)).toEqual(expect.arrayContaining(['checkingKeys', 'sealing']));
      expect(Object.keys(machine.root.states.sending!.states)).not.toContain('uploading');
      for (const keys of [KEYS, { refused: 'signature' } as KeyCheckOutcome]) {
        const c = calls();
        const { actor } = run(channel, TWO_OFFICERS_WITH_SUBSIDIARIES, async (i) => (c.plain.push(i), SUCCESS), undefined, { keys: async (i) => (c.checks.push(i), keys), seal: async (i) => (c.seals.push(i), SUCCESS) });
        await tick();
        actor.send({ type: 'officer.select', id: 'po-1' });
        actor.send({ type: 'relation.change', value: 'Employee' });
        actor.send({ type: 'identity.choose', value: 'anonymous' });
        actor.send({ type: 'password.change', value: 'hemmelig' });
        actor.send({ type: 'passwordConfirmation.change', value: 'hemmelig' });
        actor.send({ type: 'terms.toggle', value: true });
        actor.send({ type: 'report.submit' });
        await settle();
        expect(c.plain).toEqual([]);
        expect(c.checks).toEqual([{ officerId: 'po-1' }]);
        if (keys === KEYS) {
          expect(actor.getSnapshot().matches('succeeded')).toBe(true);
          expect(c.seals[0]).toMatchObject({ submission: { channel }, reporterKey: 'reporter-key', recipients: 'verified-recipients' });
          expect(c.seals[0]!.submission.dto.caseAccount).toEqual({ follow: true, reservation: RESERVATION.reservation, verifier: DERIVED.verifier, kdf: DERIVED.kdf });
        } else {
          expect(actor.getSnapshot().matches('keysRefused')).toBe(true);
          expect(c.seals).toEqual([]);
        }
      }
    }
  });
});

