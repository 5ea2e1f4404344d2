/**
 * The sentence beside the notification choice on a portal whose form seals the address
 * (issue 37 Build 3): kept apart from the report, sealed to the mail key only the mail
 * worker uses, deleted when the case closes. Shown only where that holds: the key log
 * says this portal takes sealed cases, this company has its keys and a mail key
 * (src/forms/sealNotice.ts reads it once per page load). Elsewhere the address goes
 * with the identity, as before, and nothing is said.
 */
import { Suspense, use } from 'react';
import '../i18n/notifying/index.ts';
import { useT } from '../i18n/index.ts';
import { useApi } from '../app/lookAndFeel.tsx';
import { sealsNotifyAddress } from './sealNotice.ts';
import * as styles from './ReportForm.css.ts';

export function NotifyNotice() {
  if (typeof window === 'undefined') return null;
  return (
    <Suspense fallback={null}>
      <Notice />
    </Suspense>
  );
}

function Notice() {
  const api = useApi();
  const sealed = use(sealsNotifyAddress(api, window.location.hostname));
  const t = useT('notifying');
  return sealed ? (
    <p className={styles.hint}>
      {t('notifying.sealed')}
    </p>
  ) : null;
}
