/**
 * The three report channels' pages (spec §2): one stepped single page rendering the
 * channel's machine. The view reads snapshots and sends events; every effect (the
 * company info, the submit request, copying, navigation) is supplied to the machine
 * with .provide() here. Loaded lazily by the route files.
 */
import { useMemo, useRef } from 'react';
import { lazyModule, useLazyModule } from '../components/lazyModule.ts';
import { useNavigate } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise, waitFor } from 'xstate';
import '../i18n/forms/index.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { useApi, useLookAndFeelActor } from '../app/lookAndFeel.tsx';
import { LOGIN_PATH } from '../components/Frame.tsx';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import {
  createReportMachine,
  reportSteps,
  type CompanyInfo,
  type ReportChannel,
  type SubmissionProof,
  type SubmitReportInput,
} from '../../machines/report.ts';
import { submitReport } from './submit.ts';
import { solveProofOfWork } from './proof.ts';
import { ReportContext, useReport } from './context.ts';
import { ReportSteps } from './Steps.tsx';

// The confirmations (Radix Dialog and the dialog styles) are not on the form's first
// screen: loaded just after it, long before the first one can open.
const dialogsModule = lazyModule(() => import('./Dialogs.tsx'));
import * as styles from './ReportForm.css.ts';

export { useReport };

/** The machine with the browser's effects. */
export function useBrowserReportMachine(channel: ReportChannel) {
  const api = useApi();
  const lookAndFeel = useLookAndFeelActor();
  const navigate = useNavigate();
  // Read when the report is sent (the reporter may switch language while writing):
  // mails about the case are written in it.
  const current = useLanguage();
  const language = useRef(current);
  language.current = current;
  return useMemo(
    () =>
      createReportMachine(channel).provide({
        actors: {
          // The company info is loaded once by the look-and-feel actor; §8 failures are handled there.
          loadCompanyInfo: fromPromise<CompanyInfo>(async () => {
            const s = await waitFor(lookAndFeel, (x) => x.context.companyInfo !== null || x.hasTag('failed'), {
              timeout: Infinity,
            });
            if (!s.context.companyInfo) throw new Error('company info unavailable');
            return s.context.companyInfo;
          }),
          submitReport: fromPromise(({ input, signal }: { input: SubmitReportInput; signal: AbortSignal }) =>
            submitReport(api, window.location.hostname, input, signal, language.current),
          ),
          // Starts when the form opens; the worker solves while the reporter types.
          solveProofOfWork: fromPromise(({ input, signal }: { input: { proof: SubmissionProof | null }; signal: AbortSignal }) =>
            solveProofOfWork(api, input.proof, signal),
          ),
        },
        actions: {
          copyCaseNumber: (_, params: { caseNumber: string }) => {
            void navigator.clipboard?.writeText(params.caseNumber).catch(() => {});
          },
          goToFrontPage: () => void navigate({ to: '/' }),
          goToLogin: () => void navigate({ to: LOGIN_PATH as '/' }),
          goToErrorPage: () => void navigate({ to: '/something-went-wrong', replace: true }),
        },
      }),
    [channel, api, lookAndFeel, navigate],
  );
}

export function ReportProvider({ machine, children }: { machine: ReturnType<typeof createReportMachine>; children: React.ReactNode }) {
  const actor = useActorRef(machine);
  return <ReportContext value={actor}>{children}</ReportContext>;
}

export function ReportPage({ channel }: { channel: ReportChannel }) {
  const machine = useBrowserReportMachine(channel);
  return (
    <ReportProvider machine={machine}>
      <ReportView />
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
  const dialogs = useLazyModule(dialogsModule);
  return (
    <Page>
      <PageTitle title={t(`forms.${channel}.title`)}>
        <p className={styles.intro}>{t(`forms.${channel}.intro`, { max: steps.length })}</p>
      </PageTitle>
      {loading ? <p aria-busy="true">{t('forms.loading')}</p> : <ReportSteps steps={steps} />}
      {dialogs && <dialogs.ReportDialogs />}
    </Page>
  );
}

export const OnlineReportPage = () => <ReportPage channel="online" />;
export const OralReportPage = () => <ReportPage channel="oral" />;
export const MeetingReportPage = () => <ReportPage channel="meeting" />;
