/**
 * The browser half of `npm run bench -- crypto --browser` (test/helpers/crypto-bench.ts)
 * runs end to end at 4 MiB against the real portal with SEALED_CASES=browser: the plain
 * and the sealed upload of the same file through the SPA's own code, the sealed case,
 * the handler's page opening the download and saving it into the origin private file
 * system. What is checked is that it gets through and that the file saved is the file
 * sent; the times and the memory are printed, never asserted (that is the bench's job).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPortal, type Portal } from './harness.ts';
import { formatSealedFileFigures, sealedFileFigures } from '../helpers/crypto-bench.ts';

let portal: Portal;

beforeAll(async () => {
  portal = await startPortal({ sealedCases: 'browser', powDifficulty: 0 });
}, 60_000);

afterAll(async () => {
  await portal?.server.cleanup();
});

describe('npm run bench -- crypto --browser, at 4 MiB', () => {
  it('uploads plain and sealed, opens and saves the sealed file in the page, and prints each figure beside its baseline', async () => {
    const origin = portal.url('localhost', '');
    const figures = await sealedFileFigures({ origin, db: portal.server.ctx.db, adminToken: portal.server.ctx.adminToken }, 4);
    const lines = formatSealedFileFigures(figures);
    console.log(lines.join('\n'));
    expect(figures.saved).toEqual({ bytes: 4 * 1024 * 1024, sameBytes: true });
    // Every figure is there, beside its baseline, with the memory budget named.
    for (const label of ['plain tus upload (baseline)', 'sealed tus upload', 'sealed / plain', 'save unopened to OPFS (base)', 'open + save to OPFS', 'opened / unopened']) {
      expect(lines.some((l) => l.trimStart().startsWith(label)), label).toBe(true);
    }
    expect(lines.join('\n')).toMatch(/budget 100 MB above idle/);
    // The sealed case holds the one file, stored as ciphertext of the padded size's bucket.
    const files = await portal.server.ctx.db.selectFrom('case_file').innerJoin('report_case', 'report_case.id', 'case_file.case_id').select(['report_case.sealed', 'case_file.size']).where('report_case.sealed', '=', true).execute();
    expect(files).toHaveLength(1);
    expect(Number(files[0]!.size)).toBeGreaterThanOrEqual(4 * 1024 * 1024);
  }, 240_000);
});
