import path from 'node:path';

/** Everything the operator can set, read once from the environment (docs/operations.md). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  masterKey?: string;
  distDir: string;
  /** Public base URL of the portal when behind a proxy; otherwise derived per request. */
  publicUrl?: string;
  seedDemo: boolean;
  logLevel: string;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const root = path.resolve(import.meta.dirname, '..');
  return {
    port: Number(env.PORT ?? 9000),
    host: env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR ?? path.join(root, 'data')),
    databaseUrl: env.DATABASE_URL || undefined,
    masterKey: env.MASTER_KEY || undefined,
    distDir: path.resolve(env.DIST_DIR ?? path.join(root, 'dist')),
    publicUrl: env.PUBLIC_URL || undefined,
    seedDemo: env.SEED_DEMO !== 'false',
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
