/**
 * One file's upload while it is sent: a progress bar named after the file, then the
 * speed and time left the upload effect measured (src/uploads/rate.ts), or that the
 * connection was lost and the upload is retrying. Shared by the online form's
 * documents step and the private messages' composer.
 */
import { toBcp47, useLanguage, useT } from '../i18n/index.ts';
import { formatBytes } from '../i18n/bytes.ts';
import { formatDuration } from '../i18n/duration.ts';
import * as styles from './UploadProgress.css.ts';

export interface FileProgressView {
  loaded: number;
  total: number;
  bytesPerSecond?: number | null;
  secondsLeft?: number | null;
  retrying?: boolean;
}

/** `area`: the caller's catalogue, which holds `size.bytes` for speeds under 1 kB/s (common stays free of ICU plurals). */
export function UploadProgress({ name, progress: p, area }: { name: string; progress: FileProgressView; area: 'forms' | 'private' }) {
  const t = useT(area);
  const locale = toBcp47(useLanguage());
  return (
    <>
      <progress className={styles.progress} max={Math.max(p.total, 1)} value={p.loaded} aria-label={t('upload.progress', { name })} />
      {p.retrying ? (
        <span className={styles.rate} role="status">
          {t('upload.stalled')}
        </span>
      ) : (
        p.bytesPerSecond != null &&
        p.secondsLeft != null &&
        p.loaded < p.total && (
          <span className={styles.rate} data-testid="upload-rate">
            {t('upload.rate', { speed: formatBytes(p.bytesPerSecond, locale, t), time: formatDuration(p.secondsLeft, locale) })}
          </span>
        )
      )}
    </>
  );
}
