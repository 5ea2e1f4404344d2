/**
 * /private/status (spec §2, §4 Progress display): title with the case number, the
 * yellow banner while an answer is wanted, the four-step progress, the "will be
 * initiated" warning, the current status in the spec's labels (a phone case waiting
 * for its call is a "draft"), the timeline with §4's descriptions, the confirmation
 * and feedback blocks, and the directive's clocks (acknowledgement in 7 days, feedback
 * in 3 months).
 */
import { useState, type ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import * as Collapsible from '@radix-ui/react-collapsible';
import { formatCaseNumber } from '../../machines/schema.ts';
import { useLanguage, useT } from '../i18n/index.ts';
import { formatLongDateTime, formatReceiptDate } from '../i18n/dates.ts';
import { PageTitle } from '../components/PageTitle.tsx';
import { TelLink } from '../components/TelLink.tsx';
import { useCase, usePrivateArea } from './context.tsx';
import {
  PROGRESS_STEPS,
  countedEvents,
  currentStatus,
  hasConfirmation,
  isAwaitingInitiation,
  legalClocks,
  messagesOfType,
  progressFill,
  receivedEvents,
  timelineEntries,
  type Clock,
} from './caseView.ts';
import * as styles from './Pages.css.ts';
import { card } from '../styles/card.css.ts';

export function StatusPage() {
  const t = useT('private');
  const lang = useLanguage();
  const c = useCase();
  const { session } = usePrivateArea();

  const events = c.events.length ? c.events : c.caseStatusHistory;
  const fill = progressFill(events);
  const reached = countedEvents(events);
  const confirmationEnabled = hasConfirmation(events);
  const received = receivedEvents(events)[0];
  const confirmationMessage = messagesOfType(c, 'CONFIRMATION')[0];
  const feedback = messagesOfType(c, 'FEEDBACK');
  const clocks = legalClocks(c);
  const status = currentStatus(events);
  const timeline = timelineEntries(events);

  return (
    <>
      <PageTitle title={t('private.status.title', { caseNumber: formatCaseNumber(c.caseNumber) })} />
      {c.pendingWhistleblowerAction && (
        <div className={styles.banner} role="status">
          <span>{t('private.status.banner.text')}</span>
          <Link to="/private/messages" className={styles.bannerLink}>
            {t('private.status.banner.link')}
          </Link>
        </div>
      )}
      {isAwaitingInitiation(events) && (
        <p className={styles.warning} role="note">
          {t('private.status.initiated')}
        </p>
      )}
      {isAwaitingInitiation(events) && c.protectionOfficer?.phone && <CallOfficer officer={c.protectionOfficer} />}

      <section className={card} aria-labelledby="progress-heading">
        <h2 id="progress-heading" className={styles.cardTitle}>
          {t('private.status.progress.title')}
        </h2>
        {status && (
          <p data-testid="case-status" data-status={status}>
            {t('private.status.current', { status: t(`private.status.step.${status}`) })}
          </p>
        )}
        <div
          className={styles.progressTrack}
          role="progressbar"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={fill}
          aria-label={t('private.status.progress.label')}
        >
          <div className={styles.progressFill} style={{ width: `${fill}%` }} />
        </div>
        <ol className={styles.steps}>
          {PROGRESS_STEPS.map((status, i) => {
            const event = reached[i];
            const done = event !== undefined;
            return (
              <li key={status} className={`${styles.step} ${done ? styles.stepDone : ''}`} data-status={status} data-done={done}>
                <span className={`${styles.stepMark} ${done ? styles.stepMarkDone : ''}`} aria-hidden="true">
                  {i + 1}
                </span>
                <span>{t(`private.status.step.${status}`)}</span>
                <span className={styles.muted}>
                  {done ? formatReceiptDate(event.dateTime) : t('private.status.step.notYet')}
                </span>
              </li>
            );
          })}
        </ol>
      </section>

      {timeline.length > 0 && (
        <section className={card} aria-labelledby="timeline-heading">
          <h2 id="timeline-heading" className={styles.cardTitle}>
            {t('private.status.timeline.title')}
          </h2>
          <ol className={styles.timeline} data-testid="timeline">
            {timeline.map((entry, i) => (
              <li key={`${entry.key}-${i}`} className={styles.timelineEntry} data-timeline={entry.key}>
                <span>
                  <strong>{t(`private.status.timeline.name.${entry.key}`)}</strong>
                  <span className={styles.muted}> {formatReceiptDate(entry.dateTime)}</span>
                </span>
                <span>{t(`private.status.timeline.text.${entry.key}`)}</span>
              </li>
            ))}
          </ol>
        </section>
      )}

      <section className={card} aria-labelledby="clocks-heading">
        <h2 id="clocks-heading" className={styles.cardTitle}>
          {t('private.status.clocks.title')}
        </h2>
        <div className={styles.clocks}>
          <ClockView name="acknowledgement" clock={clocks.acknowledgement} />
          <ClockView name="feedback" clock={clocks.feedback} />
        </div>
      </section>

      <Disclosure title={t('private.status.confirmation.title')} disabled={!confirmationEnabled}>
        {received && (
          <p>
            {t('private.status.confirmation.received', { date: formatReceiptDate(c.receivedDate ?? received.dateTime) })}
          </p>
        )}
        <p>{t('private.status.confirmation.text')}</p>
        {confirmationMessage?.message && <p className={styles.muted}>{confirmationMessage.message}</p>}
      </Disclosure>

      <Disclosure title={t('private.status.feedback.title')} disabled={feedback.length === 0}>
        {feedback[0] && <p>{t('private.status.feedback.first', { date: formatReceiptDate(feedback[0].time) })}</p>}
        <ul className={styles.feedbackList} tabIndex={0} aria-label={t('private.status.feedback.list')}>
          {feedback.map((m) => (
            <li key={m.id} className={styles.feedbackItem}>
              <time dateTime={m.time} className={styles.muted}>
                {formatLongDateTime(m.time, lang)}
              </time>
              <p>{m.message}</p>
            </li>
          ))}
        </ul>
      </Disclosure>

      {c.scheduledDeletion && (
        <p className={styles.muted} data-deletion={c.scheduledDeletion}>
          {t('private.status.deletion', { date: formatReceiptDate(c.scheduledDeletion) })}
        </p>
      )}
    </>
  );
}

/**
 * A card that opens on its title (a Radix collapsible) and holds its content in the
 * page only while open. Radix's content, mounted closed, reads its node's computed
 * style while React commits (for an exit animation these cards do not have) and then
 * renders once more, synchronously: on a slow phone that was most of the status
 * page's first commit, before its first paint (performance.md, seventeenth round).
 * Whether a card is open is this view's own state: nothing else reads it. Closed, the
 * trigger says so (`aria-expanded="false"`); its `aria-controls` names the content
 * that opening adds.
 */
function Disclosure({ title, disabled, children }: { title: string; disabled: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <Collapsible.Root className={card} disabled={disabled} open={open} onOpenChange={setOpen}>
      <Collapsible.Trigger className={styles.collapsibleTrigger}>
        {title}
        <span aria-hidden="true">▾</span>
      </Collapsible.Trigger>
      {open && <Collapsible.Content>{children}</Collapsible.Content>}
    </Collapsible.Root>
  );
}

/**
 * A phone or meeting case starts with the reporter's call: the number stands here
 * too, as on the oral-report page and its success dialog (the shared TelLink),
 * grouped for the eye and compact in the `tel:` link.
 */
function CallOfficer({ officer }: { officer: { name: string; jobTitle?: string; phone?: string } }) {
  const t = useT('private');
  return (
    <section className={card} aria-labelledby="call-heading">
      <h2 id="call-heading" className={styles.cardTitle}>
        {t('private.status.call.title')}
      </h2>
      <p>
        <TelLink phone={officer.phone!} className={styles.phone} testId="officer-phone" />
      </p>
      <p>{[officer.name, officer.jobTitle].filter(Boolean).join(', ')}</p>
      <p className={styles.muted}>{t('phone.hideNumber')}</p>
    </section>
  );
}

function ClockView({ name, clock }: { name: 'acknowledgement' | 'feedback'; clock: Clock }) {
  const t = useT('private');
  return (
    <div data-clock={name} data-state={clock.state}>
      <h3 className={styles.label}>{t(`private.status.clocks.${name}`)}</h3>
      {clock.state === 'notStarted' && <p className={styles.muted}>{t('private.status.clocks.notStarted')}</p>}
      {clock.state === 'due' && (
        <p className={clock.overdue ? styles.clockOverdue : undefined}>
          {t(clock.overdue ? 'private.status.clocks.overdue' : 'private.status.clocks.due', { date: formatReceiptDate(clock.due) })}
        </p>
      )}
      {clock.state === 'met' && (
        <p className={styles.clockMet}>
          {t('private.status.clocks.met', { date: formatReceiptDate(clock.at), due: formatReceiptDate(clock.due) })}
        </p>
      )}
    </div>
  );
}
