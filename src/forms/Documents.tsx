/**
 * The documents step (spec §5): drag and drop or a keyboard-reachable file picker,
 * at most five allowed files (the machine keeps them with the shared schema's
 * `keepAllowedFiles`), the 2 GB text, and per-file upload progress while sending,
 * with the speed and time left the upload effect measured, or that it is retrying.
 */
import { Suspense, useId, useRef, useState } from 'react';
import { useSelector } from '@xstate/react';
import { toBcp47, useLanguage, useT } from '../i18n/index.ts';
import { formatBytes } from '../i18n/bytes.ts';
import {
  ALLOWED_EXTENSIONS,
  ALLOWED_MIME_TYPES,
  FILE_HEAD_BYTES,
  LIMITS,
  TEXT_SAMPLE_BYTES,
  fileExtension,
  isTextExtension,
  type FileSample,
} from '../../machines/schema.ts';
import { useReport } from './context.ts';
import { useFileChecks } from '../metadata/context.tsx';
import { FileCheckStatus } from '../metadata/FileCheckStatus.tsx';
import { UploadProgress } from '../components/UploadProgress.tsx';
import * as styles from './ReportForm.css.ts';
import * as buttons from '../styles/button.css.ts';

/**
 * The first bytes of each file, for the shared content rule (machines/schema.ts
 * `contentMatches`) that the machine applies: a file whose content does not fit
 * its name is refused by name at once, not by the server after the whole upload.
 */
export async function readSamples(files: readonly File[]): Promise<(FileSample | undefined)[]> {
  return Promise.all(
    files.map(async (f) => {
      const want = isTextExtension(fileExtension(f.name)) ? TEXT_SAMPLE_BYTES : FILE_HEAD_BYTES;
      try {
        const bytes = new Uint8Array(await f.slice(0, want).arrayBuffer());
        return { bytes, complete: f.size <= want };
      } catch {
        // Unreadable here: the server still checks every byte.
        return undefined;
      }
    }),
  );
}

export function Documents() {
  const t = useT('forms');
  const locale = toBcp47(useLanguage());
  const actor = useReport();
  const checks = useFileChecks();
  const files = useSelector(actor, (s) => s.context.draft.files);
  const rejected = useSelector(actor, (s) => s.context.rejectedFiles);
  const refused = useSelector(actor, (s) => s.context.refusedFiles);
  const progress = useSelector(actor, (s) => (s.hasTag('busy') ? s.context.progress : null));
  const canAdd = useSelector(actor, (s) => s.can({ type: 'files.add', files: [] }));
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  // Presentation only: whether something is being dragged over the zone.
  const [over, setOver] = useState(false);
  const full = files.length >= LIMITS.maxFiles;

  const add = (list: FileList | null) => {
    if (!list?.length) return;
    const files = [...list];
    void readSamples(files).then((samples) => actor.send({ type: 'files.add', files, samples }));
  };

  return (
    <>
      <p id={`${id}-rules`} className={styles.hint}>
        {t('forms.documents.rules', { max: LIMITS.maxFiles, types: ALLOWED_EXTENSIONS.join(', ') })}
      </p>
      <div
        className={styles.dropZone}
        data-over={over}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (canAdd) add(e.dataTransfer.files);
        }}
      >
        <p>{t('forms.documents.drop')}</p>
        <input
          ref={input}
          id={id}
          type="file"
          multiple
          hidden
          accept={[...ALLOWED_EXTENSIONS.map((x) => `.${x}`), ...ALLOWED_MIME_TYPES].join(',')}
          onChange={(e) => {
            add(e.target.files);
            e.target.value = '';
          }}
        />
        <button
          type="button"
          className={buttons.secondaryButton}
          disabled={!canAdd || full}
          aria-describedby={`${id}-rules`}
          onClick={() => input.current?.click()}
        >
          {t('forms.documents.choose')}
        </button>
      </div>
      {rejected.length > 0 && (
        // Each file not added, and why (spec §5 ignores extras silently; a refused
        // `.exe` told "only 5 files are kept" does not know what happened to it).
        <div className={styles.notice} role="status">
          <ul className={styles.rejectedFiles} aria-label={t('forms.documents.rejected.list')}>
            {rejected.map((r, i) => (
              <li key={`${r.name}-${i}`} data-reason={r.reason}>
                {t(`forms.documents.rejected.${r.reason}`, { name: r.name, max: LIMITS.maxFiles })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {refused.length > 0 && (
        <p className={styles.notice} role="alert">
          {t('forms.documents.refused', { names: refused.join(', ') })}
        </p>
      )}
      {files.length > 0 && (
        <ul className={styles.files} aria-label={t('forms.documents.list', { count: files.length, max: LIMITS.maxFiles })}>
          {files.map((f, index) => {
            const p = progress?.[index];
            return (
              <li key={`${f.name}-${index}`} className={styles.file}>
                <span className={styles.fileName}>
                  {f.name} ({formatBytes(f.size, locale, t)})
                </span>
                {!progress && (
                  <button
                    type="button"
                    className={styles.linkButton}
                    aria-label={t('forms.documents.remove', { name: f.name })}
                    onClick={() => actor.send({ type: 'file.remove', index })}
                  >
                    {t('forms.remove')}
                  </button>
                )}
                {checks && (
                  // Its catalogue loads on first use; the list itself never waits for it.
                  <Suspense fallback={null}>
                    <FileCheckStatus actor={checks.get(f)} name={f.name} />
                  </Suspense>
                )}
                {p && <UploadProgress name={f.name} progress={p} area="forms" />}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
