/** The page's hidden-data checks (see checks.ts), for the views that list attached files. */
import { createContext, use, useEffect, useState } from 'react';
import { createFileChecks, type FileChecks } from './checks.ts';
import { loadCatalogue, useLanguage } from '../i18n/index.ts';
import '../i18n/metadata/index.ts';

export const FileChecksContext = createContext<FileChecks | null>(null);

/** The checks of the page, or null where none are provided (e.g. view tests without a worker). */
export function useFileChecks(): FileChecks | null {
  return use(FileChecksContext);
}

/** Creates the page's checks and ends them with the page. */
export function useFileChecksOwner(identified = false): FileChecks {
  // A resource owned by the component, like a ref: not flow state.
  const [checks] = useState(() => createFileChecks(identified));
  useEffect(() => () => checks.stop(), [checks]);
  // The checks' texts, after the page's first paint and before a file is attached
  // (server/spa.ts does not preload them with the page).
  const language = useLanguage();
  useEffect(() => {
    void loadCatalogue('metadata', language).catch(() => undefined);
  }, [language]);
  return checks;
}
