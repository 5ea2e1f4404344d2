/**
 * The three report channels' pages (spec §2): one stepped single page rendering the
 * channel's machine. The view reads snapshots and sends events; every effect (the
 * company info, the submit request, copying, navigation) is supplied to the machine
 * with .provide() here. Loaded lazily by the route files.
 */
import { Suspense, useEffect, useMemo, useRef } from 'react';
import { FormLoading } from '../components/FormLoading.tsx';
import { lazyModule, useLazyModule } from '../components/lazyModule.ts';
import { useNavigate } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise, waitFor } from 'xstate';
import '../i18n/forms/index.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { useApi, useDrawingPicture, useLookAndFeelActor } from '../app/lookAndFeel.tsx';
import { LOGIN_PATH } from '../components/Frame.tsx';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import {
  createReportMachine,
  reportSteps,
  type CompanyInfo,
  type ReportChannel,
  type CheckKeyLogInput,
  type ReportInput,
  type SealReportInput,
  type SubmissionProof,
  type SubmitReportInput,
  type UploadSealedInput,
} from '../../machines/report.ts';
import { NETWORK_FAILURE, deriveForCase, reserveCase, submitReport } from './submit.ts';
import { loadRuntimeConfig } from '../api/config.ts';
import { handOverCaseNumber } from '../app/signinHandover.ts';
import { loadResumable, newUploadMemory } from '../uploads/memory.ts';
import { solveProofOfWork } from './proof.ts';
import type { SealedUploadMemory } from './sealFiles.ts';
import { ReportContext, useReport } from './context.ts';
import type { FileChecks } from '../metadata/checks.ts';
import { FileChecksContext, useFileChecksOwner } from '../metadata/context.tsx';
import { ReportSteps } from './Steps.tsx';

// The confirmations (Radix Dialog and the dialog styles) are not on the form's first
// screen: loaded just after it, long before the first one can open.
const dialogsModule = lazyModule(() => import('./Dialogs.tsx'));
import * as styles from './ReportForm.css.ts';

export { useReport };

// A channel's chart is the same for every form: built once, not on every mount (each
// build walks the whole state tree; `.provide` below builds the form's own copy).
const charts = new Map<ReportChannel, ReturnType<typeof createReportMachine>>();
function reportChart(channel: ReportChannel) {
  let chart = charts.get(channel);
  if (!chart) charts.set(channel, (chart = createReportMachine(channel)));
  return chart;
}

/** The sealing effects (issue 37), fetched once; a failed fetch is tried again at the next use. */
let sealModule: Promise<typeof import('./seal.ts')> | undefined;
function loadSeal() {
  return (sealModule ??= import('./seal.ts').catch((err: unknown) => {
    sealModule = undefined;
    throw err;
  }));
}

/** The sealed uploads' effects (tus and the file sealing), fetched at the first sealed send with files. */
let sealFilesModule: Promise<typeof import('./sealFiles.ts')> | undefined;
function loadSealFiles() {
  return (sealFilesModule ??= import('./sealFiles.ts').catch((err: unknown) => {
    sealFilesModule = undefined;
    throw err;
  }));
}

/**
 * The key log's anchor and head seen, for this page load only (src/forms/seal.ts says
 * why the device's storage keeps none of it).
 */
const keyLogSeen = new Map<string, string>();
const keyLogMemory = { getItem: (k: string) => keyLogSeen.get(k) ?? null, setItem: (k: string, v: string) => void keyLogSeen.set(k, v) };

