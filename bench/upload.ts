/**
 * npm run bench -- upload [MB]   (default 1024)
 *
 * One run, three measurements of the same bytes sent over HTTP from this process:
 * 1. POST /api/public/case/new/by-form on the real server, compiled and started as
 *    `npm start` starts it (a child process: multipart parsing, content sniffing,
 *    AES-256-GCM chunk encryption, disk; needs `npm run build`);
 * 2. the same file as a resumable (tus) upload on the same server, in 64 MiB PATCHes
 *    as the SPA sends them, then the case that takes it (the upload is read back
 *    once, decrypted, for the content check);
 * 3. a bare Node HTTP server (also a child process) that pipes the request body
 *    straight to a file.
 * 4. the multipart file downloaded back, decrypted, by a handler, beside the bare
 *    server sending the file it wrote straight from disk (the download's baseline:
 *    what Node's own reads and writes of the same bytes leave for the collector).
 * Prints MB/s for each and their ratio, and the server's peak RSS growth over its
 * resting RSS while each upload (and the download) runs, sampled from /proc every
 * 20 ms. The budget is a growth under 64 MB, for every path.
 *
 * The portal runs on the embedded database unless DATABASE_URL names a PostgreSQL
 * one (an empty database); FILE_STORE chooses the file store as for `npm start`
 * (`FILE_STORE=postgres DATABASE_URL=… npm run bench -- upload 2048`: the files in
 * chunk rows, docs/decisions/file-store.md).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, servedAsNpmStart, start } from './_servers.ts';

const MB = 1024 * 1024;
const sizeMb = Number(process.argv[2] ?? 1024);
const BUDGET_MB = 64;
const ROOT = path.resolve(import.meta.dirname, '..');
const block = randomBytes(MB);

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Runs `load` against the process `pid` after its heap has settled for a second, and
 * returns what it gave with the process's resting RSS before it and its peak RSS
 * during it (sampled every 20 ms), in MiB.
 */
async function peakRssDuring<T>(pid: number, load: () => Promise<T>): Promise<{ result: T; resting: number; peak: number }> {
  await new Promise((r) => setTimeout(r, 1000));
  const resting = rssMb(pid);
  let peak = resting;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 20);
  try {
    const result = await load();
    return { result, resting, peak: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(sampler);
  }
}

/** User and system CPU seconds the process has used so far. */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 }; // clock ticks (100 Hz)
}

