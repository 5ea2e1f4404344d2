/**
 * The metadata re-check's child process (server/files/sandbox.ts): reads one file from
 * stdin, inspects it with the SPA's own parsers under the server's inflate limits, and
 * writes one line of JSON: `{"kinds":[…]}` (null: a type or file it cannot read) or
 * `{"limit":true}` (the file would inflate past the limits). The parent enforces time,
 * memory and output; these limits make a bomb end in milliseconds rather than at them.
 */
import type { ScanLimits } from '../../core/metadata/scan.ts';

/** Per file: object and cross-reference streams of a real PDF are far smaller. */
const SERVER_SCAN_LIMITS: ScanLimits = { maxInflatedBytes: 64 * 1024 * 1024, maxFilterDepth: 3, maxZipEntries: 10_000 };
/** Only what the server checks; a zip never reaches fflate here. */
const FORMATS = new Set(['jpeg', 'png', 'pdf']);

// stdout carries the answer alone: a parser's own chatter must not become part of it.
console.log = console.info = console.debug = () => undefined;

async function main(): Promise<void> {
  const max = Number(process.argv[2]);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) process.exit(3);
    parts.push(chunk);
  }
  const bytes = new Uint8Array(Buffer.concat(parts));
  const { detectFormat, inspectFile, sortKinds, ScanLimitExceeded } = await import('../../core/metadata/scan.ts');
  let answer: { kinds: string[] | null } | { limit: true };
  if (!FORMATS.has(detectFormat(bytes) ?? '')) answer = { kinds: null };
  else {
    try {
      const r = await inspectFile(bytes, SERVER_SCAN_LIMITS);
      answer = { kinds: r.format ? sortKinds(r.findings.map((f) => f.kind)) : null };
    } catch (e) {
      answer = e instanceof ScanLimitExceeded ? { limit: true } : { kinds: null };
    }
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0));
}

void main().catch(() => process.exit(2));
