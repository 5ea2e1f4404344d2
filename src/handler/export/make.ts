/**
 * The export's effect (machines/handler/caseExport.ts `makeExport`), loaded only when a
 * handler exports: pdf-lib, fontkit and the font stay out of the workspace's first load.
 * The fonts are the portal's own assets (no third-party request).
 */
import regularUrl from 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf?url';
import boldUrl from 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf?url';
import { makeCasePdf } from './pdf.ts';
import { redactor } from './redact.ts';
import { hashAndZip, type ExportFileSource } from './files.ts';
import type { ExportDocument } from './document.ts';
import type { HashedFile } from './files.ts';

const bytes = async (url: string) => {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`font ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
};

/** Hashes (and zips, when `zip`) the files, builds the document from their hashes, makes the PDF; answers Blobs. */
export async function makeExport(input: {
  terms: readonly string[];
  files: readonly ExportFileSource[];
  zip: boolean;
  document: (files: readonly HashedFile[]) => ExportDocument;
}): Promise<{ pdf: Blob; zip: Blob | null }> {
  const redact = redactor(input.terms);
  const [regular, bold, hashed] = await Promise.all([bytes(regularUrl), bytes(boldUrl), hashAndZip(input.files, redact, input.zip && input.files.length > 0)]);
  const pdf = await makeCasePdf(input.document(hashed.files), { regular, bold }, redact);
  return { pdf: new Blob([pdf as BlobPart], { type: 'application/pdf' }), zip: hashed.zip };
}
