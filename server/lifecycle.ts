/**
 * The process's life after start-up: readiness and graceful shutdown.
 *
 * Every route handler's promise is tracked (an onRoute hook wraps handlers before
 * routes are registered), so the database closes only after the last handler has
 * finished, including an upload's clean-up after its connection was cut. On shutdown
 * the server stops accepting connections, answers 503 to new requests on open ones,
 * ends connections that never sent a request, lets running requests finish within
 * the grace period, then closes what is left.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from './context.ts';
import { migrations } from './db/migrations/index.ts';

export type Check = 'ok' | 'failed';

export class Lifecycle {
  /** Set when shutdown begins: /readyz answers 503 from then on. */
  draining = false;
  private readonly running = new Set<PromiseLike<unknown>>();

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
