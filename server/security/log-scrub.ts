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

/** A pino destination that scrubs each line before handing it on. */
export function scrubbingStream(dest: Pick<Writable, 'write'>): { write(line: string): boolean } {
  return { write: (line: string) => dest.write(scrubLogLine(line)) };
}
