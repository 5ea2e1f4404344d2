// Loaded with `node --import` into a child server by test/server/compiled-start.test.ts:
// records every module the process resolves (import and require alike), one URL a
// line, in the file named by MODULE_PROBE_FILE. It only observes.
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';

const file = process.env.MODULE_PROBE_FILE;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    appendFileSync(file, resolved.url + '\n');
    return resolved;
  },
});
