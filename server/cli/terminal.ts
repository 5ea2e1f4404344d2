/**
 * Reporter text on a handler's terminal (issue 11, findings 4 and 8): shown, never
 * obeyed. ESC, BEL, CSI and every other C0/C1 control, DEL, the bidi overrides and
 * isolates and the zero-width characters are printed as visible `\uXXXX` escapes, so
 * a report can neither rewrite the terminal nor reorder what the handler reads; and a
 * saved file gets a name every file system takes.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { cleanFileName, cutUtf8, FILE_NAME_MAX_BYTES, INVISIBLE_CONTROLS } from '../../machines/schema.ts';

const escape = (ch: string) => `\\u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** One line of output with every invisible or control character escaped (a newline too). */
export function escapeForTerminal(s: string): string {
  return s.replace(INVISIBLE_CONTROLS, escape);
}

/** JSON for the terminal: what JSON.stringify leaves raw (C1 controls, bidi, separators) escaped as valid JSON escapes. */
export function jsonForTerminal(value: unknown): string {
  // Inside strings JSON.stringify has escaped C0 already; the newlines left are the layout's own.
  return JSON.stringify(value, null, 2).replace(INVISIBLE_CONTROLS, (ch) => (ch === '\n' ? ch : escape(ch)));
}

/**
 * Where `--save` writes a file: the cleaned name (no path, controls or bidi overrides,
 * at most 255 bytes of UTF-8 with room for a " (n)" suffix), never one that exists.
 */
export function freeName(dir: string, name: string): string {
  const clean = cleanFileName(name);
  const base = clean && !clean.startsWith('.') ? clean : `file${clean}`;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : '';
  const stem = cutUtf8(ext ? base.slice(0, dot) : base, FILE_NAME_MAX_BYTES - Buffer.byteLength(ext) - 8);
  let candidate = path.join(dir, stem + ext);
  for (let i = 1; existsSync(candidate); i++) candidate = path.join(dir, `${stem} (${i})${ext}`);
  return candidate;
}
