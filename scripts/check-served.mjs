// An auditor's check of a running portal against a build of the same commit
// (docs/security.md "Checking the code you are served"):
//
//   node scripts/check-served.mjs https://portal.example.com [dist/manifest-sha256.json]
//
// 1. the portal's /manifest-sha256.json is the local build's, file for file;
// 2. every file the local manifest lists is served with those bytes (HTML pages are
//    templates the server fills per request, so they are checked as pages instead);
// 3. every script, modulepreload and stylesheet the pages name carries `integrity`,
//    and every digest in their tags and import maps is the local manifest's for that
//    path; the pages' inline scripts are printed with their hashes, to compare with
//    the source (server/spa.ts, core/earlyReadScript.ts).
// Exits 1 on any difference. Plain JavaScript: Node 22 or later and nothing else.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [origin, manifestPath = 'dist/manifest-sha256.json', ...extraPages] = process.argv.slice(2);
if (!origin) {
  console.error('usage: node scripts/check-served.mjs <origin> [manifest-sha256.json] [page path…]');
  process.exit(2);
}
const local = JSON.parse(readFileSync(manifestPath, 'utf8'));
const problems = [];
const sha256 = (b) => createHash('sha256').update(b).digest('hex');
const sriOfHex = (hex) => `sha256-${Buffer.from(hex, 'hex').toString('base64')}`;

async function get(p) {
  const res = await fetch(new URL(p, origin), { redirect: 'manual' });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

// 1. The served manifest.
const served = await get('/manifest-sha256.json');
if (served.status !== 200) problems.push(`/manifest-sha256.json: HTTP ${served.status}`);
else {
  const remote = JSON.parse(served.bytes.toString('utf8'));
  for (const [p, h] of Object.entries(local.files)) if (remote.files?.[p] !== h) problems.push(`manifest: ${p} is ${remote.files?.[p] ?? 'missing'} there, ${h} here`);
  for (const p of Object.keys(remote.files ?? {})) if (!(p in local.files)) problems.push(`manifest: ${p} is served but not in this build`);
}

// 2. Every file as served.
let checked = 0;
for (const [p, h] of Object.entries(local.files)) {
  if (p.endsWith('.html')) continue;
  const r = await get(p);
  checked++;
  if (r.status !== 200) problems.push(`${p}: HTTP ${r.status}`);
  else if (sha256(r.bytes) !== h) problems.push(`${p}: served bytes have SHA-256 ${sha256(r.bytes)}, the build ${h}`);
}

// 3. The pages: the root of trust, checked against the manifest.
const pages = ['/', '/online-form', '/oral-report', '/private/status', '/private/callback', '/handler', ...extraPages];
const inline = new Map();
for (const page of pages) {
  const r = await get(page);
  if (r.status !== 200) {
    problems.push(`${page}: HTTP ${r.status}`);
    continue;
  }
  const html = r.bytes.toString('utf8');
  const csp = r.headers.get('content-security-policy') ?? '';
  if (!csp.includes("require-trusted-types-for 'script'")) problems.push(`${page}: the CSP does not require Trusted Types`);
  for (const [tag] of html.matchAll(/<script\b[^>]*\bsrc="[^"]*"[^>]*>|<link\b[^>]*\brel="(?:modulepreload|stylesheet)"[^>]*>/g)) {
    const url = /\s(?:src|href)="([^"]*)"/.exec(tag)[1];
    const integrity = /\sintegrity="([^"]*)"/.exec(tag)?.[1];
    const want = local.files[new URL(url, origin).pathname];
    if (!integrity) problems.push(`${page}: ${tag} has no integrity`);
    else if (!want || integrity !== sriOfHex(want)) problems.push(`${page}: ${url} pinned as ${integrity}, the build has ${want ? sriOfHex(want) : 'no such file'}`);
  }
  for (const [, map] of html.matchAll(/<script type="importmap">([^<]*)<\/script>/g)) {
    for (const [url, integrity] of Object.entries(JSON.parse(map).integrity ?? {})) {
      const want = local.files[url];
      if (!want || integrity !== sriOfHex(want)) problems.push(`${page}: import map pins ${url} as ${integrity}, the build has ${want ? sriOfHex(want) : 'no such file'}`);
    }
  }
  for (const [, attrs, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (/\bsrc=|type="(?:application\/json|importmap)"/.test(attrs)) continue;
    inline.set(`'sha256-${createHash('sha256').update(body).digest('base64')}'`, body);
  }
}

console.log(`${checked} files and ${pages.length} pages of ${origin} checked against ${manifestPath} (${local.name} ${local.version}).`);
for (const [hash, body] of inline) console.log(`inline script ${hash}: ${body.length > 160 ? `${body.slice(0, 160)}…` : body}`);
if (problems.length) {
  console.log(`${problems.length} difference(s):\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('Every file, page script, preload and import-map digest matches this build.');
