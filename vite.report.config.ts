/**
 * The page the server answers for the report forms: the reporter's SPA built once more
 * from report.html, whose entry (src/entries/report.ts) holds the report page
 * (docs/decisions/report-entry.md). Written into dist beside the first build.
 */
import { reporterConfig } from './vite.config.ts';

export default reporterConfig('report');
