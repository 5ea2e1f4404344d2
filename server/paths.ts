import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The checkout the server runs from: the folder holding package.json, found from this
 * file whether it runs as server/paths.ts (tsx, tests) or build/server/paths.js (the
 * compiled server, npm start). Default DATA_DIR and DIST_DIR are relative to it.
 */
export const PROJECT_ROOT = findProjectRoot(import.meta.dirname);

function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
