/**
 * The handler's Web Worker for the hidden-data check of an opened sealed file
 * (docs/decisions/sealed-workspace.md "Where the check runs"): a hostile file's parse
 * runs here, off the page's thread, so a bomb or a parser that does not end cannot
 * freeze the workspace; the page ends this worker at its time limit. One check per
 * worker: it receives the bytes (transferred) and answers the verdict, nothing else.
 * Started pinned by its digest (src/integrity/worker.ts); Vite builds it as one file.
 */
import { hiddenDataVerdict, type CheckAnswer, type CheckRequest } from './openedFileCheck.ts';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<CheckRequest>) => void) | null;
  postMessage(message: CheckAnswer): void;
};

scope.onmessage = (e) => {
  scope.onmessage = null;
  void hiddenDataVerdict(new Uint8Array(e.data.bytes)).then(
    (metadata) => scope.postMessage({ metadata }),
    () => scope.postMessage({ metadata: 'couldNotCheck' }),
  );
};
