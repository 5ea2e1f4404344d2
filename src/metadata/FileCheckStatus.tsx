/**
 * What one attached file gives away and what was done about it
 * (docs/decisions/metadata-removal.md). Renders the file's `fileCheck` actor; the
 * only controls send `original.keep` / `original.remove` to it.
 */
import { useSelector } from '@xstate/react';
import '../i18n/metadata/index.ts';
import { toBcp47, useLanguage, useT } from '../i18n/index.ts';
import type { FileCheckActor } from './checks.ts';
import * as styles from './FileCheckStatus.css.ts';

export function FileCheckStatus({ actor, name }: { actor: FileCheckActor; name: string }) {
  const t = useT('metadata');
  const locale = toBcp47(useLanguage());
  const s = useSelector(actor, (x) => x);
  const label = (kind: string) => t(`metadata.kind.${kind}`);
  const list = (kinds: string[]) => new Intl.ListFormat(locale, { type: 'conjunction' }).format(kinds.map(label));
  const findings = s.context.findings;
  const found = findings.length > 0 && (
    <p>
      {t('metadata.found', {
        list: new Intl.ListFormat(locale, { type: 'unit' }).format(findings.map((f) => (f.detail ? `${label(f.kind)}: ${f.detail}` : label(f.kind)))),
      })}
    </p>
  );

  let body;
  if (s.matches('checking')) body = <p>{t('metadata.checking')}</p>;
  else if (s.matches('nothingFound')) body = <p>{t('metadata.nothingFound')}</p>;
  else if (s.matches('uncheckable')) body = <p className={styles.warning}>{t('metadata.uncheckable')}</p>;
  else if (s.matches({ found: 'cleaning' })) body = <>{found}<p>{t('metadata.cleaning')}</p></>;
  else if (s.matches({ found: 'cleaningFailed' })) body = <>{found}<p className={styles.warning}>{t('metadata.cleaningFailed')}</p></>;
  else {
    const kept = s.matches({ found: 'keptOriginal' });
    body = (
      <>
        {found}
        <p className={kept ? styles.warning : styles.done} data-testid="metadata-outcome">
          {kept ? t('metadata.keptOriginal') : t('metadata.removed', { list: list(s.context.removed) })}
        </p>
        {!kept && s.context.remaining.length > 0 && (
          <p className={styles.warning} data-testid="metadata-remaining">
            {t('metadata.remaining', { list: list(s.context.remaining) })}
          </p>
        )}
        <p className={styles.hint}>{t('metadata.whyKeep')}</p>
        {kept ? (
          <button type="button" className={styles.choice} onClick={() => actor.send({ type: 'original.remove' })}>
            {t('metadata.removeAgain', { name })}
          </button>
        ) : (
          <button
            type="button"
            className={styles.choice}
            disabled={!s.can({ type: 'original.keep' })}
            onClick={() => actor.send({ type: 'original.keep' })}
          >
            {t('metadata.keepOriginal', { name })}
          </button>
        )}
      </>
    );
  }
  return (
    <div className={styles.status} role="status" aria-live="polite" data-check={JSON.stringify(s.value)}>
      {body}
    </div>
  );
}