/** Streams a multipart body of `prefix`, `mb` MiB of file bytes and `suffix`; resolves with seconds taken and the answer. */
function upload(port: number, p: string, headers: Record<string, string>, prefix: Buffer, fileHead: Buffer, mb: number, suffix: Buffer): Promise<{ seconds: number; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const length = prefix.length + mb * MB + suffix.length;
    const t0 = process.hrtime.bigint();
    const req = http.request({ host: '127.0.0.1', port, path: p, method: 'POST', headers: { ...headers, 'content-length': String(length) } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write(prefix);
    req.write(fileHead);
    let sent = 0;
    const pump = () => {
      while (sent < mb) {
        // The first block loses fileHead's length so the file is exactly mb MiB.
        const chunk = sent === 0 ? block.subarray(fileHead.length) : block;
        sent++;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(suffix);
    };
    pump();
  });
}

/** GET `p` with `headers`, its body counted and dropped; resolves with seconds, status and bytes. */
function download(port: number, p: string, headers: Record<string, string>): Promise<{ seconds: number; status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http
      .get({ host: '127.0.0.1', port, path: p, headers }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A tus PATCH of `mb` MiB at `offset` MiB; the file's first bytes are `fileHead`. */
function patch(port: number, p: string, headers: Record<string, string>, offsetMb: number, mb: number, fileHead: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: p, method: 'PATCH', headers: { ...headers, 'upload-offset': String(offsetMb * MB), 'content-type': 'application/offset+octet-stream', 'content-length': String(mb * MB) } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < mb) {
        const chunk = sent === 0 && offsetMb === 0 ? Buffer.concat([fileHead, block.subarray(fileHead.length)]) : block;
        sent++;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** The same file as a resumable upload, as the SPA sends it, then the case; resolves with seconds taken (upload and case). */
async function tusUpload(port: number, dto: Record<string, unknown>, fileHead: Buffer, mb: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  const base = `http://127.0.0.1:${port}`;
  const host = { 'x-company-host': 'localhost' };
  const s = await fetch(`${base}/api/public/upload-sessions`, { method: 'POST', headers: host });
  if (s.status !== 201) throw new Error(`upload session: ${s.status} ${await s.text()}`);
  const session = ((await s.json()) as { uploadSession: string }).uploadSession;
  const tus = { 'tus-resumable': '1.0.0', 'x-upload-session': session };
  const c = await fetch(`${base}/api/public/uploads`, {
    method: 'POST',
    headers: { ...tus, 'upload-length': String(mb * MB), 'upload-metadata': `filename ${Buffer.from('bench.mp4').toString('base64')}` },
  });
  if (c.status !== 201) throw new Error(`tus creation: ${c.status} ${await c.text()}`);
  const location = c.headers.get('location')!;
  for (let at = 0; at < mb; at += 64) {
    const r = await patch(port, location, tus, at, Math.min(64, mb - at), fileHead);
    if (r.status !== 204) throw new Error(`tus PATCH at ${at} MiB: ${r.status} ${r.body}`);
  }
  const form = new FormData();
  form.append('caseDto', JSON.stringify({ ...dto, uploads: [location.split('/').pop()] }));
  const done = await fetch(`${base}/api/public/case/new/by-form`, { method: 'POST', headers: { ...host, 'x-upload-session': session }, body: form });
  if (done.status !== 201) throw new Error(`case with the upload: ${done.status} ${await done.text()}`);
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wb-bench-upload-'));
const children: ChildProcess[] = [];
try {
  // ---- the portal --------------------------------------------------------------
  const port = await freePort();
  process.stderr.write('starting the portal…\n');
  const served = servedAsNpmStart('upload');
  const server = await start(served.args, { ...served.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SEED_DEMO: 'true', DATABASE_URL: process.env.DATABASE_URL ?? '', FILE_STORE: process.env.FILE_STORE ?? '',
    // Throughput, not abuse guards, is measured: no proof-of-work, a budget the bench never reaches.
    POW_DIFFICULTY: '0', SUBMIT_RATE_LIMIT_MAX: '1000' }, /running on/);
  children.push(server);
  const info = (await (await fetch(`http://127.0.0.1:${port}/api/public/case/company-info`, { headers: { 'x-company-host': 'localhost' } })).json()) as { protectionOfficers: { id: string }[] };
  const dto = {
    whistleblowerRelation: 'Benchmark',
    protectionOfficer: { id: info.protectionOfficers[0]!.id },
    description: 'Upload benchmark',
    violation: 'DONT_KNOW',
    repeatedViolations: false,
    reportedUnit: 'Bench',
    caseAccount: { follow: false },
  };
  const boundary = '----wbbench' + randomBytes(8).toString('hex');
  const prefix = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="caseDto"\r\n\r\n${JSON.stringify(dto)}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="bench.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
  );
  const fileHead = Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypisom')]);
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
  const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-company-host': 'localhost' };

  process.stderr.write('portal up; warming up…\n');
  // Warm up (code paths, JIT, first database writes), then let the heap settle.
  const warm = await upload(port, '/api/public/case/new/by-form', headers, prefix, fileHead, 8, suffix);
  if (warm.status !== 201) throw new Error(`warm-up upload failed: ${warm.status} ${warm.body}`);
  process.stderr.write(`uploading ${sizeMb} MiB to the portal…\n`);
  const { result: [portal, cpu0], resting: restingRss, peak: peakRss } = await peakRssDuring(server.pid!, async () => {
    const cpu = cpuSeconds(server.pid!);
    return [await upload(port, '/api/public/case/new/by-form', headers, prefix, fileHead, sizeMb, suffix), cpu] as const;
  });
  const cpu1 = cpuSeconds(server.pid!);
  const portalUser = cpu1.user - cpu0.user;
  const portalSystem = cpu1.system - cpu0.system;
  const portalCpu = portalUser + portalSystem;
  if (portal.status !== 201) throw new Error(`upload failed: ${portal.status} ${portal.body}`);

  // ---- the same file, downloaded by a handler --------------------------------------
  const adminToken = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
  const handler = await fetch(`http://127.0.0.1:${port}/api/admin/handlers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ company: 'localhost', name: 'Bench' }),
  });
  if (handler.status !== 201) throw new Error(`handler account: ${handler.status} ${await handler.text()}`);
  const auth = { authorization: `Bearer ${((await handler.json()) as { token: string }).token}` };
  const caseNumber = (JSON.parse(portal.body) as { caseDto: { caseNumber: string } }).caseDto.caseNumber;
  const view = (await (await fetch(`http://127.0.0.1:${port}/api/handler/cases/${caseNumber}`, { headers: auth })).json()) as { files: { id: string }[] };
  process.stderr.write(`downloading ${sizeMb} MiB from the portal…\n`);
  const { result: got, resting: downRestingRss, peak: downPeakRss } = await peakRssDuring(server.pid!, () => download(port, `/api/handler/cases/${caseNumber}/files/${view.files[0]!.id}`, auth));
  if (got.status !== 200 || got.bytes !== sizeMb * MB) throw new Error(`download: ${got.status}, ${got.bytes} bytes of ${sizeMb * MB}`);

  // ---- the same file, resumable --------------------------------------------------
  const warmTus = await tusUpload(port, dto, fileHead, 8);
  void warmTus;
  process.stderr.write(`uploading ${sizeMb} MiB to the portal with tus…\n`);
  const { result: tusSeconds, resting: tusRestingRss, peak: tusPeakRss } = await peakRssDuring(server.pid!, () => tusUpload(port, dto, fileHead, sizeMb));
  server.kill('SIGTERM');

  // ---- the bare baseline ---------------------------------------------------------
  const barePort = await freePort();
  const bareFile = path.join(dataDir, 'bare.bin');
  // With the portal's node flags and environment (semi-space size, mmap threshold), so
  // the two grow by the same rules: its growth is what Node's own reads of the request
  // leave for the garbage collector.
  const bare = await start(
    [
      ...served.args.filter((a) => a.startsWith('--')),
      '-e',
      `const http=require('http'),fs=require('fs'),{pipeline}=require('stream');
       http.createServer((req,res)=>req.method==='GET'?pipeline(fs.createReadStream(${JSON.stringify(bareFile)}),res,()=>{}):pipeline(req,fs.createWriteStream(${JSON.stringify(bareFile)}),(e)=>{res.statusCode=e?500:201;res.end('ok')}))
         .listen(${barePort},'127.0.0.1',()=>console.log('bare ready'))`,
    ],
    served.env,
    /bare ready/,
  );
  children.push(bare);
  const warmBare = await upload(barePort, '/', headers, prefix, fileHead, 8, suffix);
  void warmBare;
  process.stderr.write(`uploading ${sizeMb} MiB to the bare server…\n`);
  const { result: baseline, resting: bareRestingRss, peak: barePeakRss } = await peakRssDuring(bare.pid!, () => upload(barePort, '/', headers, prefix, fileHead, sizeMb, suffix));
  process.stderr.write(`downloading ${sizeMb} MiB from the bare server…\n`);
  const { result: bareGot, resting: bareDownRestingRss, peak: bareDownPeakRss } = await peakRssDuring(bare.pid!, () => download(barePort, '/', {}));
  if (bareGot.status !== 200 || bareGot.bytes < sizeMb * MB) throw new Error(`bare download: ${bareGot.status}, ${bareGot.bytes} bytes`);
  bare.kill('SIGTERM');

  const mbps = (s: number) => sizeMb / s;
  const growth = peakRss - restingRss;
  const tusGrowth = tusPeakRss - tusRestingRss;
  const downGrowth = downPeakRss - downRestingRss;
  const rows: [string, string][] = [
    ['file size', `${sizeMb} MiB`],
    ['database, file store', `${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ${process.env.FILE_STORE || (process.env.DATABASE_URL ? 'postgres' : 'disk')}`],
    ['portal new/by-form', `${mbps(portal.seconds).toFixed(1)} MiB/s (${portal.seconds.toFixed(2)} s)`],
    ['portal tus + case', `${mbps(tusSeconds).toFixed(1)} MiB/s (${tusSeconds.toFixed(2)} s, 64 MiB PATCHes, read back once to check)`],
    ['bare stream-to-disk', `${mbps(baseline.seconds).toFixed(1)} MiB/s (${baseline.seconds.toFixed(2)} s)`],
    ['portal CPU time', `${portalCpu.toFixed(2)} s = ${portalUser.toFixed(2)} user + ${portalSystem.toFixed(2)} system (${((portalCpu / portal.seconds) * 100).toFixed(0)} % of its wall time)`],
    ['portal / bare', `${(mbps(portal.seconds) / mbps(baseline.seconds)).toFixed(2)}`],
    ['server resting RSS', `${restingRss.toFixed(1)} MiB`],
    ['server peak RSS', `${peakRss.toFixed(1)} MiB`],
    ['peak RSS growth', `${growth.toFixed(1)} MiB (budget ${BUDGET_MB} MiB: ${growth < BUDGET_MB ? 'within' : 'OVER'})`],
    ['bare peak RSS growth', `${(barePeakRss - bareRestingRss).toFixed(1)} MiB over ${bareRestingRss.toFixed(1)} MiB (the baseline: no budget)`],
    ['tus peak RSS growth', `${tusGrowth.toFixed(1)} MiB over ${tusRestingRss.toFixed(1)} MiB (budget ${BUDGET_MB} MiB: ${tusGrowth < BUDGET_MB ? 'within' : 'OVER'})`],
    ['portal download', `${mbps(got.seconds).toFixed(1)} MiB/s (${got.seconds.toFixed(2)} s, decrypted)`],
    ['download RSS growth', `${downGrowth.toFixed(1)} MiB over ${downRestingRss.toFixed(1)} MiB (budget ${BUDGET_MB} MiB: ${downGrowth < BUDGET_MB ? 'within' : 'OVER'})`],
    ['bare stream-from-disk', `${mbps(bareGot.seconds).toFixed(1)} MiB/s, ${(bareDownPeakRss - bareDownRestingRss).toFixed(1)} MiB RSS growth over ${bareDownRestingRss.toFixed(1)} MiB (the download's baseline: no budget)`],
  ];
  process.stdout.write('\nupload benchmark\n' + rows.map(([k, v]) => `  ${k.padEnd(22)} ${v}`).join('\n') + '\n');
  if (growth >= BUDGET_MB || tusGrowth >= BUDGET_MB || downGrowth >= BUDGET_MB) process.exitCode = 1;
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
}
