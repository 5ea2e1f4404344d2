/**
 * The entry of the page the server answers for /private/… (vite.private.config.ts,
 * docs/decisions/private-entry.md): the same app as src/main.tsx, with the private
 * layout and the status page (where every sign-in lands) in its first script instead of
 * three chunks beside it, each a request that shared the slow link with the entry.
 */
// The app first, so the stylesheet keeps the main build's order (cssCodeSplit is off).
import '../main.tsx';
import '../routes/private.tsx?tsr-split=component';
import '../routes/private/status.tsx?tsr-split=component';
// The private catalogue has plurals and selects, so its first render needs the ICU
// formatter (src/i18n/index.ts imports it when needed): in the entry, not a chunk after it.
import 'intl-messageformat';
