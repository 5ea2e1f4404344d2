/**
 * The portal's one process: SPA, runtime config, public and private API, handler
 * API and the embedded OpenID provider, on one origin (DESIGN.md §1).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { ServerConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import type { AppContext } from './context.ts';
import { HttpError, errorBody } from './errors.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const SECURITY_HEADERS: Record<string, string> = {
  // Inline *styles* are allowed because Radix and the company colours set style
  // attributes at run time; inline *script* never is.
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
};

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
}

export async function buildApp(config: ServerConfig, opts: { loadDataDir?: Blob } = {}): Promise<BuiltApp> {
  const app = Fastify({
    // Reporters' IP addresses, user agents and referrers are never logged: the
    // request serializer keeps only the method and the path without its query.
    logger: {
      level: config.logLevel,
      serializers: {
        req: (req) => ({ method: req.method, url: req.url.split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    trustProxy: false,
    bodyLimit: 1024 * 1024,
  });

  const opened = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, loadDataDir: opts.loadDataDir });
  const ctx: AppContext = { config, db: opened.db, dbKind: opened.kind, version: pkg.version, log: app.log };
  app.addHook('onClose', async () => opened.close());

  app.addHook('onSend', async (_req, reply, payload) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    return payload;
  });

  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) {
      return reply.status(err.statusCode).send(errorBody(err.code, err.message, err.field));
    }
    const status = (err as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      const code = (err as FastifyError).code ?? 'BAD_REQUEST';
      return reply.status(status).send(errorBody(code, err.message));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody('INTERNAL', 'Something went wrong on our side.'));
  });

  app.get('/config/config.json', async (req) => {
    const proto = config.publicUrl ? new URL(config.publicUrl).protocol.replace(':', '') : req.protocol;
    const hostHeader = config.publicUrl ? new URL(config.publicUrl).host : req.host;
    const [host, port] = splitHost(hostHeader, proto);
    const origin = config.publicUrl ? new URL(config.publicUrl).origin : `${proto}://${hostHeader}`;
    return {
      api: { protocol: proto, host, port },
      version: ctx.version,
      idSettings: { authority: `${origin}/idp/realms/whistleblower`, realm: 'whistleblower', clientId: 'whistleblower-app' },
    };
  });

  app.get('/healthz', async () => ({ ok: true }));

  const hasDist = existsSync(path.join(config.distDir, 'index.html'));
  if (hasDist) {
    await app.register(fastifyStatic, { root: config.distDir, wildcard: false, index: false, cacheControl: false });
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.url.startsWith('/assets/')) reply.header('cache-control', 'public, max-age=31536000, immutable');
      return payload;
    });
  }

  app.setNotFoundHandler(async (req, reply) => {
    const p = req.url.split('?')[0] ?? '/';
    const isApi = p.startsWith('/api/') || p.startsWith('/idp/') || p.startsWith('/config/');
    if (!isApi && req.method === 'GET' && hasDist) {
      // Client-side routes: the SPA decides what the path means, including not-found.
      reply.header('cache-control', 'no-cache');
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply.status(404).send(errorBody('NOT_FOUND', `No such resource: ${req.method} ${p}`));
  });

  return { app, ctx };
}

function splitHost(hostHeader: string, proto: string): [string, number] {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostHeader);
  const host = m?.[1] ?? 'localhost';
  const port = m?.[2] ? Number(m[2]) : proto === 'https' ? 443 : 80;
  return [host, port];
}
