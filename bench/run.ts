/**
 * npm run bench -- NAME [args…]   runs bench/NAME.ts (figures are printed, never asserted in tests)
 * npm run bench                   lists the benchmarks
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = import.meta.dirname;
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3))
  .sort();
const name = process.argv[2];
if (!name || !names.includes(name)) {
  process.stdout.write(`usage: npm run bench -- NAME\nbenchmarks: ${names.join(', ')}\n`);
  process.exit(name ? 2 : 0);
}
process.argv.splice(2, 1);
await import(pathToFileURL(path.join(dir, `${name}.ts`)).href);
