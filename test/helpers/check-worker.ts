/**
 * The handler's hidden-data worker (src/handler/openedFileCheck.worker.ts) run in this
 * process for unit tests, which have no Web Worker: the real module, imported afresh for
 * each worker against a `self` of its own, its messages passed through structuredClone
 * with the transfer list as postMessage does (a transferred buffer is detached here as
 * in a browser), an answer after terminate() dropped. Also workers that never answer
 * or that fail, for the page's time limit and error paths.
 */
import { vi } from 'vitest';
import type { CheckWorker } from '../../src/handler/fileOpening.ts';

export interface TestWorker extends CheckWorker {
  terminated: boolean;
  /** The messages it was sent, as it received them. */
  received: unknown[];
}

function shell(deliver: (w: TestWorker, data: unknown) => void): TestWorker {
  const w: TestWorker = {
    terminated: false,
    received: [],
    onmessage: null,
    onerror: null,
    onmessageerror: null,
    postMessage(message, transfer) {
      const data = structuredClone(message, { transfer: transfer as never });
      w.received.push(data);
      if (!w.terminated) deliver(w, data);
    },
    terminate() {
      w.terminated = true;
    },
  };
  return w;
}

/** The real worker module, in a fresh copy. */
export async function moduleWorker(): Promise<TestWorker> {
  const scope: { onmessage: ((e: { data: unknown }) => void) | null; postMessage(m: unknown): void } = {
    onmessage: null,
    postMessage: (m) => {
      if (!w.terminated) w.onmessage?.({ data: structuredClone(m) } as MessageEvent);
    },
  };
  const w = shell((_w, data) => setTimeout(() => scope.onmessage?.({ data })));
  const g = globalThis as { self?: unknown };
  g.self = scope;
  try {
    vi.resetModules();
    await import('../../src/handler/openedFileCheck.worker.ts');
  } finally {
    delete g.self;
  }
  return w;
}

/** A worker whose check never ends (a parser caught in a loop). */
export const hangingWorker = async (): Promise<TestWorker> => shell(() => {});

/** A worker that answers `answer` to any request. */
export const answeringWorker = (answer: unknown) => async (): Promise<TestWorker> => shell((w) => setTimeout(() => w.onmessage?.({ data: answer } as MessageEvent)));

/** A worker that fails (as one whose script throws, or the tab's memory runs out in it). */
export const failingWorker = async (): Promise<TestWorker> => shell((w) => setTimeout(() => w.onerror?.(new Event('error') as ErrorEvent)));
