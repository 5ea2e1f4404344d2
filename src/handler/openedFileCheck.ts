/**
 * The hidden-data check of a sealed file the handler's browser opened
 * (docs/decisions/sealed-workspace.md "Where the check runs"): what the worker runs
 * (src/handler/openedFileCheck.worker.ts) and how the page reads its answer. The
 * parsers are core/metadata/scan.ts under the server's former limits, so a bomb ends
 * at its inflate cap; the worker's time limit (src/handler/fileOpening.ts) covers what
 * no cap foresees.
 */
import { detectFormat, inspectFile, sortKinds, FINDING_KINDS, ScanLimitExceeded, type ScanLimits } from '../../core/metadata/scan.ts';
import type { FileCheckResult } from '../../machines/handler/sealedCase.ts';

export type HiddenDataVerdict = FileCheckResult['metadata'];

/** As the server's child process had them (server/files/metadata-check.ts). */
export const OPENED_FILE_LIMITS: ScanLimits = { maxInflatedBytes: 64 * 1024 * 1024, maxFilterDepth: 3, maxZipEntries: 10_000 };

/** What `bytes` hold: the kinds found, `notChecked` (a format the check does not read), or `couldNotCheck` (a limit). */
export async function hiddenDataVerdict(bytes: Uint8Array): Promise<HiddenDataVerdict> {
  if (!detectFormat(bytes)) return 'notChecked';
  try {
    const r = await inspectFile(bytes, OPENED_FILE_LIMITS);
    return r.format ? sortKinds(r.findings.map((f) => f.kind)) : 'notChecked';
  } catch (e) {
    return e instanceof ScanLimitExceeded ? 'couldNotCheck' : 'notChecked';
  }
}

/** What the page sends the worker: the opened bytes, transferred. */
export interface CheckRequest {
  bytes: ArrayBuffer;
}
/** What the worker answers: the verdict alone. */
export interface CheckAnswer {
  metadata: HiddenDataVerdict;
}

const KINDS = new Set<string>(FINDING_KINDS);

/** The verdict in a worker's answer; anything not of its shape counts as could not be checked. */
export function readVerdict(answer: unknown): HiddenDataVerdict {
  const m = (answer as Partial<CheckAnswer> | null)?.metadata;
  if (m === 'notChecked' || m === 'couldNotCheck') return m;
  if (Array.isArray(m) && m.length <= KINDS.size && m.every((k) => typeof k === 'string' && KINDS.has(k))) return sortKinds(m as (typeof FINDING_KINDS)[number][]);
  return 'couldNotCheck';
}
