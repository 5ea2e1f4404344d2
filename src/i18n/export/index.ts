/** Exporting and printing a case (issue 38): the dialog, the redaction, the PDF's own words; imported only by src/handler. */
import { registerCatalogues } from '../index.ts';

registerCatalogues('export', import.meta.glob('./*.json', { import: 'default' }));
