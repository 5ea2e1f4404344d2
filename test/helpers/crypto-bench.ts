/**
 * The browser half of `npm run bench -- crypto --browser` (issue 37 §8), shared with its
 * smoke test (test/e2e/bench-crypto.test.ts), which runs it at a few MiB and checks
 * that it gets through and that the saved file is the file sent, never how fast.
 *
 * Against a real portal (SEALED_CASES=browser, the demo company with a key anchor and a
 * handler's certified key, set up as test/e2e/sealed-reporter-files.test.ts does), in
 * Chromium on one of the portal's own pages, with the SPA's own upload code bundled in:
 * 1. a generated file of `sizeMb` MiB, picked in a file input (backed by the disk file),
 *    uploaded by the plain path (src/uploads/resumable.ts `uploadFiles`: tus, 64 MiB
 *    PATCHes, the server encrypts) and by the sealed path (src/forms/sealFiles.ts
 *    `uploadSealedFiles`: the content check, core/crypto `SealedFileSource` sealing
 *    8 MiB ranges with `FileChunkSealer`, tus), both timed in the page;
 * 2. a sealed case naming the sealed upload, sealed in the page to the keys of the
 *    verified key log; the handler's page (its keys made in the page) opens the wrap,
 *    the file name, and saves the download opened by `openSealedFile` into the origin
 *    private file system (`createWritable`), as the private area's save writes to the
 *    picker's file; the baseline is the same download written there unopened.
 * During each phase the page's memory (CDP Runtime.getHeapUsage: V8's heap, Blink's heap
 * and array buffers' backing stores) and the RSS of the browser's renderer processes
 * (/proc) are sampled every 50 ms; the figures are their peaks above the idle page
 * (after a garbage collection).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import type { Kysely } from 'kysely';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { hashKeyLogEntry, keyId, makeHandlerKeys, signKeyLogEntry, toBase64, fromBase64, type KeyLogEntry } from '../../core/crypto/index.ts';
import { createHandlerAccount } from '../../server/handlers/accounts.ts';
import type { DB } from '../../server/db/schema.ts';
import { CHROMIUM_ARGS, chromiumPath } from '../e2e/harness.ts';

const MiB = 1024 * 1024;
const HOST = 'localhost';
/** The page's memory budget while it opens and saves a file (issue 37 §8). */
export const OPEN_BUDGET_MB = 100;

export interface BenchPortal {
  /** http://localhost:PORT: a secure context, and the demo company's host. */
  origin: string;
  db: Kysely<DB>;
  adminToken: string;
}

export interface PhaseFigure {
  ms: number;
  /** Peak page memory (JS heap, Blink's heap, array buffers) above the idle page, MiB. */
  heapMb: number;
  /** Peak RSS of the renderer processes above idle, MiB (null where /proc is not there). */
  rssMb: number | null;
}

export interface SealedFileFigures {
  sizeMb: number;
  chromium: string;
  plainUpload: PhaseFigure;
  sealedUpload: PhaseFigure;
  plainSave: PhaseFigure;
  openSave: PhaseFigure;
  /** Bytes of the file the page saved, and whether its SHA-256 is the sent file's (checked up to 64 MiB). */
  saved: { bytes: number; sameBytes: boolean | null };
}

