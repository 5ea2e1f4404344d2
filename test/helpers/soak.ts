/**
 * The soak (issue 41 §4), shared by `npm run bench -- soak` and its two-minute server
 * test (test/server/soak.test.ts): two compiled server processes on a private
 * PostgreSQL cluster (test/helpers/pg-cluster.ts) and one data folder; at a steady
 * rate, reporters file cases with a file, sign in and send messages, and handlers read
 * the inbox, answer and change statuses. Midway the cluster is restarted and one
 * process is killed with SIGKILL and started again on its port.
 *
 * Every write carries a marker of its own in its text, and the driver keeps a ledger:
 * what the server acknowledged (2xx) and what it sent without an answer (a refused
 * connection, a 5xx, a reset: it may or may not have landed). `reconcile` then reads
 * everything back as a handler, page by page, and lists every case or message lost
 * (acknowledged but missing), doubled (a marker twice) or foreign (a marker never sent).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startChildServer, type ChildServer } from './child-server.ts';
import { startPgCluster, type PgCluster } from './pg-cluster.ts';
import type { TestServer } from './server.ts';
import { Browser, signIn, type Tokens } from '../server/identity-flow.ts';

export interface SoakOptions {
  seconds: number;
  /** A new reporter every so many ms (default 1000). */
  reporterEveryMs?: number;
  /** Handler rounds every so many ms, per handler (default 1500). */
  handlerEveryMs?: number;
  handlers?: number;
  log?: (line: string) => void;
}

interface Sample {
  route: string;
  at: number;
  ms: number;
  kind: string;
}

export interface Fault {
  what: string;
  from: number;
  to: number;
}

export interface SoakReport {
  seconds: number;
  requests: number;
  /** Outcome kind (`ok` left out) → count. */
  errors: Record<string, number>;
  /** Errors of requests under way at no moment of any fault's window (its span plus GRACE_MS). */
  errorsOutsideFaults: Record<string, number>;
  faults: Fault[];
  /** Minute → route → p99 ms. */
  p99: Record<number, Record<string, number>>;
  /** Minute → process label → RSS MB. */
  rss: Record<number, Record<string, number>>;
  sent: { cases: number; casesUnanswered: number; messages: number; messagesUnanswered: number };
  reconciled: Reconciliation;
}

export interface Reconciliation {
  casesSeen: number;
  messagesSeen: number;
  lostCases: string[];
  doubledCases: string[];
  foreignCases: string[];
  lostMessages: string[];
  doubledMessages: string[];
  foreignMessages: string[];
  /** Acknowledged cases whose file is not there, once. */
  filesWrong: string[];
}

