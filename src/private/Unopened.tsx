/**
 * "This part could not be opened" (issue 37): a part of a sealed case that did not open
 * in this browser (altered, truncated, sealed to another key) is named where it would
 * be, and the rest of the case still shows. Rendered only for sealed cases, so its
 * catalogue never holds up the page of a case the server keys.
 */
import { Suspense } from 'react';
import '../i18n/sealing/index.ts';
import { useT } from '../i18n/index.ts';
import * as styles from './Pages.css.ts';

function Text({ what }: { what: 'part' | 'message' }) {
  const t = useT('sealing');
  return (
    <p className={styles.muted} data-testid="unopened">
      {t(what === 'message' ? 'sealing.messageUnopened' : 'sealing.unopened')}
    </p>
  );
}

export function Unopened({ what = 'part' }: { what?: 'part' | 'message' }) {
  return (
    <Suspense fallback={null}>
      <Text what={what} />
    </Suspense>
  );
}
