/**
 * The script test/helpers/crypto-bench.ts adds to a portal page (bundled by esbuild as
 * `window.wbBench`): core/crypto and the SPA's own upload paths, so the figures are the
 * product's code in the browser, not a copy of it.
 */
export * as core from '../../core/crypto/index.ts';
export { uploadSealedFiles, newSealedUploadMemory } from '../../src/forms/sealFiles.ts';
export { uploadFiles } from '../../src/uploads/resumable.ts';
export { newUploadMemory } from '../../src/uploads/memory.ts';
export { createApiClient } from '../../src/api/client.ts';
