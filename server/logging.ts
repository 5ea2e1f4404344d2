/**
 * The operations log: one JSON object a line (pino, through Fastify), with `level`,
 * `time`, `reqId` on every line a request writes, and `companyId` once the request's
 * company is known. Never a case number, token, password, reporter address, user
 * agent or IP (docs/decisions/log-privacy.md, test/server/log-privacy.test.ts).
 */
import type { FastifyRequest } from 'fastify';
import os from 'node:os';

/**
 * Adds the company to every later line of this request, the final "request
 * completed" included (the reply shares the request's child logger).
 */
export function bindCompany(req: FastifyRequest, companyId: string): void {
  (req.log as { setBindings?: (b: Record<string, unknown>) => void }).setBindings?.({ companyId });
}

const LEVELS = { info: 30, warn: 40, error: 50, fatal: 60 } as const;

/** A line in the log's own format, for the moments without a logger (start-up, before Fastify exists). */
export function logLine(level: keyof typeof LEVELS, msg: string, extra: Record<string, unknown> = {}, stream: NodeJS.WritableStream = level === 'info' ? process.stdout : process.stderr): void {
  stream.write(JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname: os.hostname(), ...extra, msg }) + '\n');
}
