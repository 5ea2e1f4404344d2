/**
 * The entry of the page the server answers for the three report forms, /online-form,
 * /oral-report and /book-meeting (vite.report.config.ts, docs/decisions/report-entry.md):
 * the same app as src/main.tsx, with the report page and what it imports (the schema,
 * valibot, the ICU formatter) in its first script instead of two chunks beside it, each
 * a request that shared a slow link with the entry.
 */
// The app first, so the stylesheet keeps the main build's order (cssCodeSplit is off).
import '../main.tsx';
import '../routes/online-form.tsx?tsr-split=component';
import '../routes/oral-report.tsx?tsr-split=component';
import '../routes/book-meeting.tsx?tsr-split=component';
