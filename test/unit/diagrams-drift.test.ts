/**
 * The committed statecharts (docs/statecharts/) must be what the machines generate:
 * an auditor reads them instead of the code. Regenerates everything in memory.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machines } from '../../machines/index.ts';
import { generateStatecharts } from '../../scripts/lib/statechart.ts';

const DIR = join(import.meta.dirname, '..', '..', 'docs', 'statecharts');
const FIX = 'out of date: run `npm run diagrams` and commit docs/statecharts/';

describe('docs/statecharts/ matches machines/index.ts', async () => {
  const generated = await generateStatecharts(machines);

  it('has a file for every generated one, and no stale ones', () => {
    const onDisk = existsSync(DIR) ? readdirSync(DIR).filter((f) => /\.(md|svg)$/.test(f)).sort() : [];
    expect(onDisk, FIX).toEqual([...generated.keys()].sort());
  });

  for (const [name, content] of generated) {
    it(`${name} is up to date`, () => {
      const path = join(DIR, name);
      expect(existsSync(path), `docs/statecharts/${name} is missing: ${FIX}`).toBe(true);
      // Compare without a diff dump of a whole SVG: the message says what to do.
      const same = readFileSync(path, 'utf8') === content;
      expect(same, `docs/statecharts/${name} differs from the code: ${FIX}`).toBe(true);
    });
  }
});
