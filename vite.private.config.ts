/**
 * The page the server answers for /private/…: the reporter's SPA built once more from
 * private.html, whose entry (src/entries/private.ts) holds the private layout and the
 * status page (docs/decisions/private-entry.md). Written into dist beside the first build.
 */
import { reporterConfig } from './vite.config.ts';

export default reporterConfig('private');
