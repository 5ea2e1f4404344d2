/**
 * The report dialogs (spec §2 "Dialogs", §4, §8): each is open exactly while the
 * machine is in its state, so they are controlled Radix dialogs whose only way out
 * is an event. Confirmations and errors use role="alertdialog".
 */
import { Suspense, type ReactNode } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import { useSelector } from '@xstate/react';
import { useT } from '../i18n/index.ts';
import '../i18n/sealing/index.ts';
import { formatCaseNumber } from '../../machines/schema.ts';
import type { ReportEvent } from '../../machines/report.ts';
import { useReport } from './context.ts';
import { useReturnFocus } from '../components/returnFocus.ts';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { TelLink } from '../components/TelLink.tsx';
import { stepHeadingId } from './Steps.tsx';
import * as styles from './ReportForm.css.ts';
import * as buttons from '../styles/button.css.ts';
import * as dialogs from '../styles/dialog.css.ts';

function ReportDialog(props: {
  open: boolean;
  alert?: boolean;
  title: string;
  /** The event that Escape sends; none: Escape does nothing. */
  onEscape?: ReportEvent;
  onCloseFocus?: () => boolean;
  /**
   * The body, drawn only while the dialog is open: a closed dialog formats none of
   * its messages (the rate limit's plural alone cost the form's first load ≈ 40 ms of
   * Intl set-up on a slow phone, performance.md, tenth round).
   */
  children: () => ReactNode;
}) {
  const actor = useReport();
  const focus = useReturnFocus(props.onCloseFocus);
  return (
    <Dialog.Root open={props.open}>
      <Dialog.Portal>
        <Dialog.Overlay className={dialogs.overlay} />
        <Dialog.Content
          className={dialogs.dialog}
          role={props.alert ? 'alertdialog' : 'dialog'}
          onEscapeKeyDown={(e) => {
            e.preventDefault();
            if (props.onEscape) actor.send(props.onEscape);
          }}
          onPointerDownOutside={(e) => e.preventDefault()}
          onInteractOutside={(e) => e.preventDefault()}
          onOpenAutoFocus={focus.onOpenAutoFocus}
          onCloseAutoFocus={focus.onCloseAutoFocus}
        >
          <Dialog.Title className={dialogs.dialogTitle}>{props.title}</Dialog.Title>
          <DialogBody render={props.children} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function DialogBody({ render }: { render: () => ReactNode }) {
  return render();
}

/** Spec §4: after the validation dialog the page goes to the first invalid step. */
function focusStep(step: string | null): boolean {
  if (!step) return false;
  const heading = document.getElementById(stepHeadingId(step as never));
  if (!heading) return false;
  heading.focus({ preventScroll: true });
  heading.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
  return true;
}

export function ReportDialogs() {
  const t = useT('forms');
  const actor = useReport();
  const validation = useSelector(actor, (s) => s.hasTag('validationDialog'));
  const discard = useSelector(actor, (s) => s.hasTag('discardDialog'));
  const failure = useSelector(actor, (s) => s.hasTag('failureDialog'));
  const rateLimited = useSelector(actor, (s) => s.hasTag('rateLimitDialog'));
  const keysRefused = useSelector(actor, (s) => s.hasTag('keysRefusedDialog'));
  const waitMinutes = useSelector(actor, (s) => Math.max(1, Math.ceil((s.context.retryAfterSeconds ?? 60) / 60)));
  const refusedFile = useSelector(actor, (s) => (s.hasTag('fileRefused') ? (s.context.refusedFiles[0] ?? '') : null));
  // No answer at all: offline when the browser says so, else the portal did not answer.
  const noAnswer = useSelector(actor, (s) => s.hasTag('networkFailure'));
  const offline = noAnswer && typeof navigator !== 'undefined' && navigator.onLine === false;
  const firstInvalid = useSelector(actor, (s) => s.context.firstInvalidStep);
  return (
    <>
      <ReportDialog
        open={validation}
        alert
        title={t('dialog.validation.title')}
        onEscape={{ type: 'dialog.close' }}
        onCloseFocus={() => focusStep(firstInvalid)}
      >
        {() => (
          <>
            <Dialog.Description>{t('dialog.validation.text')}</Dialog.Description>
            <div className={styles.actions}>
              <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'dialog.close' })}>
                {t('dialog.validation.ok')}
              </button>
            </div>
          </>
        )}
      </ReportDialog>
      <ReportDialog open={discard} alert title={t('dialog.discard.title')} onEscape={{ type: 'discard.cancel' }}>
        {() => (
          <>
            <Dialog.Description>{t('dialog.discard.text')}</Dialog.Description>
            <div className={styles.actions}>
              <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'discard.confirm' })}>
                {t('dialog.discard.continue')}
              </button>
              <button type="button" className={buttons.secondaryButton} onClick={() => actor.send({ type: 'discard.cancel' })}>
                {t('dialog.discard.back')}
              </button>
            </div>
          </>
        )}
      </ReportDialog>
      <ReportDialog open={failure} alert title={t(offline ? 'forms.failure.offline.title' : 'dialog.failure.title')} onEscape={{ type: 'dialog.close' }}>
        {() => (
          <>
            <Dialog.Description>
              {refusedFile !== null
                ? t('forms.failure.fileRefused', { name: refusedFile })
                : offline
                  ? t('forms.failure.offline.text')
                  : noAnswer
                    ? t('forms.failure.unreachable.text')
                    : t('dialog.failure.text')}
            </Dialog.Description>
            <div className={styles.actions}>
              <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'dialog.close' })}>
                {t('dialog.failure.close')}
              </button>
            </div>
          </>
        )}
      </ReportDialog>
      <ReportDialog open={rateLimited} alert title={t('forms.rateLimited.title')} onEscape={{ type: 'dialog.close' }}>
        {() => (
          <>
            <Dialog.Description>{t('forms.rateLimited.text', { minutes: waitMinutes })}</Dialog.Description>
            <div className={styles.actions}>
              <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'dialog.close' })}>
                {t('forms.rateLimited.close')}
              </button>
            </div>
          </>
        )}
      </ReportDialog>
      {/* Drawn only when the key log was refused: its catalogue is fetched then, never with the form. */}
      {keysRefused && (
        <Suspense fallback={null}>
          <KeysRefusedDialog />
        </Suspense>
      )}
      <SuccessDialog />
    </>
  );
}

