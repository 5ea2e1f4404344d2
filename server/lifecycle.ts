/**
 * The process's life after start-up: readiness and graceful shutdown.
 *
 * Every route handler's promise is tracked (an onRoute hook wraps handlers before
 * routes are registered), so the database closes only after the last handler has
 * finished, including an upload's clean-up after its connection was cut. On shutdown
 * the server stops accepting connections, answers 503 (with the product's error body
 * and Retry-After; a tus HEAD 423) to new requests on open ones,
 * ends connections that never sent a request, lets running requests finish within
 * the grace period, then closes what is left.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from './context.ts';
import { HttpError } from './errors.ts';
import { migrations } from './db/migrations/index.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The status this route answers while the server stops (503 when unset). */
    drainingStatus?: number;
    /** Answered as usual while the server stops (/readyz, which then reports `accepting: failed`). */
    servesWhileDraining?: boolean;
  }
}

/** Seconds a client is told to wait before trying again during a stop: about a restart's time. */
export const DRAINING_RETRY_AFTER_S = 5;

export type Check = 'ok' | 'failed';

export class Lifecycle {
  /** Set when shutdown begins: /readyz answers 503 from then on. */
  draining = false;
  private readonly running = new Set<PromiseLike<unknown>>();

  /** Route handlers whose promise has not settled yet. */
  inFlight(): number {
    return this.running.size;
  }

  /** Wraps every route handler registered after this call (buildApp calls it first). */
  trackHandlers(app: FastifyInstance): void {
    const add = (p: PromiseLike<unknown>) => this.add(p);
    app.addHook('onRoute', (route: RouteOptions) => {
      const handler = route.handler;
      route.handler = function tracked(this: FastifyInstance, req, reply) {
        const out = handler.call(this, req, reply) as unknown;
        // Promises are tracked; a handler that answers through `reply` alone is covered
        // by the server waiting for its connection.
        if (out && typeof (out as PromiseLike<unknown>).then === 'function') add(out as PromiseLike<unknown>);
        return out as ReturnType<typeof handler>;
      };
    });
  }

  /**
   * A connection that has not sent a request yet (a browser's preconnect, a client that
   * went quiet) is not "idle" to Node, so closing waited for it, minutes or for ever:
   * on close it is ended; connections with a request in flight still finish it.
   */
  endQuietConnectionsOnClose(app: FastifyInstance): void {
    const withoutRequest = new Set<Socket>();
    app.server.on('connection', (socket: Socket) => {
      withoutRequest.add(socket);
      socket.once('close', () => withoutRequest.delete(socket));
    });
    app.server.on('request', (req: { socket: Socket }) => withoutRequest.delete(req.socket));
    app.addHook('preClose', async () => {
      for (const socket of withoutRequest) socket.destroy();
    });
  }

  /**
   * Requests that arrive while the server stops (on a connection still open, before
   * the listener closes) are refused with the product's error body and Retry-After,
   * through the app's error handler and each route's own hooks (a tus answer keeps
   * Tus-Resumable), instead of Fastify's bare 503 (buildApp turns that off with
   * `return503OnClosing: false`). A route may name another status: a tus HEAD says 423,
   * the one refusal of HEAD tus-js-client retries instead of starting from zero.
   */
  refuseWhileDraining(app: FastifyInstance): void {
    app.addHook('onRequest', async (req, reply) => {
      if (!this.draining || req.routeOptions.config?.servesWhileDraining) return;
      reply.header('retry-after', String(DRAINING_RETRY_AFTER_S));
      const status = req.routeOptions.config?.drainingStatus ?? 503;
      throw new HttpError(status, 'SHUTTING_DOWN', `This server is restarting; try again in ${DRAINING_RETRY_AFTER_S} seconds.`);
    });
  }

  add(p: PromiseLike<unknown>): void {
    this.running.add(p);
    const remove = () => void this.running.delete(p);
    p.then(remove, remove);
  }

  get runningHandlers(): number {
    return this.running.size;
  }

  /** Resolves once no handler runs (handlers started meanwhile are waited for too). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /**
   * Stops the server: no new connections; running requests get `graceMs` to finish,
   * then their connections are closed (an upload cut this way is discarded by its
   * handler); the app's onClose hooks (database last) run after every handler ended.
   */
  async shutdown(app: FastifyInstance, graceMs: number): Promise<{ cut: boolean }> {
    this.draining = true;
    app.log.info({ graceMs, running: this.running.size }, 'shutting down: waiting for running requests');
    let cut = false;
    const timer = setTimeout(() => {
      cut = true;
      app.log.warn({ running: this.running.size }, 'shutdown grace period over: closing the remaining connections');
      app.server.closeAllConnections();
    }, graceMs);
    try {
      await app.close();
    } finally {
      clearTimeout(timer);
    }
    app.log.info({ cut }, 'shut down');
    return { cut };
  }

  /** What /readyz reports: the database answers, every migration ran, the keys are loaded. */
  async readiness(ctx: AppContext, keysLoaded: () => boolean): Promise<Record<'accepting' | 'database' | 'migrations' | 'keys', Check>> {
    const database = await withTimeout(sql`select 1 as one`.execute(ctx.db), 2000).then(
      () => 'ok' as const,
      () => 'failed' as const,
    );
    const migrationsCheck =
      database === 'ok'
        ? await withTimeout(ctx.db.selectFrom('kysely_migration' as never).select('name' as never).execute(), 2000).then(
            (rows) => {
              const applied = new Set((rows as { name: string }[]).map((r) => r.name));
              return Object.keys(migrations).every((m) => applied.has(m)) ? ('ok' as const) : ('failed' as const);
            },
            () => 'failed' as const,
          )
        : 'failed';
    return { accepting: this.draining ? 'failed' : 'ok', database, migrations: migrationsCheck, keys: keysLoaded() ? 'ok' : 'failed' };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]).finally(() => clearTimeout(timer));
}
