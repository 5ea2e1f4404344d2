// Compiles the server (server/ and the shared rules in machines/) to build/ with tsc,
// and copies the files it reads next to its code (seed companies, logos, provider
// pages' assets and catalogues), so build/ runs on plain Node. Plain JavaScript:
// it must run before anything is compiled. docs/decisions/runtime.md.
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'build');
rmSync(out, { recursive: true, force: true });
// typescript's exports map hides bin/; its package.json is exported.
const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.server.json')], { stdio: 'inherit' });

/** Every file under server/ that is not TypeScript and not an operator CLI. */
function copyAssets(dir) {
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = path.join(dir, name);
    if (rel === path.join('server', 'cli')) continue;
    if (statSync(path.join(root, rel)).isDirectory()) copyAssets(rel);
    else if (!name.endsWith('.ts')) cpSync(path.join(root, rel), path.join(out, rel));
  }
}
copyAssets('server');
