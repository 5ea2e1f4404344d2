/**
 * The data folder is private to the server's user (issue 11, finding 2): every file
 * the server or its CLIs create under DATA_DIR / FILES_DIR is 0600 and every folder
 * 0700, whatever the umask, PGlite's database files included (PGlite creates them
 * with the process's umask). Two measures:
 *
 * - `privateUmask()` at the start of the server and of every CLI, so nothing is ever
 *   created looser;
 * - `tightenTree()` at start-up, which narrows what an earlier version or another
 *   tool left looser, and reports how many it changed (logged once).
 */
import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const PRIVATE_UMASK = 0o077;

/** Makes every file and folder this process creates private to its user. */
export function privateUmask(): void {
  process.umask(PRIVATE_UMASK);
}

/** Narrows every folder below `root` (and `root`) to 0700 and every file to 0600; returns how many changed. */
export function tightenTree(root: string): { files: number; folders: number } {
  const changed = { files: 0, folders: 0 };
  if (!existsSync(root)) return changed;
  const walk = (p: string) => {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return; // gone meanwhile (a temporary upload)
    }
    if (st.isSymbolicLink()) return; // never follow a link out of the data folder
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode & 0o077) {
        chmodSync(p, mode & 0o700 | 0o700);
        changed.folders++;
      }
      for (const name of readdirSync(p)) walk(path.join(p, name));
    } else if (st.isFile() && mode & 0o077) {
      chmodSync(p, mode & 0o600);
      changed.files++;
    }
  };
  walk(root);
  return changed;
}
