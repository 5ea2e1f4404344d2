/**
 * A voice message heard again (issue 40): the reporter's own recording in the private
 * area. The file is fetched only when the reporter asks to play it, kept in this
 * page's memory as a blob: URL (never in storage), and released with the view.
 * Never autoplays.
 */
import { useEffect, useState } from 'react';
import { useT } from '../i18n/index.ts';
import '../i18n/voice/index.ts';
import * as buttons from '../styles/button.css.ts';
import * as styles from './VoiceRecorder.css.ts';

export function VoicePlayer({ name, load }: { name: string; load: () => Promise<Blob> }) {
  const t = useT('voice');
  // The loaded clip is a resource of this view (like a ref), not flow state.
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  if (url) return <audio className={styles.player} controls preload="metadata" src={url} aria-label={t('voice.playerLabel', { name })} data-voice="replay" />;
  return (
    <button
      type="button"
      className={buttons.secondaryButton}
      aria-invalid={failed || undefined}
      onClick={() =>
        void load().then(
          (blob) => setUrl(URL.createObjectURL(blob)),
          () => setFailed(true),
        )
      }
    >
      {t('voice.play', { name })}
    </button>
  );
}
