// core/crypto/ is on the ground floor (core/): the browser, the server and scripted
// clients all run it, so it imports nothing from src/, server/, machines/, React or
// Node (issue 37, docs/decisions/blind-server.md). Only its own files and hash-wasm:
// an auditor reads one folder to know what seals a report.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = path.resolve(import.meta.dirname, '../../core/crypto');
const ALLOWED_PACKAGES = new Set(['hash-wasm']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []));
}

describe('core/crypto/ imports', () => {
  const all = files(CORE);

  it('has files to check', () => {
    expect(all.length).toBeGreaterThan(5);
  });

  it.each(all.map((f) => [path.relative(CORE, f), f]))('%s imports only core/crypto/ and hash-wasm, and uses no Node global', (_name, file) => {
    const source = readFileSync(file, 'utf8');
    const specifiers = [...source.matchAll(/(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map((m) => m[1] ?? m[2]!);
    for (const s of specifiers) {
      if (s.startsWith('.')) expect(path.resolve(path.dirname(file), s).startsWith(CORE + path.sep), `${s} leaves core/crypto/`).toBe(true);
      else expect(ALLOWED_PACKAGES.has(s), `${s} is not allowed in core/crypto/`).toBe(true);
    }
    // Code, not comments: Node's Buffer and process are not in a browser.
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/\bBuffer\b|\bprocess\.|\brequire\(/);
  });
});
