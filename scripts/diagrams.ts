/**
 * `npm run diagrams`: writes docs/statecharts/ from machines/index.ts (a Mermaid page
 * and a Graphviz SVG per machine, and README.md listing them). Files of removed
 * machines are deleted. test/unit/diagrams-drift.test.ts fails when the committed
 * files differ from what this would write.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { machines } from '../machines/index.ts';
import { generateStatecharts } from './lib/statechart.ts';

export const STATECHARTS_DIR = join(import.meta.dirname, '..', 'docs', 'statecharts');

const files = await generateStatecharts(machines);
await mkdir(STATECHARTS_DIR, { recursive: true });
for (const existing of await readdir(STATECHARTS_DIR)) {
  if (!files.has(existing) && /\.(md|svg)$/.test(existing)) {
    await rm(join(STATECHARTS_DIR, existing));
    console.log(`removed docs/statecharts/${existing}`);
  }
}
for (const [name, content] of files) await writeFile(join(STATECHARTS_DIR, name), content);
console.log(`wrote ${files.size} files to docs/statecharts/ for ${Object.keys(machines).length} machine(s)`);
