/**
 * The hidden-data checks of one page's attachments (docs/decisions/metadata-removal.md):
 * one `fileCheck` actor per attached file, one Web Worker doing the reading and
 * rewriting. Created per form or composer, never as a module singleton; `stop()`
 * ends the actors and the worker.
 */
import { createActor, fromPromise, waitFor, type ActorRefFrom } from 'xstate';
import { fileCheckMachine, fileToSend, type CheckedFile, type CleanResult, type InspectResult } from '../../machines/fileCheck.ts';
import type { WorkerAnswer, WorkerRequest } from './worker.ts';
import { startPinnedWorker } from '../integrity/worker.ts';
import checkWorkerUrl from './worker.ts?worker&url';

export type FileCheckActor = ActorRefFrom<typeof fileCheckMachine>;

function createWorkerClient() {
  let worker: Promise<Worker> | null = null;
  let next = 1;
  const waiting = new Map<number, (a: WorkerAnswer) => void>();
  const fail = (error: string) => {
    for (const [id, r] of waiting) r({ id, ok: false, error });
    waiting.clear();
  };
  const started = () => {
    if (!worker) {
      // Started only once its bytes match the page's digest for it (src/integrity/worker.ts).
      const pending = startPinnedWorker(new URL(checkWorkerUrl, location.href)).then((w) => {
        w.onmessage = (e: MessageEvent<WorkerAnswer>) => {
          waiting.get(e.data.id)?.(e.data);
          waiting.delete(e.data.id);
        };
        w.onerror = () => fail('worker failed');
        return w;
      });
      // A worker that could not be checked fails the calls waiting for it; the next call tries again.
      pending.catch(() => {
        if (worker === pending) worker = null;
      });
      worker = pending;
    }
    return worker;
  };
  const call = (op: WorkerRequest['op'], file: Blob) =>
    new Promise<WorkerAnswer>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      started().then(
        (w) => w.postMessage({ id, op, file } satisfies WorkerRequest),
        (err: Error) => {
          waiting.delete(id);
          resolve({ id, ok: false, error: err.message });
        },
      );
    });
  return {
    async inspect(file: Blob): Promise<InspectResult> {
      const a = await call('inspect', file);
      if (!a.ok || a.op !== 'inspect') throw new Error(a.ok ? 'unexpected answer' : a.error);
      return { checkable: a.checkable, findings: a.findings };
    },
    async clean(file: File): Promise<CleanResult> {
      const a = await call('clean', file);
      if (!a.ok || a.op !== 'clean') throw new Error(a.ok ? 'unexpected answer' : a.error);
      return { file: new File([a.bytes], file.name, { type: file.type, lastModified: Date.now() }), removed: a.removed, remaining: a.remaining };
    },
    stop() {
      void worker?.then((w) => w.terminate(), () => undefined);
      worker = null;
    },
  };
}

export interface FileChecks {
  /** The check of this file, started on first use. */
  get(file: CheckedFile): FileCheckActor;
  /** Ends the checks of files no longer attached. */
  keepOnly(files: readonly CheckedFile[]): void;
  setIdentified(identified: boolean): void;
  /** The files to send, in order, once every check has settled. */
  resolve(files: readonly CheckedFile[]): Promise<CheckedFile[]>;
  stop(): void;
}

export function createFileChecks(initiallyIdentified = false): FileChecks {
  const client = createWorkerClient();
  const actors = new Map<CheckedFile, FileCheckActor>();
  let identified = initiallyIdentified;
  const logic = fileCheckMachine.provide({
    actors: {
      inspectFile: fromPromise(({ input }: { input: { file: CheckedFile } }) => client.inspect(input.file as File)),
      cleanFile: fromPromise(({ input }: { input: { file: CheckedFile } }) => client.clean(input.file as File)),
    },
  });
  const get = (file: CheckedFile) => {
    let a = actors.get(file);
    if (!a) {
      a = createActor(logic, { input: { file, identified } }).start();
      actors.set(file, a);
    }
    return a;
  };
  return {
    get,
    keepOnly(files) {
      for (const [file, a] of actors) {
        if (!files.includes(file)) {
          a.stop();
          actors.delete(file);
        }
      }
    },
    setIdentified(value) {
      identified = value;
      for (const a of actors.values()) a.send({ type: 'identity.change', identified: value });
    },
    async resolve(files) {
      return Promise.all(
        files.map(async (f) => fileToSend(await waitFor(get(f), (s) => s.hasTag('settled'), { timeout: Infinity }))!),
      );
    },
    stop() {
      for (const a of actors.values()) a.stop();
      actors.clear();
      client.stop();
    },
  };
}