/** How long after a fault's end an error still counts as the fault's. */
export const GRACE_MS = 10_000;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
const PASSWORD = 'soak-pass-1234';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function multipart(part: string, json: unknown, file?: { name: string; bytes: Buffer; type: string }): { body: Buffer; type: string } {
  const boundary = `soak${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}\r\n`)];
  if (file) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const reporterEvery = opts.reporterEveryMs ?? 1000;
  const handlerEvery = opts.handlerEveryMs ?? 1500;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'wb-soak-'));
  const dataDir = path.join(tmp, 'shared');
  let cluster: PgCluster | undefined;
  const servers: (ChildServer | undefined)[] = [undefined, undefined];
  const ports = [await freePort(), await freePort()];
  const killed = new Set<number>();
  try {
    cluster = await startPgCluster();
    const env = {
      DATABASE_URL: cluster.url,
      MASTER_KEY: randomBytes(32).toString('base64'),
      PASSWORD_PEPPER: randomBytes(32).toString('base64'),
      POW_DIFFICULTY: '0',
      SUBMIT_RATE_LIMIT_MAX: '1000000',
      CHALLENGE_RATE_LIMIT_MAX: '1000000',
      CASE_WRITE_RATE_LIMIT_MAX: '1000000',
      REPORTER_RATE_LIMIT_MAX: '1000000',
      CASE_UPLOAD_SESSION_RATE_LIMIT_MAX: '1000000',
      LOG_LEVEL: 'error',
    };
    const crashes: string[] = [];
    const startServer = async (i: number) => {
      const s = await startChildServer({ dataDir, env: { ...env, PORT: String(ports[i]) } });
      servers[i] = s;
      // An exit the soak did not cause is a finding: kept with the process's last words.
      void s.exited.then((code) => {
        if (!killed.has(s.pid)) crashes.push(`process ${i === 0 ? 'A' : 'B'} exited (${code}): ${s.output().slice(-4000)}`);
      });
      return s;
    };
    await startServer(0);
    await startServer(1);
    const asServer = (i: number) => ({ url: `http://127.0.0.1:${ports[i]}`, port: ports[i] }) as TestServer;

    const admin = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
    const handlerTokens: string[] = [];
    for (let h = 0; h < (opts.handlers ?? 2); h++) {
      const res = await fetch(`${asServer(0).url}/api/admin/handlers`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ company: 'localhost', name: `Soak handler ${h}` }) });
      if (res.status !== 201) throw new Error(`handler account: ${res.status} ${await res.text()}`);
      handlerTokens.push(((await res.json()) as { token: string }).token);
    }
    const info = (await (await fetch(`${asServer(0).url}/api/public/case/company-info`)).json()) as { protectionOfficers: { id: string }[] };
    const officer = info.protectionOfficers[0]!.id;

    // ---- the ledger and the measurements ----
    const t0 = Date.now();
    const samples: Sample[] = [];
    const rss: Record<number, Record<string, number>> = {};
    const faults: Fault[] = [];
    const cases = new Map<string, { caseNumber: string }>(); // marker → acknowledged case
    const casesUnanswered = new Set<string>();
    const messages = new Map<string, string>(); // marker → case number (acknowledged)
    const messagesUnanswered = new Map<string, string>();
    const ackedNumbers: string[] = [];
    let seq = 0;

    /** One request, measured and classified; never throws. */
    async function send(route: string, i: number, p: string, init: RequestInit): Promise<{ status: number; json?: any }> {
      const start = Date.now();
      let kind = 'ok';
      let status = 0;
      let json: any;
      try {
        const res = await fetch(`${asServer(i).url}${p}`, { ...init, signal: AbortSignal.timeout(30_000) });
        status = res.status;
        const text = await res.text();
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        if (status >= 400) {
          kind = `http ${status}${json?.error?.code ? ` ${json.error.code}` : ''}`;
          if (process.env.SOAK_DEBUG) console.error(route, status, text.slice(0, 300));
        }
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause;
        kind = `network ${cause?.code ?? (err as Error).name}`;
      }
      samples.push({ route, at: start, ms: Date.now() - start, kind });
      return { status, json };
    }
    /** No answer that says whether it landed: a network failure or a 5xx. */
    const unanswered = (r: { status: number }) => r.status === 0 || r.status >= 500;

    async function reporter(n: number, end: number) {
      const i = n % 2;
      const marker = `soak-c${n}-${randomBytes(4).toString('hex')}`;
      const dto = { whistleblowerRelation: 'Employee', protectionOfficer: { id: officer }, description: marker, violation: 'THEFT', repeatedViolations: false, reportedPersons: [], reportedUnit: 'Depot', caseAccount: { follow: true, password: PASSWORD } };
      const form = multipart('caseDto', dto, { name: `${marker}.pdf`, bytes: PDF, type: 'application/pdf' });
      const created = await send('POST /api/public/case/new/by-form', i, '/api/public/case/new/by-form', { method: 'POST', headers: { 'content-type': form.type, 'x-company-host': 'localhost' }, body: new Uint8Array(form.body) });
      if (created.status === 201) {
        const caseNumber = created.json.caseDto.caseNumber as string;
        cases.set(marker, { caseNumber });
        ackedNumbers.push(caseNumber);
        let tokens: Tokens | undefined;
        for (let k = 0; k < 2 && Date.now() < end; k++) {
          await new Promise((r) => setTimeout(r, 2000));
          const via = (n + k) % 2;
          if (!tokens) {
            const start = Date.now();
            try {
              tokens = await signIn(new Browser(asServer(via), 'localhost'), caseNumber, PASSWORD);
              samples.push({ route: 'sign-in (whole flow)', at: start, ms: Date.now() - start, kind: 'ok' });
            } catch (err) {
              samples.push({ route: 'sign-in (whole flow)', at: start, ms: Date.now() - start, kind: `sign-in ${(err as Error).message.split('\n')[0]!.slice(0, 60)}` });
              continue;
            }
          }
          const m = `soak-m${n}.${k}-${randomBytes(4).toString('hex')}`;
          const body = multipart('messageDto', { message: m });
          const sent = await send('POST /api/private/case/messages/new', via, '/api/private/case/messages/new', { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': body.type }, body: new Uint8Array(body.body) });
          if (sent.status === 201) messages.set(m, caseNumber);
          else if (unanswered(sent)) messagesUnanswered.set(m, caseNumber);
          if (sent.status === 401) tokens = undefined;
        }
      } else if (unanswered(created)) casesUnanswered.add(marker);
    }

    async function handler(h: number, end: number) {
      let round = 0;
      while (Date.now() < end) {
        round++;
        const i = (h + round) % 2;
        const auth = { authorization: `Bearer ${handlerTokens[h]}` };
        await send('GET /api/handler/cases', i, '/api/handler/cases?limit=50', { headers: auth });
        const target = ackedNumbers.length ? ackedNumbers[Math.floor(Math.random() * ackedNumbers.length)]! : undefined;
        if (target) {
          const view = await send('GET /api/handler/cases/:caseNumber', i, `/api/handler/cases/${target}`, { headers: auth });
          const m = `soak-h${h}.${round}-${randomBytes(4).toString('hex')}`;
          const body = multipart('messageDto', { message: m });
          const sent = await send('POST /api/handler/cases/:caseNumber/messages', i, `/api/handler/cases/${target}/messages`, { method: 'POST', headers: { ...auth, 'content-type': body.type }, body: new Uint8Array(body.body) });
          if (sent.status === 201) messages.set(m, target);
          else if (unanswered(sent)) messagesUnanswered.set(m, target);
          if (round % 4 === 0 && view.status === 200 && view.json?.status === 'RECEIVED') {
            await send('PUT /api/handler/cases/:caseNumber/status', i, `/api/handler/cases/${target}/status`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'BEING_INVESTIGATED' }) });
          }
        }
        await new Promise((r) => setTimeout(r, handlerEvery));
      }
    }

    async function faultsMidway() {
      const at = (fraction: number) => new Promise((r) => setTimeout(r, Math.max(0, t0 + opts.seconds * 1000 * fraction - Date.now())));
      await at(0.4);
      let from = Date.now();
      log(`soak: restarting PostgreSQL at ${((from - t0) / 1000).toFixed(0)} s`);
      await cluster!.restart({ mode: 'fast', downMs: 2000 });
      faults.push({ what: 'PostgreSQL restart', from: from - t0, to: Date.now() - t0 });
      await at(0.6);
      from = Date.now();
      log(`soak: kill -9 of process B (pid ${servers[1]!.pid}) at ${((from - t0) / 1000).toFixed(0)} s`);
      killed.add(servers[1]!.pid);
      await servers[1]!.stop('SIGKILL');
      await startServer(1);
      faults.push({ what: 'kill -9 of one process, started again', from: from - t0, to: Date.now() - t0 });
      log(`soak: process B back (pid ${servers[1]!.pid}) after ${((Date.now() - from) / 1000).toFixed(1)} s`);
    }

    const end = t0 + opts.seconds * 1000;
    const work: Promise<unknown>[] = [faultsMidway()];
    for (let h = 0; h < handlerTokens.length; h++) work.push(handler(h, end));
    const sampler = setInterval(() => {
      const minute = Math.floor((Date.now() - t0) / 60_000);
      servers.forEach((s, i) => {
        const mb = s ? rssMb(s.pid) : undefined;
        if (mb !== undefined) (rss[minute] ??= {})[i === 0 ? 'A' : 'B'] = Math.max(rss[minute]?.[i === 0 ? 'A' : 'B'] ?? 0, mb);
      });
    }, 5000);
    while (Date.now() < end) {
      work.push(reporter(seq++, end));
      await new Promise((r) => setTimeout(r, reporterEvery));
    }
    await Promise.all(work);
    clearInterval(sampler);
    log(`soak: load over after ${((Date.now() - t0) / 1000).toFixed(0)} s; reconciling`);
    if (crashes.length) throw new Error(`a server process ended by itself during the soak:\n${crashes.join('\n')}`);

    // ---- reconcile: everything the handlers see, read back through process A ----
    const auth = { authorization: `Bearer ${handlerTokens[0]}` };
    const seenNumbers: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await fetch(`${asServer(0).url}/api/handler/cases?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { headers: auth });
      if (res.status !== 200) throw new Error(`reconcile: inbox ${res.status} ${await res.text()}`);
      const page = (await res.json()) as { cases: { caseNumber: string }[]; nextCursor: string | null };
      seenNumbers.push(...page.cases.map((c) => c.caseNumber));
      cursor = page.nextCursor;
    } while (cursor);
    const r: Reconciliation = { casesSeen: 0, messagesSeen: 0, lostCases: [], doubledCases: [], foreignCases: [], lostMessages: [], doubledMessages: [], foreignMessages: [], filesWrong: [] };
    const caseMarkers = new Map<string, string[]>();
    const messageMarkers = new Map<string, string[]>();
    const filesByCase = new Map<string, number>();
    const numberCount = new Map<string, number>();
    for (const n of seenNumbers) numberCount.set(n, (numberCount.get(n) ?? 0) + 1);
    for (const [n, k] of numberCount) if (k > 1) r.doubledCases.push(`case number ${n} ×${k} in the inbox`);
    for (const n of numberCount.keys()) {
      const res = await fetch(`${asServer(0).url}/api/handler/cases/${n}`, { headers: auth });
      if (res.status !== 200) throw new Error(`reconcile: case ${res.status} ${await res.text()}`);
      const view = (await res.json()) as { description: string | null; files: { name: string }[]; messages: { message: string }[] };
      r.casesSeen++;
      const marker = view.description ?? '';
      caseMarkers.set(marker, [...(caseMarkers.get(marker) ?? []), n]);
      filesByCase.set(n, view.files.filter((f) => f.name === `${marker}.pdf`).length);
      for (const m of view.messages) {
        r.messagesSeen++;
        messageMarkers.set(m.message, [...(messageMarkers.get(m.message) ?? []), n]);
      }
    }
    for (const [marker, numbers] of caseMarkers) {
      if (numbers.length > 1) r.doubledCases.push(`${marker} in ${numbers.length} cases`);
      const acked = cases.get(marker);
      if (!acked && !casesUnanswered.has(marker)) r.foreignCases.push(marker);
      if (acked && !numbers.includes(acked.caseNumber)) r.lostCases.push(`${marker}: acknowledged as ${acked.caseNumber}, found as ${numbers.join(', ')}`);
    }
    for (const [marker, { caseNumber }] of cases) {
      if (!caseMarkers.has(marker)) r.lostCases.push(`${marker} (${caseNumber})`);
      else if (filesByCase.get(caseNumber) !== 1) r.filesWrong.push(`${caseNumber}: ${filesByCase.get(caseNumber) ?? 0} files`);
    }
    for (const [marker, numbers] of messageMarkers) {
      if (numbers.length > 1) r.doubledMessages.push(`${marker} ×${numbers.length}`);
      const sentTo = messages.get(marker) ?? messagesUnanswered.get(marker);
      if (!sentTo || !numbers.every((n) => n === sentTo)) r.foreignMessages.push(`${marker} in ${numbers.join(', ')}`);
    }
    for (const [marker, n] of messages) if (!messageMarkers.has(marker)) r.lostMessages.push(`${marker} (${n})`);

    // ---- the figures ----
    const errors: Record<string, number> = {};
    const outside: Record<string, number> = {};
    for (const s of samples) {
      if (s.kind === 'ok') continue;
      errors[s.kind] = (errors[s.kind] ?? 0) + 1;
      // The fault's when the request was under way at any moment of the fault's window.
      const from = s.at - t0;
      const to = from + s.ms;
      if (!faults.some((f) => to >= f.from && from <= f.to + GRACE_MS)) outside[s.kind] = (outside[s.kind] ?? 0) + 1;
    }
    const p99: Record<number, Record<string, number>> = {};
    const byKey = new Map<string, number[]>();
    for (const s of samples) {
      const key = `${Math.floor((s.at - t0) / 60_000)}\u0000${s.route}`;
      byKey.set(key, [...(byKey.get(key) ?? []), s.ms]);
    }
    for (const [key, ms] of byKey) {
      const [minute, route] = key.split('\u0000') as [string, string];
      ms.sort((a, b) => a - b);
      (p99[Number(minute)] ??= {})[route] = ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)]!;
    }
    return {
      seconds: opts.seconds,
      requests: samples.length,
      errors,
      errorsOutsideFaults: outside,
      faults,
      p99,
      rss,
      sent: { cases: cases.size, casesUnanswered: casesUnanswered.size, messages: messages.size, messagesUnanswered: messagesUnanswered.size },
      reconciled: r,
    };
  } finally {
    for (const s of servers) {
      if (s) killed.add(s.pid);
      await s?.stop('SIGKILL');
    }
    await cluster?.destroy();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The report as text: errors by kind, p99 by route per minute, RSS per minute, the reconciliation. */
export function formatSoak(r: SoakReport): string {
  const lines: string[] = [];
  lines.push(`soak: ${r.seconds} s, ${r.requests} requests; sent ${r.sent.cases} cases acknowledged (+${r.sent.casesUnanswered} unanswered), ${r.sent.messages} messages acknowledged (+${r.sent.messagesUnanswered} unanswered)`);
  for (const f of r.faults) lines.push(`fault: ${f.what} from ${(f.from / 1000).toFixed(1)} s to ${(f.to / 1000).toFixed(1)} s`);
  lines.push('errors by kind (all | of requests under way at no moment of a fault or its next 10 s):');
  const kinds = new Set([...Object.keys(r.errors), ...Object.keys(r.errorsOutsideFaults)]);
  if (!kinds.size) lines.push('  none');
  for (const k of kinds) lines.push(`  ${k}: ${r.errors[k] ?? 0} | ${r.errorsOutsideFaults[k] ?? 0}`);
  const routes = [...new Set(Object.values(r.p99).flatMap((m) => Object.keys(m)))].sort();
  const minutes = Object.keys(r.p99).map(Number).sort((a, b) => a - b);
  lines.push(`p99 ms by route, per minute (${minutes.map((m) => m + 1).join(', ')}):`);
  for (const route of routes) lines.push(`  ${route}: ${minutes.map((m) => r.p99[m]?.[route] ?? '–').join(', ')}`);
  lines.push('RSS MB per minute (A, B):');
  for (const m of Object.keys(r.rss).map(Number).sort((a, b) => a - b)) lines.push(`  ${m + 1}: ${(r.rss[m]?.A ?? 0).toFixed(0)}, ${(r.rss[m]?.B ?? 0).toFixed(0)}`);
  const c = r.reconciled;
  lines.push(`reconciled: ${c.casesSeen} cases and ${c.messagesSeen} messages seen; lost ${c.lostCases.length} cases, ${c.lostMessages.length} messages; doubled ${c.doubledCases.length} cases, ${c.doubledMessages.length} messages; foreign ${c.foreignCases.length} cases, ${c.foreignMessages.length} messages; files wrong ${c.filesWrong.length}`);
  for (const [k, v] of Object.entries(c)) if (Array.isArray(v) && v.length) lines.push(`  ${k}: ${v.slice(0, 10).join('; ')}`);
  return lines.join('\n');
}
