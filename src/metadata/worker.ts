/**
 * The hidden-data checker's Web Worker: files are read and rewritten here, off the
 * page's thread, and nothing leaves the device. One request at a time per message;
 * answers carry the request's id.
 */
import { cleanFile, detectFormat, inspectFile, type Finding } from '../../core/metadata/scan.ts';

/** Larger files are not read whole into memory; they are named uncheckable. */
const MAX_CHECK_BYTES = 512 * 1024 * 1024;

export type WorkerRequest = { id: number; op: 'inspect' | 'clean'; file: Blob };
export type WorkerAnswer =
  | { id: number; ok: true; op: 'inspect'; checkable: boolean; findings: Finding[] }
  | { id: number; ok: true; op: 'clean'; bytes: ArrayBuffer; removed: string[]; remaining: string[] }
  | { id: number; ok: false; error: string };

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerAnswer, transfer?: Transferable[]): void;
};

async function handle({ id, op, file }: WorkerRequest): Promise<void> {
  try {
    const head = new Uint8Array(await file.slice(0, 128).arrayBuffer());
    const format = detectFormat(head);
    if (!format || file.size > MAX_CHECK_BYTES) {
      if (op === 'inspect') return scope.postMessage({ id, ok: true, op, checkable: false, findings: [] });
      return scope.postMessage({ id, ok: false, error: 'uncheckable' });
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (op === 'inspect') {
      const r = await inspectFile(bytes);
      return scope.postMessage({ id, ok: true, op, checkable: r.format !== null, findings: r.findings });
    }
    const cleaned = await cleanFile(bytes);
    const out = cleaned.bytes.slice().buffer as ArrayBuffer;
    scope.postMessage({ id, ok: true, op, bytes: out, removed: cleaned.removed, remaining: cleaned.remaining }, [out]);
  } catch (e) {
    scope.postMessage({ id, ok: false, error: (e as Error).message || 'failed' });
  }
}

scope.onmessage = (e) => void handle(e.data);
