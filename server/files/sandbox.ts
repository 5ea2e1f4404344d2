/**
 * Untrusted bytes are parsed in a short-lived child process, never in the serving one
 * (issue 36 finding 1: a 2 KB PDF whose object stream inflates to gigabytes froze every
 * company's portal for 16 s). The child gets the bytes through its stdin (a pipe: the
 * plaintext never touches disk) and nothing of the server's environment; it is killed
 * when it runs past its time, when its resident memory passes the bound (pdf-lib and
 * fflate inflate into ArrayBuffers outside the V8 heap, which --max-old-space-size does
 * not count, so the parent samples /proc/<pid>/status), or when it answers more than
 * the output bound. A small number run at once; past a short queue a file is not
 * checked at all rather than waiting (docs/decisions/metadata-removal.md).
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface SandboxLimits {
  /** Wall time from the child's start to its answer; CPU time is bounded by it. */
  timeoutMs: number;
  /** Resident memory of the child (heap and buffers). */
  memoryBytes: number;
  /** Bytes the child may write to stdout. */
  maxOutputBytes: number;
  /** Children at once. */
  concurrency: number;
  /** Requests waiting for a child; past it a request is answered `busy` at once. */
  queue: number;
}

export type SandboxOutcome =
  | { status: 'done'; output: string }
  | { status: 'timeout' | 'memory' | 'output' | 'failed' | 'busy' };

export interface ChildScript {
  /** The script's path. */
  path: string;
  /** Node options before it (a loader for TypeScript sources). */
  execArgv: string[];
}

/** How often the child's resident memory is read. */
const SAMPLE_MS = 10;

/**
 * A script next to the calling module: `name.js` in the compiled build, `name.ts` under
 * tsx or vitest, run there through tsx's loader (a development dependency, present
 * wherever the sources run).
 */
export function siblingScript(moduleUrl: string, name: string): ChildScript {
  const compiled = moduleUrl.endsWith('.js');
  const path = fileURLToPath(new URL(`./${name}.${compiled ? 'js' : 'ts'}`, moduleUrl));
  return { path, execArgv: compiled ? [] : ['--import', createRequire(moduleUrl).resolve('tsx')] };
}

async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined; // gone already, or no /proc (then the heap limit and the timeout bound it)
  }
}

/** One run: spawn, feed, watch, answer. Never rejects. */
export function runInChild(script: ChildScript, args: string[], input: Uint8Array, limits: Omit<SandboxLimits, 'concurrency' | 'queue'>): Promise<SandboxOutcome> {
  return new Promise((resolve) => {
    // The V8 heap gets half the bound; the rest is for buffers outside it and Node itself.
    const heapMb = Math.max(32, Math.floor(limits.memoryBytes / 2 / 1024 / 1024));
    const child = spawn(process.execPath, [...script.execArgv, `--max-old-space-size=${heapMb}`, script.path, ...args], {
      // Nothing of the server's environment (MASTER_KEY, DATABASE_URL, NODE_OPTIONS): a
      // parser that is made to misbehave finds no secret in its process.
      env: {},
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let verdict: Exclude<SandboxOutcome['status'], 'done'> | undefined;
    const out: Buffer[] = [];
    let outBytes = 0;
    const stop = (why: Exclude<SandboxOutcome['status'], 'done'>) => {
      verdict ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    let sampling = false;
    const sampler = setInterval(() => {
      if (sampling || child.pid === undefined) return;
      sampling = true;
      void residentBytes(child.pid).then((rss) => {
        sampling = false;
        if (rss !== undefined && rss > limits.memoryBytes) stop('memory');
      });
    }, SAMPLE_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > limits.maxOutputBytes) stop('output');
      else out.push(chunk);
    });
    // A child that dies before reading everything closes the pipe under the write.
    child.stdin!.on('error', () => undefined);
    child.on('error', () => stop('failed'));
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(sampler);
      if (verdict) resolve({ status: verdict });
      else if (code === 0) resolve({ status: 'done', output: Buffer.concat(out).toString('utf8') });
      else resolve({ status: 'failed' });
    });
    child.stdin!.end(input);
  });
}

/** Runs one script for many callers, a few at once, with a short queue. */
export class Sandbox {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly script: ChildScript,
    readonly limits: SandboxLimits,
  ) {}

  async run(args: string[], input: Uint8Array): Promise<SandboxOutcome> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.queue) return { status: 'busy' };
      await new Promise<void>((go) => this.waiting.push(go));
    } else this.running++;
    try {
      return await runInChild(this.script, args, input, this.limits);
    } finally {
      // The slot passes straight to the next in line, so `running` never over-counts.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