/** The machine with the browser's effects. */
export function useBrowserReportMachine(channel: ReportChannel, checks?: FileChecks) {
  const api = useApi();
  const lookAndFeel = useLookAndFeelActor();
  const navigate = useNavigate();
  // Read when the report is sent (the reporter may switch language while writing):
  // mails about the case are written in it.
  const current = useLanguage();
  const language = useRef(current);
  language.current = current;
  return useMemo(() => {
    // This form's uploads, kept for a send that failed after them (in memory only).
    const uploads = newUploadMemory();
    // The same for a sealed case's files: the case id and data key they are sealed under, the session, each file's upload.
    const sealedUploads: SealedUploadMemory = { caseId: null, dataKey: null, session: null, files: new Map() };
    return reportChart(channel).provide({
        actors: {
          // The company info is loaded once by the look-and-feel actor; §8 failures are handled there.
          loadCompanyInfo: fromPromise<CompanyInfo>(async () => {
            const s = await waitFor(lookAndFeel, (x) => x.context.companyInfo !== null || x.hasTag('failed'), {
              timeout: Infinity,
            });
            if (!s.context.companyInfo) throw new Error('company info unavailable');
            return s.context.companyInfo;
          }),
          // Each file goes as its settled hidden-data check says: the cleaned copy, or
          // the original where nothing was found, nothing could be checked, or the
          // identified reporter chose it (docs/decisions/metadata-removal.md).
          submitReport: fromPromise(async ({ input, signal }: { input: SubmitReportInput; signal: AbortSignal }) => {
            const { submission } = input;
            const ready: SubmitReportInput =
              submission.channel === 'online' && checks
                ? { ...input, submission: { ...submission, files: (await checks.resolve(submission.files)) as typeof submission.files } }
                : input;
            return submitReport(api, window.location.hostname, ready, signal, language.current, uploads);
          }),
          // Starts when the form opens; the worker solves while the reporter types.
          solveProofOfWork: fromPromise(({ input, signal }: { input: { proof: SubmissionProof | null }; signal: AbortSignal }) =>
            solveProofOfWork(api, input.proof, signal),
          ),
          // A followed case: number and salt first, then the verifier derived here (issue 37).
          reserveCase: fromPromise(({ input, signal }: { input: { proof: SubmissionProof | null }; signal: AbortSignal }) =>
            reserveCase(api, window.location.hostname, input.proof, signal),
          ),
          deriveReporterKeys: fromPromise(({ input }: { input: { caseNumber: string; password: string; salt: string } }) => deriveForCase(input)),
          // A company that takes sealed cases: the key log verified here, the report sealed here (issue 37).
          // The effects' module comes just after the form's first screen; if it still cannot
          // be fetched at Send, the portal did not answer: the draft is kept as for any lost connection.
          checkKeyLog: fromPromise(async ({ input, signal }: { input: CheckKeyLogInput; signal: AbortSignal }) => {
            const seal = await loadSeal().catch(() => null);
            return seal ? seal.checkKeyLog(api, window.location.hostname, input.officerId, keyLogMemory, signal) : NETWORK_FAILURE;
          }),
          sealReport: fromPromise(async ({ input, signal }: { input: SealReportInput; signal: AbortSignal }) =>
            (await loadSeal()).sealReport(api, window.location.hostname, input, signal, language.current, sealedUploads),
          ),
          // A sealed case's files: each as its hidden-data check settled (as on the plain path), then checked, sealed and uploaded here.
          uploadSealedFiles: fromPromise(async ({ input, signal }: { input: UploadSealedInput; signal: AbortSignal }) => {
            const files = checks ? ((await checks.resolve(input.files)) as typeof input.files) : input.files;
            const module = await loadSealFiles().catch(() => null);
            if (!module) return NETWORK_FAILURE;
            return module.uploadSealedFiles(api, window.location.hostname, { files, keys: input.files, proof: input.proof, reportProgress: input.reportProgress }, signal, sealedUploads);
          }),
        },
        actions: {
          copyCaseNumber: (_, params: { caseNumber: string }) => {
            void navigator.clipboard?.writeText(params.caseNumber).catch(() => {});
          },
          goToFrontPage: () => void navigate({ to: '/' }),
          // The number just shown goes to the provider's sign-in page on this origin, in
          // this tab's sessionStorage only (src/app/signinHandover.ts); then sign-in.
          goToLogin: (_, params: { caseNumber: string }) => {
            void loadRuntimeConfig()
              .then((config) => handOverCaseNumber(params.caseNumber, config.idSettings?.authority))
              .catch(() => false)
              .finally(() => void navigate({ to: LOGIN_PATH as '/' }));
          },
          goToErrorPage: () => void navigate({ to: '/something-went-wrong', replace: true }),
        },
      });
  }, [channel, api, lookAndFeel, navigate, checks]);
}

