/**
 * `npm run bench -- inbox` (bench/inbox.ts) end to end at a small size: seeding sealed
 * cases through the routes, the compiled server on each data folder, the server's
 * figures and the Chromium ones at 4x throttle, printed as the table of the large size
 * beside the baseline. What is checked is that it gets through and prints every figure
 * for both sizes; the times are printed, never asserted (that is the bench's job).
 */
import { describe, expect, it } from 'vitest';
import { inboxBench } from '../../bench/inbox.ts';

describe('npm run bench -- inbox, at 12 cases beside a 4-case baseline', () => {
  it('seeds, measures the server and Chromium, and prints each figure beside its baseline', async () => {
    const { lines, results } = await inboxBench(12, 4);
    console.log(lines.join('\n'));
    expect(results.map((r) => r.size)).toEqual([4, 12]);
    expect(lines[0]).toMatch(/12 sealed cases of one company beside a 4-case baseline/);
    expect(lines[1]).toBe('| figure | 4 cases (baseline) | 12 cases |');
    const rows = lines.slice(3);
    for (const label of [
      'server: inbox first page',
      'server: one batch of summaries',
      'Chromium 4x: navigation to first inbox rows',
      'Chromium 4x: in-app link to first rows',
      "Chromium 4x: ... to the first page's category and language opened",
      'Chromium 4x: "fuel" typed to its one row',
    ]) {
      const row = rows.find((l) => l.startsWith(`| ${label}`));
      expect(row, label).toBeDefined();
      // A figure in both columns: the baseline's and the large size's.
      const cells = row!.split('|').slice(2, 4).map((c) => c.trim());
      expect(cells.every((c) => /^\d+(\.\d+)?( \/ \d+(\.\d+)?)?$/.test(c)), `${label}: ${row}`).toBe(true);
    }
  }, 600_000);
});
