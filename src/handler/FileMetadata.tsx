/**
 * What the server's re-check found in one received file (docs/decisions/metadata-removal.md),
 * in words, under its download link: the kinds still in it, none, not checked (a type or
 * size the server does not check), or could not be checked (the check hit a limit: a
 * file that may be damaged or built to harm, which the handler should open with care).
 */
import '../i18n/metadata/index.ts';
import { toBcp47, useLanguage, useT } from '../i18n/index.ts';
import * as styles from './Pages.css.ts';

export interface FileMetadataView {
  metadataRemaining?: string[] | null;
  metadataCheck?: 'checked' | 'notChecked' | 'couldNotCheck';
}

export function FileMetadata({ file }: { file: FileMetadataView }) {
  const t = useT('handler');
  const tm = useT('metadata');
  const locale = toBcp47(useLanguage());
  if (file.metadataCheck === 'couldNotCheck') {
    return (
      <p className={styles.error} data-testid="file-metadata">
        {t('handler.case.metadata.couldNotCheck')}
      </p>
    );
  }
  const kinds = file.metadataRemaining;
  if (!kinds) return <p className={styles.hint} data-testid="file-metadata">{t('handler.case.metadata.notChecked')}</p>;
  if (kinds.length === 0) return <p className={styles.hint} data-testid="file-metadata">{t('handler.case.metadata.none')}</p>;
  const list = new Intl.ListFormat(locale, { type: 'conjunction' }).format(kinds.map((k) => tm(`metadata.kind.${k}`)));
  return <p className={styles.hint} data-testid="file-metadata">{t('handler.case.metadata.found', { list })}</p>;
}
