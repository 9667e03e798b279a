import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import type { Logger } from 'pino';
import { createApp, type QhatuApp } from '../app.js';
import { loadConfig } from '../config.js';
import { Database } from '../db/database.js';
import type { QhatuPlugin } from '../plugin.js';
import type { Clock } from '../tokens.js';
import { createTestDatabase } from './databases.js';
import { poolerEnvironment } from './pooler.js';
import { settler } from './settle.js';

export { adminUrl, createTestDatabase, dropTestDatabases, urlFor } from './databases.js';
export { poolerEnvironment } from './pooler.js';
export { captureLogs, type CapturedLogs, type LogLine } from './logs.js';
export { startMailbox, type Mailbox, type ReceivedMail } from './mailbox.js';
export { indexesOf, nodesOf, searchPlan, seqScans, type PlanNode, type SearchPlan } from './search-plans.js';

export interface TestApp {
  app: QhatuApp;
  platformToken: string;
  databaseUrl: string;
  /** `app.http.inject` with JSON bodies. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** A tenant with an admin and a storefront key, ready for tenant routes. */
  createTenant(input?: { name?: string; currency?: string }): Promise<TestTenant>;
  /** SQL statements run while `work` runs (BEGIN and COMMIT included). */
  countQueries<T>(work: () => Promise<T>): Promise<{ result: T; count: number; statements: string[] }>;
  /**
   * Waits until the background work has run (workers on): every committed event handed to its
   * subscribers, the jobs they queued and every other job waiting or running done, so a test can
   * read their effects at once. Delayed jobs (`delayMs`, or a failed attempt waiting for its retry)
   * are not waited for. Rejects after `timeoutMs` (15 s) naming what is left.
   */
  settle(options?: { timeoutMs?: number }): Promise<void>;
  /** A client connected as the database's owner (no row-level security), one for the app, ended by `close`: what a test writes or reads behind the app's back. */
  owner(): Promise<pg.Client>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** The plugins under test and those they depend on (core is always there). */
  plugins: QhatuPlugin[];
  /** Run the job workers, the outbox relay's sweep and the plugins' `background` hooks in this process (default false). */
  workers?: boolean;
  /** The app's clock (`CLOCK`, `tx.now()`), for tests that move time. */
  clock?: Clock;
  /** Settings on top of the test's own (database, platform token, data folder, `QHATU_ENV=development`), as the environment gives them. */
  env?: Record<string, string>;
  /** The app's logger (a pino logger writing where the test reads), instead of one at `LOG_LEVEL` (silent by default). */
  logger?: Logger;
}

export interface TestTenant {
  id: string;
  slug: string;
  adminToken: string;
  storefrontToken: string;
  /** Headers of a tenant request with the admin key (or another token). */
  headers(token?: string): Record<string, string>;
}

/** Boots the app on its own database copied from the migrated template; one per test file. */
export async function createTestApp(options: TestAppOptions): Promise<TestApp> {
  const database = await createTestDatabase(options.plugins);
  // Each app gets a data folder of its own (local media files and the like), removed on close.
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-test-'));
  const platformToken = `qhp_${randomBytes(24).toString('base64url')}`;
  const config = loadConfig({
    QHATU_DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '4',
    QHATU_PLATFORM_TOKEN: platformToken,
    QHATU_ENV: 'development',
    // Cheap password hashes (scrypt N=2^10): the hashing is the same, the tests do not wait on it;
    // a test that runs the app as production gets production's cost.
    ...(options.env?.QHATU_ENV === 'production' ? {} : { QHATU_PASSWORD_COST: '10' }),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...poolerEnvironment(database.url),
    ...options.env,
  });
  let app: QhatuApp;
  try {
    app = await createApp({ plugins: options.plugins, config, workers: options.workers ?? false, clock: options.clock, logger: options.logger });
  } catch (error) {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const request = (opts: InjectOptions) => app.http.inject(opts);
  let owner: Promise<pg.Client> | undefined;

  return {
    app,
    platformToken,
    databaseUrl: database.url,
    request,
    settle: settler(app),
    async createTenant(input = {}) {
      const auth = { authorization: `Bearer ${platformToken}` };
      const created = await request({
        method: 'POST',
        url: '/api/v1/tenants',
        headers: auth,
        payload: { name: input.name ?? `Store ${randomBytes(3).toString('hex')}`, currency: input.currency ?? 'USD' },
      });
      if (created.statusCode !== 201) throw new Error(`tenant not created: ${created.body}`);
      const tenant = created.json().data;
      const key = async (scope: 'admin' | 'storefront') => {
        const res = await request({
          method: 'POST',
          url: `/api/v1/tenants/${tenant.id}/api-keys`,
          headers: auth,
          payload: { name: `${scope} key`, scope },
        });
        if (res.statusCode !== 201) throw new Error(`key not created: ${res.body}`);
        return res.json().data.token as string;
      };
      const adminToken = await key('admin');
      const storefrontToken = await key('storefront');
      return {
        id: tenant.id,
        slug: tenant.slug,
        adminToken,
        storefrontToken,
        headers: (token = adminToken) => ({ authorization: `Bearer ${token}`, 'x-tenant-id': tenant.id }),
      };
    },
    async countQueries(work) {
      const knex = app.orm.em.getConnection().getKnex();
      const reads = app.container.resolve(Database).statements;
      const statements: string[] = [];
      const listener = (q: { sql: string }) => statements.push(q.sql);
      // A COMMIT that carried more (the transaction's opening, deferred writes, outbox rows) is shown as it went out.
      const readListener = (sql: string, how?: { rewrites?: boolean; opens?: boolean; dropped?: boolean; unsent?: boolean }) => {
        // The BEGIN of the ORM started on a transaction that began already: it did not go out.
        if (how?.unsent) {
          const at = statements.lastIndexOf(sql);
          if (at >= 0) statements.splice(at, 1);
          return;
        }
        // A transaction that ended before its first statement: neither its BEGIN nor its ROLLBACK went out.
        if (how?.dropped) {
          if (statements.at(-1) === sql) statements.pop();
          const at = statements.lastIndexOf('BEGIN;');
          if (at >= 0) statements.splice(at, 1);
          return;
        }
        // The BEGIN knex sent did not go out alone: it rode on this round trip (the transaction's first, or its COMMIT), shown where BEGIN was.
        const begun = how?.opens ? statements.lastIndexOf('BEGIN;') : -1;
        if (begun >= 0 && how?.rewrites) statements.splice(begun, 1);
        else if (begun >= 0) return void (statements[begun] = sql);
        if (how?.rewrites && statements.length > 0) statements[statements.length - 1] = sql;
        else statements.push(sql);
      };
      knex.on('query', listener);
      reads.on('statement', readListener);
      try {
        const result = await work();
        return { result, count: statements.length, statements };
      } finally {
        knex.off('query', listener);
        reads.off('statement', readListener);
      }
    },
    owner() {
      owner ??= (async () => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        return client;
      })();
      return owner;
    },
    async close() {
      await app.close();
      if (owner) await (await owner.catch(() => undefined))?.end();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