const REFUSAL_TEXT = { signature: 'signature', anchor: 'anchor', fork: 'fork', 'no-keys': 'noKeys', invalid: 'invalid' } as const;

/** The key log did not verify in this browser (issue 37): nothing was sent, the reason in plain words, the draft kept. */
function KeysRefusedDialog() {
  const t = useT('sealing');
  const actor = useReport();
  const reason = useSelector(actor, (s) => s.context.keyRefusal ?? 'invalid');
  return (
    <ReportDialog open alert title={t('sealing.refused.title')} onEscape={{ type: 'dialog.close' }}>
      {() => (
        <>
          <Dialog.Description data-testid="keys-refused" data-reason={reason}>
            {t(`sealing.refused.${REFUSAL_TEXT[reason]}`)}
          </Dialog.Description>
          <p>{t('sealing.refused.kept')}</p>
          <div className={styles.actions}>
            <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'dialog.close' })}>
              {t('sealing.refused.close')}
            </button>
          </div>
        </>
      )}
    </ReportDialog>
  );
}

function SuccessDialog() {
  const t = useT('forms');
  const actor = useReport();
  const open = useSelector(actor, (s) => s.hasTag('successDialog'));
  const copied = useSelector(actor, (s) => s.hasTag('copied'));
  const channel = useSelector(actor, (s) => s.context.channel);
  const following = useSelector(actor, (s) => s.context.draft.follow === true);
  const caseNumber = useSelector(actor, (s) => s.context.response?.caseDto.caseNumber ?? '');
  const confirmingClose = useSelector(actor, (s) => s.hasTag('closeConfirmation'));
  // Phone and meeting cases start when the reporter calls the chosen officer (spec §1).
  const officer = useSelector(actor, (s) =>
    s.context.company.protectionOfficers.find((o) => o.id === s.context.draft.protectionOfficer),
  );
  return (
    <>
    <ReportDialog open={open} title={t(`forms.success.${channel}.title`)} onEscape={{ type: 'dialog.close' }}>
      {() => (
        <>
          <Dialog.Description>{t(`forms.success.${channel}.text`)}</Dialog.Description>
          {channel !== 'online' && officer?.phone && (
            <>
              {/* Tap to call: the number in groups for the eye, compact for the dialler. */}
              <p className={styles.copied}>
                <TelLink phone={officer.phone} testId="officer-phone" hideNumberHint>
                  {(phone) => t('forms.success.call', { name: officer.name, phone })}
                </TelLink>
              </p>
            </>
          )}
          {following ? (
            <>
              <p>{t('forms.success.caseNumber')}</p>
              <div className={styles.copyRow}>
                <p className={styles.caseNumber} data-testid="case-number">
                  {formatCaseNumber(caseNumber)}
                </p>
                <button type="button" className={buttons.secondaryButton} onClick={() => actor.send({ type: 'caseNumber.copy' })}>
                  {t('forms.success.copy')}
                </button>
                <span role="status" className={styles.copied}>
                  {copied ? t('forms.success.copied') : ''}
                </span>
              </div>
              <p>{t('forms.success.keep')}</p>
              <h3>{t('forms.success.stepsTitle')}</h3>
              <ol>
                <li>{t('forms.success.step1')}</li>
                <li>{t('forms.success.step2')}</li>
                <li>{t('forms.success.step3')}</li>
              </ol>
              <div className={styles.actions}>
                <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'login.start' })}>
                  {t('forms.success.login')}
                </button>
                <button type="button" className={buttons.secondaryButton} onClick={() => actor.send({ type: 'dialog.close' })}>
                  {t('forms.success.close')}
                </button>
              </div>
            </>
          ) : (
            <>
              <p>{t('forms.success.notFollowed')}</p>
              {/* The number is harmless without a password and lets the reporter quote it on the phone. */}
              <p>{t('forms.success.notFollowedNumber')}</p>
              <p className={styles.caseNumber} data-testid="case-number">
                {formatCaseNumber(caseNumber)}
              </p>
              <div className={styles.actions}>
                <button type="button" className={buttons.button} onClick={() => actor.send({ type: 'dialog.close' })}>
                  {t('forms.success.frontPage')}
                </button>
              </div>
            </>
          )}
        </>
      )}
    </ReportDialog>
    {/* One tap must not lose the case number: the machine's close confirmation. */}
    <ConfirmDialog
      open={open && confirmingClose}
      title={t('forms.success.closeConfirm.title')}
      description={t(following ? 'forms.success.closeConfirm.follow' : 'forms.success.closeConfirm.notFollowed')}
      cancelLabel={t('forms.success.closeConfirm.back')}
      confirmLabel={t('forms.success.closeConfirm.close')}
      onCancel={() => actor.send({ type: 'close.cancel' })}
      onConfirm={() => actor.send({ type: 'close.confirm' })}
    />
    </>
  );
}
