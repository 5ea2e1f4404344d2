/**
 * A phone number as people read and dial it: shown in groups ("+45 70 20 30 40"),
 * dialled compact (`tel:+4570203040`) with one tap. One component for every place a
 * reporter is asked to call (ask page, oral/meeting form and success dialog, the
 * private area's pending phone case), optionally with how to hide one's own number.
 */
import type { ReactNode } from 'react';
import { useT } from '../i18n/index.ts';
import { groupPhone, telHref } from './phone.ts';
import * as styles from './TelLink.css.ts';

export function TelLink({
  phone,
  children,
  className,
  hideNumberHint = false,
  testId,
}: {
  phone: string;
  /** The link's sentence around the number (a translated message); the number alone when absent. */
  children?: (grouped: string) => string;
  className?: string;
  /** Adds the hint on calling without showing one's own number. */
  hideNumberHint?: boolean;
  testId?: string;
}) {
  const t = useT();
  const grouped = groupPhone(phone);
  const href = telHref(phone);
  // The groups of a number never break apart; the sentence around it may wrap.
  const number = <span className={styles.number}>{grouped}</span>;
  const text = children ? around(children(SLOT), number) : number;
  return (
    <>
      {href ? (
        <a className={`${styles.tel} ${className ?? ''}`} href={href} data-testid={testId}>
          {text}
        </a>
      ) : (
        <span className={className} data-testid={testId}>
          {text}
        </span>
      )}
      {hideNumberHint && <span className={styles.hint}>{t('phone.hideNumber')}</span>}
    </>
  );
}

/** Stands for the number in the sentence, so the number itself can be kept in one piece. */
const SLOT = '\uE000';

function around(sentence: string, number: ReactNode): ReactNode {
  const [before, ...rest] = sentence.split(SLOT);
  return (
    <>
      {before}
      {rest.length > 0 && number}
      {rest.join('')}
    </>
  );
}