export function ReportProvider({
  machine,
  input,
  checks,
  children,
}: {
  machine: ReturnType<typeof createReportMachine>;
  input?: ReportInput;
  checks?: FileChecks;
  children: React.ReactNode;
}) {
  const actor = useActorRef(machine, { input });
  return (
    <ReportContext value={actor}>
      <FileChecksContext value={checks ?? null}>
        {checks && <FileChecksSync checks={checks} />}
        {children}
      </FileChecksContext>
    </ReportContext>
  );
}

/** Keeps the checks in step with the draft: the attached files, and whether the reporter reveals who they are. */
function FileChecksSync({ checks }: { checks: FileChecks }) {
  const actor = useReport();
  const files = useSelector(actor, (s) => s.context.draft.files);
  const identified = useSelector(actor, (s) => s.context.draft.identity === 'reveal');
  useEffect(() => checks.keepOnly(files), [checks, files]);
  useEffect(() => checks.setIdentified(identified), [checks, identified]);
  return null;
}

export function ReportPage({ channel }: { channel: ReportChannel }) {
  const checks = useFileChecksOwner();
  const machine = useBrowserReportMachine(channel, checks);
  // The company info usually came in the page's head: the form then opens with its
  // steps in the first render (machines/report.ts, `hasCompanyInfo`). The server's
  // picture of the page shows the form loading instead: all seven steps in it cost a
  // slow phone's first paint about 200 ms and look like a form that answers no tap
  // (performance.md, fourteenth round).
  const lookAndFeel = useLookAndFeelActor();
  const drawingPicture = useDrawingPicture();
  const input = useMemo(() => (drawingPicture ? undefined : { company: lookAndFeel.getSnapshot().context.companyInfo }), [lookAndFeel, drawingPicture]);
  // The upload client is not on the form's first screen: fetched just after it.
  useEffect(() => {
    void loadResumable().catch(() => undefined);
    // So is the sealing step's (issue 37): in memory before Send, whatever the connection does then.
    void loadSeal().catch(() => undefined);
  }, []);
  return (
    <ReportProvider machine={machine} input={input} checks={checks}>
      {/* The form's catalogue may still be on its way: say so rather than show nothing. */}
      <Suspense fallback={<FormLoading />}>
        <ReportView />
      </Suspense>
    </ReportProvider>
  );
}

export function ReportView() {
  const t = useT('forms');
  const actor = useReport();
  const channel = useSelector(actor, (s) => s.context.channel);
  const loading = useSelector(actor, (s) => s.matches('loadingCompany'));
  const hasSubsidiaries = useSelector(actor, (s) => s.context.company.subsidiaries.length > 0);
  const steps = reportSteps(channel, hasSubsidiaries);
  return (
    <Page>
      <PageTitle title={t(`forms.${channel}.title`)}>
        <p className={styles.intro}>{t(`forms.${channel}.intro`, { max: steps.length })}</p>
      </PageTitle>
      {loading ? <p aria-busy="true">{t('forms.loading')}</p> : <ReportSteps steps={steps} />}
      <LazyReportDialogs />
    </Page>
  );
}

/** The dialogs once their module is there; its arrival re-renders this alone, not the form. */
function LazyReportDialogs() {
  const dialogs = useLazyModule(dialogsModule);
  return dialogs ? <dialogs.ReportDialogs /> : null;
}

export const OnlineReportPage = () => <ReportPage channel="online" />;
export const OralReportPage = () => <ReportPage channel="oral" />;
export const MeetingReportPage = () => <ReportPage channel="meeting" />;