/** The page's script: core/crypto and the SPA's two upload paths, for `window.wbBench`. */
async function pageBundle(): Promise<string> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [path.join(import.meta.dirname, 'crypto-bench-page.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'wbBench',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { 'import.meta.env': '{"DEV":false}' },
    plugins: [
      {
        // The proof-of-work worker (Vite's `?worker&url`): never started, the bench hands the page a proof of work factor 0.
        name: 'worker-url',
        setup(b) {
          b.onResolve({ filter: /\?worker&url$/ }, (a) => ({ path: a.path, namespace: 'stub' }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export default ""', loader: 'js' }));
        },
      },
    ],
  });
  // (__name: tsx names the functions page.evaluate sends; the page needs the helper.)
  return `window.__name = (f) => f;\n${out.outputFiles[0]!.text}`;
}

/** A file of `mb` MiB whose first bytes say MP4 (the content check on both paths), random after. */
async function makeFile(dir: string, mb: number): Promise<string> {
  const file = path.join(dir, 'bench.mp4');
  const out = createWriteStream(file);
  const block = randomBytes(MiB);
  for (let i = 0; i < mb; i++) {
    const piece = i === 0 ? Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom'), block.subarray(12)]) : block;
    if (!out.write(piece)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return file;
}

const rssOf = (pid: number): number => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
};

/** The renderer processes of the browser started with `mark` among its arguments (its descendants with --type=renderer). */
function rendererPids(mark: string): number[] {
  if (!existsSync('/proc/self/stat')) return [];
  const procs = new Map<number, { ppid: number; cmd: string }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      procs.set(Number(d), { ppid, cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  const root = [...procs].find(([, p]) => p.cmd.includes(mark) && !p.cmd.includes('--type='))?.[0];
  if (root === undefined) return [];
  const under = (pid: number): boolean => {
    for (let p = procs.get(pid)?.ppid; p !== undefined && p > 1; p = procs.get(p)?.ppid) if (p === root) return true;
    return false;
  };
  return [...procs].filter(([pid, p]) => p.cmd.includes('--type=renderer') && under(pid)).map(([pid]) => pid);
}

/**
 * The page's memory, MiB: V8's used heap, the embedder's (Blink's) garbage-collected
 * heap, and the backing stores of array buffers (where file bytes sit, outside the JS
 * heap proper: JSHeapUsedSize alone would not see a file held in Uint8Arrays).
 */
async function pageMemory(cdp: CDPSession): Promise<number> {
  const u = await cdp.send('Runtime.getHeapUsage');
  return (u.usedSize + (u.embedderHeapUsedSize ?? 0) + (u.backingStorageSize ?? 0)) / MiB;
}

/** Samples page memory and renderer RSS every 50 ms while `run` runs; figures above the idle values given. */
async function sampled(cdp: CDPSession, pids: () => number[], idle: { heap: number; rss: number }, run: () => Promise<number>): Promise<PhaseFigure> {
  let heap = idle.heap;
  let rss = idle.rss;
  let stop = false;
  const sample = async () => {
    heap = Math.max(heap, await pageMemory(cdp));
    rss = Math.max(rss, pids().reduce((s, p) => s + rssOf(p), 0));
  };
  const loop = (async () => {
    while (!stop) {
      await sample().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    const ms = await run();
    await sample().catch(() => undefined);
    return { ms, heapMb: heap - idle.heap, rssMb: pids().length ? rss - idle.rss : null };
  } finally {
    stop = true;
    await loop;
  }
}

async function idleOf(cdp: CDPSession, pids: () => number[]): Promise<{ heap: number; rss: number }> {
  await cdp.send('HeapProfiler.collectGarbage');
  await new Promise((r) => setTimeout(r, 500));
  return { heap: await pageMemory(cdp), rss: pids().reduce((s, p) => s + rssOf(p), 0) };
}

async function api(portal: BenchPortal, method: string, pathname: string, opts: { token?: string; json?: unknown } = {}) {
  const headers: Record<string, string> = { 'x-company-host': HOST };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${portal.origin}${pathname}`, { method, headers, body: opts.json === undefined ? undefined : JSON.stringify(opts.json) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

type Win = Window & { wbBench: typeof import('./crypto-bench-page.ts'); wbHandler?: unknown; wbUpload?: unknown };

/**
 * Runs the sealed-file figures against `portal` (which this sets up: key anchor, a handler
 * of the first officer with a certified key made in the page). `log`: progress lines.
 */
export async function sealedFileFigures(portal: BenchPortal, sizeMb: number, log: (line: string) => void = () => {}): Promise<SealedFileFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-crypto-'));
  const mark = `--wb-bench-run=${randomBytes(6).toString('hex')}`;
  // A profile on disk, not an incognito context: there the origin private file system lives in memory, under a small quota.
  const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, mark], headless: true, bypassCSP: true, serviceWorkers: 'block', acceptDownloads: false,
  });
  try {
    log(`writing a ${sizeMb} MiB file…`);
    const file = await makeFile(dir, sizeMb);
    const info = (await api(portal, 'GET', '/api/public/case/company-info')) as { id?: string; protectionOfficers: { id: string }[] };
    const officerId = info.protectionOfficers[0]!.id;
    const company = (await portal.db.selectFrom('company_host').select('company_id').where('host', '=', HOST).executeTakeFirstOrThrow()).company_id;

    // The page: one of the portal's own (the built SPA), with the bench's script added (so the CSP is bypassed for it).
    const page: Page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${portal.origin}/`);
    await page.addScriptTag({ content: await pageBundle() });
    // DevTools' Network domain (always on under Playwright) copies every byte body an
    // XMLHttpRequest sends for its request records, and not a Blob's: measured, 4 × 8 MiB
    // as Uint8Arrays took 223 ms with no DevTools attached and 5,480 ms under Playwright
    // (as Blobs 337 and 1,984 ms). The sealed PATCHes are Uint8Arrays, so this page hands
    // XHR their bytes as a Blob: the figure is the browser's, not the instrument's.
    await page.evaluate(() => {
      const send = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function (body?: Document | XMLHttpRequestBodyInit | null) {
        return send.call(this, ArrayBuffer.isView(body) ? new Blob([body as BlobPart]) : body);
      };
    });
    await page.waitForFunction(() => typeof (window as unknown as Win).wbBench?.core?.makeHandlerKeys === 'function');
    const cdp = await context.newCDPSession(page);
    await cdp.send('Runtime.enable');
    let pids = rendererPids(mark);
    const renderers = () => (pids.length ? pids : (pids = rendererPids(mark)));

    // Keys: the company's recovery key (here), the handler's key pair made in the page and certified by it.
    const recovery = await makeHandlerKeys();
    await fetch(`${portal.origin}/api/admin/companies/${company}/key-anchor`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${portal.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ecdhSpki: toBase64(recovery.ecdhSpki), ecdsaSpki: toBase64(recovery.ecdsaSpki) }),
    }).then(async (r) => {
      // A portal set up before (the smoke test's) keeps its anchor: this run's handler is then certified by nothing.
      if (r.status !== 201) throw new Error(`key anchor: ${r.status} ${await r.text()}`);
    });
    const handler = await createHandlerAccount(portal.db, company, `Bench ${randomBytes(3).toString('hex')}`, { officers: [officerId] });
    const spkis = await page.evaluate(async () => {
      const w = window as unknown as Win;
      const keys = await w.wbBench.core.makeHandlerKeys();
      w.wbHandler = keys;
      return { ecdh: w.wbBench.core.toBase64(keys.ecdhSpki), ecdsa: w.wbBench.core.toBase64(keys.ecdsaSpki) };
    });
    const { entries } = (await api(portal, 'GET', '/api/public/key-log')) as { entries: KeyLogEntry[] };
    const prev = entries.at(-1);
    const entry = await signKeyLogEntry(recovery.ecdsa.privateKey, {
      seq: entries.length + 1, handlerId: handler.id, ecdhSpki: spkis.ecdh, ecdsaSpki: spkis.ecdsa, officerIds: [officerId],
      addedAt: new Date().toISOString(), action: 'add', prevHash: prev ? await hashKeyLogEntry(prev) : '', certifierKeyId: await keyId(recovery.ecdsaSpki),
    });
    await api(portal, 'POST', '/api/handler/key-log', { token: handler.token, json: entry });
    await portal.db.updateTable('handler_account').set({ ecdh_spki: Buffer.from(fromBase64(spkis.ecdh)), ecdsa_spki: Buffer.from(fromBase64(spkis.ecdsa)) }).where('id', '=', handler.id).execute();

    // The file, picked as a reporter picks one (the page reads it from disk).
    await page.evaluate(() => {
      const input = document.createElement('input');
      input.type = 'file';
      input.id = 'wb-bench-file';
      input.hidden = true;
      document.body.append(input);
    });
    await page.setInputFiles('#wb-bench-file', file);
    const proof = async () => {
      const c = (await api(portal, 'GET', '/api/public/pow/challenge')) as { challenge: string; difficulty: number; expiresAt: string };
      if (c.difficulty !== 0) throw new Error(`the portal asks for proof-of-work ${c.difficulty}: run it with POW_DIFFICULTY=0`);
      return { challenge: c.challenge, nonce: '0', expiresAt: c.expiresAt };
    };

    log(`plain upload of ${sizeMb} MiB in the page…`);
    let idle = await idleOf(cdp, renderers);
    const plainProof = await proof();
    const plainUpload = await sampled(cdp, renderers, idle, () =>
      page.evaluate(async ({ proof, host }) => {
        const w = window as unknown as Win;
        const f = (document.getElementById('wb-bench-file') as HTMLInputElement).files![0]!;
        const api = w.wbBench.createApiClient({ baseUrl: location.origin, companyHost: host });
        const t0 = performance.now();
        const done = await w.wbBench.uploadFiles(api, host, [f as never], proof, () => {}, undefined, w.wbBench.newUploadMemory());
        const ms = performance.now() - t0;
        if (!done || !('ids' in done)) throw new Error(`plain upload: ${JSON.stringify(done)}`);
        return ms;
      }, { proof: plainProof, host: HOST }),
    );

    log(`sealed upload of ${sizeMb} MiB in the page…`);
    idle = await idleOf(cdp, renderers);
    const sealedProof = await proof();
    const sealedUpload = await sampled(cdp, renderers, idle, () =>
      page.evaluate(async ({ proof, host }) => {
        const w = window as unknown as Win;
        const f = (document.getElementById('wb-bench-file') as HTMLInputElement).files![0]!;
        const api = w.wbBench.createApiClient({ baseUrl: location.origin, companyHost: host });
        const t0 = performance.now();
        const done = await w.wbBench.uploadSealedFiles(api, host, { files: [f as never], proof, reportProgress: () => {} }, undefined, w.wbBench.newSealedUploadMemory());
        const ms = performance.now() - t0;
        if (!done || !('sealedUploads' in done)) throw new Error(`sealed upload: ${JSON.stringify(done)}`);
        w.wbUpload = done.sealedUploads;
        return ms;
      }, { proof: sealedProof, host: HOST }),
    );

    // The case that names the sealed upload, sealed in the page to the keys of the log it verified.
    const caseProof = await proof();
    const caseNumber = await page.evaluate(async ({ proof, host, officerId }) => {
      const w = window as unknown as Win;
      const c = w.wbBench.core;
      const up = w.wbUpload as { caseId: string; dataKey: Uint8Array; session: string; ids: string[] };
      const log = await (await fetch('/api/public/key-log')).json();
      const recipients = await c.recipientsFor(log, officerId);
      if (!recipients.ok) throw new Error(`key log: ${recipients.reason}`);
      const sealed = await c.sealNewCase(recipients, { caseId: up.caseId, dataKey: new Uint8Array(up.dataKey), details: { description: 'Bench', violation: 'DONT_KNOW', repeatedViolations: false, whistleblowerRelation: 'Bench', reportedPersons: [], reportedUnit: null } });
      const res = await fetch('/api/public/case/new/sealed', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-company-host': host, 'x-upload-session': up.session, 'x-proof-of-work': `${proof.challenge}:${proof.nonce}` },
        body: JSON.stringify({ caseId: sealed.caseId, protectionOfficer: { id: officerId }, subsidiary: null, caseAccount: { follow: false }, envelopes: sealed.envelopes, wraps: sealed.wraps, uploads: up.ids }),
      });
      if (res.status !== 201) throw new Error(`sealed case: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { caseDto: { caseNumber: string } }).caseDto.caseNumber;
    }, { proof: caseProof, host: HOST, officerId });

    // The handler's page: the case's key from its wrap, the file's name and true size.
    await page.evaluate(async ({ caseNumber, token }) => {
      const w = window as unknown as Win & { wbCase?: unknown };
      const c = w.wbBench.core;
      const keys = w.wbHandler as Awaited<ReturnType<typeof c.makeHandlerKeys>>;
      const view = await (await fetch(`/api/handler/cases/${caseNumber}/sealed`, { headers: { authorization: `Bearer ${token}` } })).json();
      const dk = await c.openSealedBox(keys.ecdh, c.fromBase64(view.wrap.wrap), { caseId: view.caseId, epoch: view.epoch, recipientKeyId: await c.keyId(keys.ecdhSpki) });
      const f = view.files[0];
      const name = await c.openFileName(dk, view.caseId, f.id, f.name);
      w.wbCase = { dk, file: { id: f.id, ...name }, url: `/api/handler/cases/${caseNumber}/files/${f.id}`, token };
    }, { caseNumber, token: handler.token });

    const save = (open: boolean) =>
      page.evaluate(async (open) => {
        const w = window as unknown as Win & { wbCase: { dk: Uint8Array; file: { id: string; name: string; size: number | null }; url: string; token: string } };
        const { dk, file, url, token } = w.wbCase;
        const root = await navigator.storage.getDirectory();
        const name = open ? 'opened.bin' : 'sealed.bin';
        for (const n of ['opened.bin', 'sealed.bin']) await root.removeEntry(n).catch(() => undefined);
        const t0 = performance.now();
        const target = await (await root.getFileHandle(name, { create: true })).createWritable();
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        if (res.status !== 200) throw new Error(`download: ${res.status}`);
        await (open ? w.wbBench.core.openSealedFile(dk, file, res.body!) : res.body!).pipeTo(target);
        return performance.now() - t0;
      }, open);

    log(`saving the sealed download unopened (baseline)…`);
    idle = await idleOf(cdp, renderers);
    const plainSave = await sampled(cdp, renderers, idle, () => save(false));
    log(`opening and saving ${sizeMb} MiB in the page…`);
    idle = await idleOf(cdp, renderers);
    const openSave = await sampled(cdp, renderers, idle, () => save(true));

    const check = sizeMb <= 64;
    const saved = await page.evaluate(async (check) => {
      const root = await navigator.storage.getDirectory();
      const f = await (await root.getFileHandle('opened.bin')).getFile();
      const digest = check ? Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', await f.arrayBuffer())), (b) => b.toString(16).padStart(2, '0')).join('') : null;
      for (const n of ['opened.bin', 'sealed.bin']) await root.removeEntry(n).catch(() => undefined);
      return { bytes: f.size, digest };
    }, check);
    const want = check ? createHash('sha256').update(readFileSync(file)).digest('hex') : null;
    const version = /\/([\d.]+)/.exec((await cdp.send('Browser.getVersion')).product)?.[1] ?? '?';
    return {
      sizeMb,
      chromium: version,
      plainUpload,
      sealedUpload,
      plainSave,
      openSave,
      saved: { bytes: saved.bytes, sameBytes: check ? saved.digest === want : null },
    };
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures as the bench prints them, each beside its same-run baseline. */
export function formatSealedFileFigures(f: SealedFileFigures): string[] {
  const rate = (p: PhaseFigure) => `${(f.sizeMb / (p.ms / 1000)).toFixed(1).padStart(6)} MiB/s (${(p.ms / 1000).toFixed(2)} s)`;
  const mem = (p: PhaseFigure) => `page memory +${p.heapMb.toFixed(1)} MiB, renderer RSS ${p.rssMb === null ? 'n/a' : `+${p.rssMb.toFixed(1)} MiB`}`;
  const budget = (p: PhaseFigure) => `budget ${OPEN_BUDGET_MB} MB above idle: ${Math.max(p.heapMb, p.rssMb ?? 0) * 1.048576 <= OPEN_BUDGET_MB ? 'within' : 'OVER'}`;
  return [
    `Chromium ${f.chromium} on the portal (SEALED_CASES=browser), ${f.sizeMb} MiB file, no throttle`,
    `  plain tus upload (baseline)    ${rate(f.plainUpload)}  ${mem(f.plainUpload)}`,
    `  sealed tus upload              ${rate(f.sealedUpload)}  ${mem(f.sealedUpload)}`,
    `  sealed / plain                 ${(f.plainUpload.ms / f.sealedUpload.ms).toFixed(2)}× the plain upload's speed (aim ≥ 0.7×)`,
    `  save unopened to OPFS (base)   ${rate(f.plainSave)}  ${mem(f.plainSave)}`,
    `  open + save to OPFS            ${rate(f.openSave)}  ${mem(f.openSave)}  (${budget(f.openSave)})`,
    `  opened / unopened              ${(f.plainSave.ms / f.openSave.ms).toFixed(2)}× the unopened save's speed; saved ${f.saved.bytes} bytes${f.saved.sameBytes === null ? '' : f.saved.sameBytes ? ', the file as sent' : ', NOT the file as sent'}`,
  ];
}
