// The last step of `npm run build`: the SHA-256 of every file the server serves, by
// the path it is served at, written to dist/manifest-sha256.json (served at
// /manifest-sha256.json) and printed in `sha256sum` format. The server takes the
// `integrity` of every script, modulepreload and worker it names from this file
// (server/integrity.ts), so the digests an auditor compares with a reproducible build
// of the same commit are the ones the browser enforces (docs/security.md "Checking the
// code you are served", docs/decisions/code-integrity.md). Plain JavaScript: it runs
// on Node with nothing compiled.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.resolve(process.env.DIST_DIR ?? path.join(root, 'dist'));
export const MANIFEST_FILE = 'manifest-sha256.json';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Files under `dir`, as paths relative to it with `/`; no dot-folder or dotfile (build data, never served), no precompressed copy (a Content-Encoding of the same bytes). */
function servedFiles(dir, rel = '') {
  const out = [];
  for (const name of readdirSync(path.join(dir, rel)).sort()) {
    if (name.startsWith('.')) continue;
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(path.join(dir, r)).isDirectory()) out.push(...servedFiles(dir, r));
    else if (!/\.(br|gz)$/.test(name) && r !== MANIFEST_FILE) out.push(r);
  }
  return out;
}

if (!existsSync(path.join(dist, 'index.html'))) {
  console.error(`${dist}/index.html is missing: run the Vite builds first (npm run build)`);
  process.exit(1);
}

/** @type {Record<string, string>} */
const files = {};
// The HTML pages are templates: the server writes each request's boot data, preloads
// and integrity into them (server/spa.ts), so their digest is of the template.
for (const f of servedFiles(dist)) files[`/${f}`] = sha256(readFileSync(path.join(dist, f)));
// The identity provider's own pages' scripts and styles (server/idp/index.ts), and the
// @noble/hashes modules its sign-in worker imports, as served under its mount
// (MOUNT in server/idp/provider.ts; test/server/code-integrity.test.ts fetches them).
const IDP_ASSETS = '/idp/realms/whistleblower/assets';
const idpAssets = path.join(root, 'server', 'idp', 'assets');
for (const f of servedFiles(idpAssets)) files[`${IDP_ASSETS}/${f}`] = sha256(readFileSync(path.join(idpAssets, f)));
const nobleDir = path.dirname(createRequire(import.meta.url).resolve('@noble/hashes/sha2.js'));
for (const name of ['sha2.js', '_md.js', '_u64.js', 'utils.js']) files[`${IDP_ASSETS}/noble/${name}`] = sha256(readFileSync(path.join(nobleDir, name)));
// hash-wasm's Argon2id build, served as argon2.js where the sign-in page derives its keys (server/idp/index.ts).
if (readFileSync(path.join(root, 'server', 'idp', 'index.ts'), 'utf8').includes('hash-wasm/dist/argon2.umd.min.js')) {
  files[`${IDP_ASSETS}/argon2.js`] = sha256(readFileSync(createRequire(import.meta.url).resolve('hash-wasm/dist/argon2.umd.min.js')));
}

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const sorted = Object.fromEntries(Object.keys(files).sort().map((k) => [k, files[k]]));
const text = `${JSON.stringify({ name: pkg.name, version: pkg.version, algorithm: 'sha256', files: sorted }, null, 1)}\n`;
writeFileSync(path.join(dist, MANIFEST_FILE), text);

const lines = Object.entries(sorted).map(([p, h]) => `${h}  ${p}`);
console.log(`\nSHA-256 of every served file (${lines.length}; docs/security.md "Checking the code you are served"):`);
console.log(lines.join('\n'));
console.log(`${sha256(text)}  /${MANIFEST_FILE} (this manifest; compare it with a build of the same commit)`);
