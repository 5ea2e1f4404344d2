import type { FastifyBaseLogger } from 'fastify';
import type { ServerConfig } from './config.ts';
import type { Database } from './db/database.ts';

/**
 * What every route module gets: configuration and the shared services. Each
 * service is created once in buildApp and closed with the app; none is a module
 * singleton, so tests can run several servers in one process.
 */
export interface AppContext {
  config: ServerConfig;
  db: Database;
  dbKind: 'pglite' | 'postgres';
  version: string;
  log: FastifyBaseLogger;
}
