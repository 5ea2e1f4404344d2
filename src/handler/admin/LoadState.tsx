/**
 * What an administration page shows before its chart has the data: the loading line,
 * or the failure with a retry that sends `reload` to the page's chart.
 */
import { useT } from '../../i18n/index.ts';
import * as buttons from '../../styles/button.css.ts';
import * as styles from '../Pages.css.ts';

export function AdminLoading() {
  const t = useT('admin');
  return <p aria-busy="true">{t('admin.loading')}</p>;
}

export function AdminLoadFailed({ onRetry }: { onRetry: () => void }) {
  const t = useT('admin');
  return (
    <div role="alert">
      <p className={styles.error}>{t('admin.failed')}</p>
      <button type="button" className={buttons.button} onClick={onRetry}>
        {t('admin.retry')}
      </button>
    </div>
  );
}
