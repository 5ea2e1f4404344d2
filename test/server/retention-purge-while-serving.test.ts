/**
 * The retention purge while requests come (issue 41): on PGlite every statement holds
 * the one connection, so a purge that ran as one long statement (a VACUUM of the whole
 * database) kept every request waiting until it ended. The purge is now a string of
 * short statements with the requests in flight let through between them
 * (server/retention/purge.ts, docs/decisions/scale.md "The purge").
 *
 * Asserted on what the answers hold and on their order among the purge's steps, never on
 * time (the time is the scale bench's: `npm run bench -- scale`):
 * - a handler's case list asked for after the first deletion is answered before the
 *   last one: it lists the kept case and some, not all, of the due ones;
 * - one asked for when the space reclaim begins is answered before its CHECKPOINT,
 *   the reclaim's last statement, and lists no deleted case.
 * The old purge fails the second: its one VACUUM and the CHECKPOINT chained to it ran
 * before the request's first statement.
 *
 * Then, that the reclaim covered the tables the deletion left dead rows in (on PGlite
 * checked against the statistics of the tables rows were deleted from).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { TestClock } from '../../server/clock.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import { purge, purgedTables, type PurgeStep } from '../../server/retention/purge.ts';
import { addCompany } from './fixtures/company.ts';
import { call, caseDto, form, oralDto } from './api.ts';

const HOST = 'purge-serving.test';
const DAY = 24 * 3600_000;
const DUE = 40;

let server: TestServer;
let clock: TestClock;
let token: string;
let kept: string;
const due = new Set<string>();

beforeAll(async () => {
  clock = new TestClock();
  server = await startTestServer({ seedDemo: false, jobs: false }, { clock });
  const officer = (await addCompany(server.ctx.db, { id: 'purgeserving', hosts: [HOST] })).officerIds[0]!;
  token = (await createHandlerAccount(server.ctx.db, 'purgeserving', 'Paula')).token;
  // Phone cases whose call never came: due 90 days on (retention.unconfirmedCaseDays).
  for (let i = 0; i < DUE; i++) {
    const res = await call(server, 'POST', '/api/public/case/new/by-phone', { host: HOST, json: oralDto(officer) });
    expect(res.status).toBe(201);
    due.add(res.data.caseDto.caseNumber);
  }
  const open = await call(server, 'POST', '/api/public/case/new/by-form', { host: HOST, body: form('caseDto', caseDto(officer)) });
  expect(open.status).toBe(201);
  kept = open.data.caseDto.caseNumber;
  clock.advance(91 * DAY);
}, 300_000);
afterAll(async () => {
  await server?.cleanup();
});

async function listed(): Promise<string[]> {
  const res = await call(server, 'GET', '/api/handler/cases?limit=200', { token });
  expect(res.status).toBe(200);
  return (res.data.cases as { caseNumber: string }[]).map((c) => c.caseNumber);
}

describe('a large purge while a handler works', () => {
  const order: string[] = [];
  let duringDeletion: Promise<string[]> | undefined;
  let duringReclaim: Promise<string[]> | undefined;
  let result: Awaited<ReturnType<typeof purge>>;
  let deadBefore: Map<string, number>;
  let vacuumed: string[] = [];

  beforeAll(async () => {
    if (server.ctx.dbKind === 'pglite') deadBefore = await deletedTuples();
    const onStep = (s: PurgeStep) => {
      order.push(s.step);
      if (s.step === 'deleted' && !duringDeletion) duringDeletion = listed().finally(() => order.push('answer during deletion'));
      if (s.step === 'reclaiming') duringReclaim = listed().finally(() => order.push('answer during reclaim'));
      if (s.step === 'vacuumed') vacuumed.push(s.table);
    };
    result = await purge(server.ctx, clock.now(), { onStep });
    await Promise.all([duringDeletion, duringReclaim]);
  }, 300_000);

  it('deletes every due case and keeps the open one', async () => {
    expect(result.cases.map((c) => c.caseNumber).sort()).toEqual([...due].sort());
    expect(await listed()).toEqual([kept]);
  });

  it('answers a request sent after the first deletion before the last one, with the kept case and the due cases not yet deleted', async () => {
    const seen = await duringDeletion!;
    expect(seen).toContain(kept);
    const stillThere = seen.filter((n) => due.has(n));
    // Sent after one case was deleted, answered while others were still there.
    expect(stillThere.length).toBeLessThan(DUE);
    expect(stillThere.length).toBeGreaterThan(0);
    expect(seen.filter((n) => n !== kept && !due.has(n))).toEqual([]);
    const lastDeletion = order.lastIndexOf('deleted');
    expect(order.indexOf('answer during deletion')).toBeLessThan(lastDeletion);
  });

  it('answers a request sent when the space reclaim begins before the reclaim ends, without the deleted cases', async () => {
    expect(await duringReclaim!).toEqual([kept]);
    expect(order.indexOf('answer during reclaim')).toBeGreaterThan(order.indexOf('reclaiming'));
    expect(order.indexOf('answer during reclaim')).toBeLessThan(order.indexOf('checkpointed'));
    expect(order.filter((s) => s === 'vacuumed').length).toBeGreaterThan(1);
  });

  it('vacuums every table the deletions left dead rows in, each by itself', async () => {
    expect(vacuumed).toEqual(await purgedTables(server.ctx.db));
    expect(vacuumed).toEqual(expect.arrayContaining(['report_case', 'case_status_event', 'case_account', 'oidc_payload']));
    // An independent list: the statistics of the tables rows were deleted from. PGlite's
    // one backend flushes them on demand; on PostgreSQL each pool connection flushes its
    // own when idle, so they are read on PGlite only.
    if (server.ctx.dbKind !== 'pglite') return;
    const after = await deletedTuples();
    const touched = [...after].filter(([t, n]) => n > (deadBefore.get(t) ?? 0)).map(([t]) => t);
    // The control: the deletion did leave dead rows, in the case's table and its cascades.
    expect(touched).toEqual(expect.arrayContaining(['report_case', 'case_status_event', 'case_account']));
    expect(vacuumed).toEqual(expect.arrayContaining(touched));
  });
});

/** Rows deleted per table so far, as the statistics count them (flushed first). */
async function deletedTuples(): Promise<Map<string, number>> {
  await sql`select pg_stat_force_next_flush()`.execute(server.ctx.db);
  // A flush happens at the end of a statement: one statement more, so the numbers read are current.
  await sql`select 1`.execute(server.ctx.db);
  const { rows } = await sql<{ relname: string; n: string }>`select relname, n_tup_del as n from pg_stat_user_tables`.execute(server.ctx.db);
  return new Map(rows.map((r) => [r.relname, Number(r.n)]));
}
