/** Registers the private catalogues; imported only from the private chunk. */
import '../i18n/private/index.ts';
