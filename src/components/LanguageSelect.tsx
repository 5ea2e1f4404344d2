import { useId } from 'react';
import { useSelector } from '@xstate/react';
import { LANGUAGE_NAMES, LANGUAGES, isLanguage, toBcp47, useT, type Language } from '../i18n/index.ts';
import { useLookAndFeelActor } from '../app/lookAndFeel.tsx';
import * as styles from './Frame.css.ts';
import { visuallyHidden } from '../styles/global.css.ts';

/**
 * The language selector. Offers the company's languages (all seven with the
 * defaults), or exactly `languages` when given (the private pages pass
 * PRIVATE_LANGUAGES). Sends `language.change` to the look-and-feel actor.
 */
export function LanguageSelect({ languages, className }: { languages?: readonly Language[]; className?: string }) {
  const t = useT();
  const id = useId();
  const actor = useLookAndFeelActor();
  const current = useSelector(actor, (s) => s.context.requested);
  const offered = useSelector(actor, (s) => s.context.lookAndFeel?.availableLanguages);
  const options =
    languages ?? (offered && offered.length > 0 ? LANGUAGES.filter((l) => offered.includes(l)) : LANGUAGES);
  return (
    <span className={`${styles.languageLabel} ${className ?? ''}`}>
      {/* A globe people recognise across languages; the word stays for screen readers. */}
      <label htmlFor={id} className={styles.languageGlobe} data-testid="language-label">
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
          <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M3 12h18M12 3c2.8 3.2 2.8 14.8 0 18M12 3c-2.8 3.2-2.8 14.8 0 18" fill="none" stroke="currentColor" strokeWidth="1.8" />
        </svg>
        <span className={visuallyHidden}>{t('frame.language')}</span>
      </label>
      <select
        id={id}
        className={styles.select}
        value={current}
        onChange={(e) => {
          const v = e.currentTarget.value;
          if (isLanguage(v)) actor.send({ type: 'language.change', language: v });
        }}
      >
        {!options.includes(current) && (
          // The current language is not offered here (a private page): shown, not selectable.
          <option value={current} disabled lang={toBcp47(current)}>
            {LANGUAGE_NAMES[current]}
          </option>
        )}
        {options.map((l) => (
          <option key={l} value={l} lang={toBcp47(l)}>
            {LANGUAGE_NAMES[l]}
          </option>
        ))}
      </select>
    </span>
  );
}
