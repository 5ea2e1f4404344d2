/**
 * Server-side secrets: the master key (wraps every case's data key) and the
 * password pepper. Each comes from the environment or, on the embedded default,
 * from a file in the data folder that is generated (mode 0600) on first start.
 * Losing either makes existing data unreadable (docs/operations.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Reads a base64 secret of `bytes` bytes from `fromEnv`, or from DATA_DIR/`file`,
 * creating that file with fresh random bytes when it does not exist yet.
 */
export function loadSecret(opts: { name: string; fromEnv?: string; dataDir: string; file: string; bytes: number }): Buffer {
  if (opts.fromEnv) {
    const key = Buffer.from(opts.fromEnv.trim(), 'base64');
    if (key.length !== opts.bytes) {
      throw new Error(`${opts.name} must be ${opts.bytes} bytes in base64 (got ${key.length} bytes)`);
    }
    return key;
  }
  const file = path.join(opts.dataDir, opts.file);
  mkdirSync(opts.dataDir, { recursive: true });
  try {
    // 'wx' fails when the file exists, so two processes starting together agree on one key.
    writeFileSync(file, randomBytes(opts.bytes).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== opts.bytes) throw new Error(`${file} must hold ${opts.bytes} bytes in base64`);
  return key;
}
