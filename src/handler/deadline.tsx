/** The legal clock of a case in words: "Acknowledgement due in 7 days", "Feedback due in 3 months", overdue in red. */
import { useT } from '../i18n/index.ts';
import { daysLeft } from '../../machines/handler/inbox.ts';
import * as styles from './Pages.css.ts';

export function DeadlineText({ deadline, now }: { deadline: { kind: 'ACKNOWLEDGEMENT' | 'FEEDBACK'; due: string } | null; now: number }) {
  const t = useT('handler');
  if (!deadline) return <span>{t('handler.deadline.none')}</span>;
  const days = daysLeft(deadline.due, now);
  const kind = deadline.kind === 'ACKNOWLEDGEMENT' ? 'ack' : 'feedback';
  if (days < 0) return <span className={styles.overdue}>{t(`handler.deadline.${kind}.overdue`, { days: -days })}</span>;
  // Beyond six weeks the clock reads in months (3 months after receipt reads "in 3 months").
  if (days > 45) return <span>{t(`handler.deadline.${kind}.months`, { months: Math.round(days / 30.44) })}</span>;
  return <span>{t(`handler.deadline.${kind}.days`, { days })}</span>;
}
