/**
 * Starts the real portal server on a free port, on a fresh PGlite cloned from the
 * migrated template, or on a fresh PostgreSQL database when DATABASE_URL is set.
 * Nothing of the server is mocked.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type BuiltApp, type BuildOptions } from '../../server/app.ts';
import { configFromEnv, type ServerConfig } from '../../server/config.ts';

export interface TestServer extends BuiltApp {
  url: string;
  port: number;
  dataDir: string;
  config: ServerConfig;
  /** Stops the server; the data folder is kept until `cleanup`. */
  stop(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function startTestServer(overrides: Partial<ServerConfig> = {}, buildOptions: Omit<BuildOptions, 'loadDataDir'> = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'wb-data-'));
  let databaseUrl: string | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (process.env.DATABASE_URL && !('databaseUrl' in overrides)) {
    ({ url: databaseUrl, drop: dropDatabase } = await createTestDatabase());
  } else {
    databaseUrl = overrides.databaseUrl;
  }
  const config: ServerConfig = {
    ...configFromEnv({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Suites create many cases from one address: budgets no suite reaches, and a
    // work factor the helpers (test/server/api.ts solveChallenge) and the SPA's
    // worker solve at once. The abuse tests set their own.
    submitRateLimit: { max: 100_000, windowSeconds: 3600 },
    challengeRateLimit: { max: 100_000, windowSeconds: 3600 },
    enrolRateLimit: { max: 100_000, windowSeconds: 3600 },
    caseWriteRateLimit: { max: 100_000, windowSeconds: 3600 },
    reporterClientRateLimit: { max: 100_000, windowSeconds: 3600 },
    signinKdfRateLimit: { max: 100_000, windowSeconds: 3600 },
    powDifficulty: 4,
    ...overrides,
  };
  // A data folder that already holds a database (a restart) is opened as it is.
  const template = databaseUrl || existsSync(path.join(dataDir, 'db')) ? undefined : inject('pgliteTemplate');
  const loadDataDir = template ? new Blob([readFileSync(template)]) : undefined;
  const built = await buildApp(config, { ...buildOptions, loadDataDir });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = built.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await built.app.close();
  };
  return {
    ...built,
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    config,
    stop,
    cleanup: async () => {
      await stop();
      await dropDatabase?.();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on the PostgreSQL named by DATABASE_URL, dropped by `drop`. */
export async function createTestDatabase(adminUrl = process.env.DATABASE_URL!): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `wb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
