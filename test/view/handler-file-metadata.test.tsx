/**
 * The handlers' workspace names what the server's re-check found in each received file
 * in words (docs/decisions/metadata-removal.md), and the file whose check hit a limit
 * (issue 36 finding 1: a flate bomb) as "could not be checked", apart from the files
 * the server does not check at all — in every language.
 */
import { Suspense } from 'react';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import '../../src/i18n/handler/index.ts';
import { I18nProvider, loadCatalogue, LANGUAGES, type Language } from '../../src/i18n/index.ts';
import { FileMetadata, type FileMetadataView } from '../../src/handler/FileMetadata.tsx';

async function shown(file: FileMetadataView, language: Language = 'en') {
  await loadCatalogue('common', language);
  await loadCatalogue('handler', language);
  await loadCatalogue('metadata', language);
  const { unmount } = render(
    <I18nProvider language={language}>
      <Suspense fallback={<p>loading</p>}>
        <FileMetadata file={file} />
      </Suspense>
    </I18nProvider>,
  );
  const text = (await screen.findByTestId('file-metadata')).textContent ?? '';
  unmount();
  return text;
}

describe("the handler's file list: the server's hidden-data check", () => {
  it('says in words which kinds are still in the file, none, not checked, or could not be checked', async () => {
    expect(await shown({ metadataCheck: 'checked', metadataRemaining: ['location', 'author'] })).toBe('Hidden data the server still found: location (GPS) and author name.');
    expect(await shown({ metadataCheck: 'checked', metadataRemaining: [] })).toBe('The server found no hidden data.');
    expect(await shown({ metadataCheck: 'notChecked', metadataRemaining: null })).toMatch(/^Not checked for hidden data/);
    expect(await shown({ metadataCheck: 'couldNotCheck', metadataRemaining: null })).toMatch(/^Could not be checked for hidden data: .*open it with care\.$/);
  });

  it('has the could-not-be-checked words in all seven languages, each its own', async () => {
    const seen = new Set<string>();
    for (const lang of LANGUAGES) {
      const text = await shown({ metadataCheck: 'couldNotCheck', metadataRemaining: null }, lang);
      expect(text).not.toContain('handler.case.metadata');
      seen.add(text);
    }
    expect(seen.size).toBe(7);
  });
});
