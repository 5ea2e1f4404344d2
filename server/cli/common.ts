/**
 * Shared by the operator CLIs: where the running server is, the admin token, and
 * whether the database may be opened directly. PGlite lets only one process open
 * its data folder, so while the server runs the CLIs talk to it over HTTP
 * (server/routes/admin.ts); the server records its port and pid in
 * DATA_DIR/server.json while it listens.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { configFromEnv, type ServerConfig } from '../config.ts';
import { privateUmask } from '../security/private-files.ts';

// Every CLI imports this module before it touches DATA_DIR: what it creates there is private.
privateUmask();

export interface RunningServer {
  pid: number;
  port: number;
}

export function runningServer(config: ServerConfig): RunningServer | null {
  const file = path.join(config.dataDir, 'server.json');
  if (!existsSync(file)) return null;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as RunningServer;
    process.kill(s.pid, 0); // throws when no such process
    return s;
  } catch {
    return null;
  }
}

export function cliConfig(): ServerConfig {
  return configFromEnv();
}

/** --url, else the server recorded in the data folder, else PORT or 9000 on localhost. */
export function serverUrl(config: ServerConfig, given?: string): string {
  if (given) return given.replace(/\/$/, '');
  const running = runningServer(config);
  return `http://localhost:${running?.port ?? config.port}`;
}

export function adminToken(config: ServerConfig): string | null {
  const file = path.join(config.dataDir, 'admin.token');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

export function isConnectionRefused(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } })?.cause;
  return cause?.code === 'ECONNREFUSED' || (err as { code?: string })?.code === 'ECONNREFUSED';
}

export function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

/** Prints an API error answer and exits. */
export async function failFromResponse(res: Response): Promise<never> {
  let text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: { code: string; message: string; field?: string } };
    if (body.error) text = `${body.error.code}: ${body.error.message}${body.error.field ? ` (field ${body.error.field})` : ''}`;
  } catch {
    // not JSON: print as it came
  }
  fail(`${res.status} ${text}`);
}

/**
 * A mistake on the command line (unknown option, missing argument): one line that
 * says what is wrong and how the command is used, exit code 2, never a stack trace.
 */
export function usageError(message: string, synopsis: string): never {
  process.stderr.write(`error: ${message}; usage: ${synopsis}\n`);
  process.exit(2);
}

/** What node:util parseArgs says, in a few words: "unknown option --foo", "option --url needs a value". */
function argsProblem(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(e.message ?? '')?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? ''}`.trim();
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return option ? `option ${option} ${/argument missing/.test(e.message ?? '') ? 'needs a value' : 'takes no value'}` : 'bad option value';
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']+)'/.exec(e.message ?? '')?.[1] ?? ''}`.trim();
    default:
      return (e.message ?? String(err)).split('\n')[0]!;
  }
}

/** node:util parseArgs, strict, with a usage error instead of a thrown TypeError. */
export function parseCli<const C extends ParseArgsConfig>(config: C, synopsis: string): ReturnType<typeof parseArgs<C>> {
  try {
    return parseArgs({ ...config, strict: true } as C);
  } catch (err) {
    usageError(argsProblem(err), synopsis);
  }
}
