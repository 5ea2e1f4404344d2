/**
 * The documents step (spec §5): drag and drop or a keyboard-reachable file picker,
 * at most five allowed files (the machine keeps them with the shared schema's
 * `keepAllowedFiles`), the 2 GB text, and per-file upload progress while sending.
 */
import { Suspense, useId, useRef, useState } from 'react';
import { useSelector } from '@xstate/react';
import { toBcp47, useLanguage, useT } from '../i18n/index.ts';
import { ALLOWED_EXTENSIONS, ALLOWED_MIME_TYPES, LIMITS } from '../../machines/schema.ts';
import { useReport } from './context.ts';
import { useFileChecks } from '../metadata/context.tsx';
import { FileCheckStatus } from '../metadata/FileCheckStatus.tsx';
import * as styles from './ReportForm.css.ts';
import * as buttons from '../styles/button.css.ts';

/** A file size in the display language's own format (Intl unit formatting). */
export function formatBytes(n: number, locale: string): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
  let x = n;
  let i = 0;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return new Intl.NumberFormat(locale, { style: 'unit', unit: units[i], unitDisplay: 'short', maximumFractionDigits: x < 10 && i > 0 ? 1 : 0 }).format(x);
}

export function Documents() {
  const t = useT('forms');
  const locale = toBcp47(useLanguage());
  const actor = useReport();
  const checks = useFileChecks();
  const files = useSelector(actor, (s) => s.context.draft.files);
  const dropped = useSelector(actor, (s) => s.context.droppedFiles);
  const progress = useSelector(actor, (s) => (s.hasTag('busy') ? s.context.progress : null));
  const canAdd = useSelector(actor, (s) => s.can({ type: 'files.add', files: [] }));
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  // Presentation only: whether something is being dragged over the zone.
  const [over, setOver] = useState(false);
  const full = files.length >= LIMITS.maxFiles;

  const add = (list: FileList | null) => {
    if (list?.length) actor.send({ type: 'files.add', files: [...list] });
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
      {dropped > 0 && (
        <p className={styles.notice} role="status">
          {t('forms.documents.dropped', { count: dropped, max: LIMITS.maxFiles })}
        </p>
      )}
      {files.length > 0 && (
        <ul className={styles.files} aria-label={t('forms.documents.list', { count: files.length, max: LIMITS.maxFiles })}>
          {files.map((f, index) => {
            const p = progress?.[index];
            return (
              <li key={`${f.name}-${index}`} className={styles.file}>
                <span>
                  {f.name} ({formatBytes(f.size, locale)})
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
                {p && (
                  <progress
                    className={styles.progress}
                    max={Math.max(p.total, 1)}
                    value={p.loaded}
                    aria-label={t('forms.documents.progress', { name: f.name })}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}
