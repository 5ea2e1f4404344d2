/**
 * The last guard of the log (docs/decisions/log-privacy.md, issue 11 finding 9):
 * every line is scrubbed on its way to the destination, whatever wrote it (the
 * request serializer, a plug-in's debug line, an error message that quotes a path).
 * A case number in any spelling (16 digits, grouped by spaces, hyphens, dots, plus
 * signs or no-break spaces, percent-encoded in whole or part) becomes `<case>`; a
 * JWT or any long run of token characters becomes `<token>`.
 */
import type { Writable } from 'node:stream';

const DIGIT = String.raw`(?:\d|%3[0-9])`;
const SEP = String.raw`(?:[\s\-.+_/]|\\u00a0|\\u202f|%20|%2[dDbBeEfF]|%5[fF]|%[cC]2%[aA]0|\\[nrt])*`;
const CASE_NUMBER = new RegExp(String.raw`(?<![\dA-Za-z])${DIGIT}(?:${SEP}${DIGIT}){15}(?!\d)`, 'g');
const JWT = /eyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]*/g;
const LONG_TOKEN = /[A-Za-z0-9_~+-]{32,}={0,2}/g;

export function scrubLogLine(line: string): string {
  return line.replace(JWT, '<token>').replace(LONG_TOKEN, '<token>').replace(CASE_NUMBER, '<case>');
}

/**
 * Fields the server fills itself with a random UUID of its own (the request id, also
 * answered as x-request-id): kept, so an operator can follow one request's lines.
 */
const KEPT = new Set(['reqId']);
const OWN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function scrubValue(value: unknown): unknown {
  if (typeof value === 'string') return scrubLogLine(value);
  // A 16-digit number can only be a case number that slipped in unquoted.
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) >= 1e15 ? '<case>' : value;
  if (Array.isArray(value)) return value.map(scrubValue);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, KEPT.has(k) && typeof v === 'string' && OWN_ID.test(v) ? v : scrubValue(v)]));
  return value;
}

/**
 * Scrubs one pino line. The line is JSON: its string values are scrubbed one by one,
 * so the line stays JSON (a fraction such as a response time is never mistaken for a
 * spaced-out case number); a line that is not JSON is scrubbed as text.
 */
export function scrubJsonLine(line: string): string {
  const end = line.endsWith('\n') ? '\n' : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return scrubLogLine(line);
  }
  return JSON.stringify(scrubValue(parsed)) + end;
}

/** A pino destination that scrubs each line before handing it on. */
export function scrubbingStream(dest: Pick<Writable, 'write'>): { write(line: string): boolean } {
  return { write: (line: string) => dest.write(scrubJsonLine(line)) };
}
