import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runMigrations } from 'bullmq';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { FastifyInstance } from 'fastify';
import { Secrets } from './auth/secrets.js';
import { FactCache } from './cache/fact-cache.js';
import { ReadCache } from './cache/read-cache.js';
import { CACHE_CHANNEL, CACHE_LISTENER_NAME, PostgresCacheSync, RedisCacheSync, type CacheSync } from './auth/cache-sync.js';
import { Passwords } from './auth/passwords.js';
import { PermissionRegistry } from './auth/permissions.js';
import { AccessTokens } from './auth/tokens.js';
import { loadConfig, type QhatuConfig } from './config.js';
import { corePlugin } from './core-plugin.js';
import { customFieldsGraphQL } from './custom-fields/graphql.js';
import { documentCustomFields } from './custom-fields/openapi.js';
import { CustomFields } from './custom-fields/registry.js';
import { Database } from './db/database.js';
import { directDatabaseUrl } from './db/direct.js';
import type { EmbeddedDatabase } from './db/embedded.js';
import { startEmbeddedDatabaseInThread } from './db/embedded-thread.js';
import { migrate, pendingMigrations } from './db/migrations.js';
import { healthRoutes } from './http/health.js';
import { buildHttp, type RouteInfo } from './http/server.js';
import type { GraphQLFieldInfo } from './graphql/types.js';
import { Mailer } from './mail/mailer.js';
import { createOrm, type MikroORM } from './db/orm.js';
import { EventBus } from './events/bus.js';
import { OutboxRelay } from './events/outbox.js';
import { Housekeeping } from './housekeeping.js';
import { BULLMQ_SCHEMA, Jobs } from './jobs/jobs.js';
import { Metrics } from './observability/metrics.js';
import { MetricsListener } from './observability/metrics-http.js';
import { readObservability } from './observability/settings.js';
import { flushTracing, startTracing, traceFields } from './observability/tracing.js';
import { orderPlugins, type QhatuPlugin } from './plugin.js';
import { StaffAccounts } from './staff/accounts.js';
import { StaffDirectory } from './staff/directory.js';
import { StaffMembers } from './staff/members.js';
import { Roles } from './staff/roles.js';
import { readStaffSettings, STAFF_SETTINGS } from './staff/settings.js';
import { Tenants } from './tenancy/tenants.js';
import { Locales } from './translations/store-locales.js';
import { Currencies } from './markets/store-currencies.js';
import { Markets } from './markets/store-markets.js';
import { MailTexts } from './mail/texts.js';
import { CLOCK, CONFIG, LOGGER, ORM, PLUGINS, systemClock, type Clock } from './tokens.js';

export interface CreateAppOptions {
  plugins: QhatuPlugin[];
  config?: QhatuConfig;
  /** Apply pending migrations before starting (the embedded start always does). */
  migrate?: boolean;
  /** Run job workers in this process. */
  workers?: boolean;
  logger?: Logger;
  clock?: Clock;
  /**
   * The embedded database, already starting (the CLI starts it in its own thread before it loads the
   * project's modules); without it, and without `DATABASE_URL`, the app starts one. The app closes it.
   */
  embedded?: Promise<EmbeddedDatabase>;
}

export interface QhatuApp {
  http: FastifyInstance;
  container: DependencyContainer;
  config: QhatuConfig;
  orm: MikroORM;
  jobs: Jobs;
  /** This app's Prometheus metrics (served at `/metrics`). */
  metrics: Metrics;
  databaseUrl: string;
  plugins: QhatuPlugin[];
  /** Every REST route: its plugin, method, URL, auth rule and permission. */
  routes: readonly RouteInfo[];
  /** Every root field of the GraphQL schema: its plugin, who may call it and its permission. */
  graphqlFields: readonly GraphQLFieldInfo[];
  /** Serves HTTP (and, when `QHATU_METRICS_PORT` is set, the metrics listener); the API's address. */
  listen(): Promise<string>;
  /** Opens the metrics listener alone (done by `listen` and by workers); its address, or undefined when no port is set. */
  listenMetrics(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Reads the platform credential from the data folder, or makes one (embedded development only). */
async function ensurePlatformToken(config: QhatuConfig, logger: Logger): Promise<QhatuConfig> {
  if (config.platformToken) return config;
  const file = path.resolve(config.dataDir, 'platform-token');
  let token: string;
  try {
    token = (await readFile(file, 'utf8')).trim();
  } catch {
    token = `qhp_${randomBytes(32).toString('base64url')}`;
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    logger.info({ file }, 'generated a platform token');
  }
  return { ...config, platformToken: token };
}

/** Applies the plugins' migrations and the job queue's own. */
export async function migrateAll(databaseUrl: string, plugins: QhatuPlugin[], log?: (line: string) => void) {
  const ordered = orderPlugins([corePlugin, ...plugins.filter((p) => p.name !== 'core')]);
  const report = await migrate(databaseUrl, ordered, log);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await runMigrations(client, BULLMQ_SCHEMA);
  } finally {
    await client.end();
  }
  return report;
}

export async function createApp(options: CreateAppOptions): Promise<QhatuApp> {
  let config = options.config ?? loadConfig();
  // With tracing on, each log line names its trace and span, to go from a line to its trace.
  const logger = options.logger ?? pino({ level: config.logLevel, mixin: traceFields });
  const plugins = orderPlugins([corePlugin, ...options.plugins.filter((p) => p.name !== 'core')]);
  const permissions = new PermissionRegistry(plugins);
  // Every plugin's custom fields (and the project's), checked before anything starts.
  const customFields = new CustomFields(plugins);
  const observability = readObservability(config);
  // Before the database driver is first used, so that its queries are traced.
  if (observability.tracing) startTracing({ url: observability.tracing.url });

  let embedded: EmbeddedDatabase | undefined;
  const closers: Array<() => Promise<void> | void> = [];
  try {
    if (!config.databaseUrl) {
      embedded = await (options.embedded ?? startEmbeddedDatabaseInThread(config.dataDir));
      closers.push(() => embedded!.close());
      config = await ensurePlatformToken(config, logger);
    } else if (!config.platformToken && config.env === 'development') {
      config = await ensurePlatformToken(config, logger);
    }
    const databaseUrl = config.databaseUrl ?? embedded!.url;
    // LISTEN, the job queue and the migrator's lock need a session: past a transaction-mode pooler, to the server (decision 0078).
    const directUrl = embedded ? databaseUrl : directDatabaseUrl(config.environment, databaseUrl);
    if (options.migrate ?? Boolean(embedded)) {
      await migrateAll(directUrl, plugins, (line) => logger.info(line));
    }

    const orm = await createOrm({
      url: databaseUrl,
      poolMax: embedded ? 4 : config.databasePoolMax,
      entities: plugins.flatMap((p) => p.entities ?? []),
      logger,
    });
    closers.unshift(() => orm.close());

    const container = rootContainer.createChildContainer();
    const clock = options.clock ?? systemClock;
    const bus = new EventBus(logger);
    const jobs = new Jobs({ databaseUrl: directUrl, redisUrl: config.redisUrl, prefix: config.queuePrefix, embedded: Boolean(embedded), logger, lockMs: config.jobLockMs });
    closers.unshift(() => jobs.close());
    container.register(CONFIG, { useValue: config });
    container.register(LOGGER, { useValue: logger });
    container.register(CLOCK, { useValue: clock });
    container.register(ORM, { useValue: orm });
    container.register(PLUGINS, { useValue: plugins });
    container.register(EventBus, { useValue: bus });
    container.register(Jobs, { useValue: jobs });
    const metrics = new Metrics(logger);
    container.register(Metrics, { useValue: metrics });
    jobs.onRun((name, outcome, seconds) => metrics.observeJob(name, outcome, seconds));
    jobs.attach(container);
    container.registerSingleton(Database);
    container.registerSingleton(AccessTokens);
    container.registerSingleton(Secrets);
    container.registerSingleton(Mailer);
    container.registerSingleton(Tenants);
    container.registerSingleton(Locales);
    container.registerSingleton(Currencies);
    container.registerSingleton(Markets);
    container.registerSingleton(MailTexts);
    container.register(PermissionRegistry, { useValue: permissions });
    container.register(CustomFields, { useValue: customFields });
    documentCustomFields(customFields);
    container.register(STAFF_SETTINGS, { useValue: readStaffSettings(config) });
    container.registerSingleton(Passwords);
    container.registerSingleton(Roles);
    container.registerSingleton(StaffMembers);
    container.registerSingleton(StaffAccounts);
    container.registerSingleton(StaffDirectory);
    // Token cache invalidation across API processes; the embedded database is one process's alone.
    const tokens = container.resolve(AccessTokens);
    closers.unshift(() => tokens.close());
    const db = container.resolve(Database);
    closers.unshift(() => db.close());
    const retries = metrics.counter('qhatu_db_transaction_retries_total', 'Transactions run again after a lost connection or a serialization failure, by reason', ['reason']);
    db.onRetry((reason) => retries.inc({ reason }));
    const sync: CacheSync | undefined = config.redisUrl
      ? new RedisCacheSync(config.redisUrl, config.queuePrefix, logger)
      : embedded
        ? undefined
        : new PostgresCacheSync(directUrl, async (payload) => {
            const [row] = await db.query<{ listeners: number }>(
              `select pg_notify(?, ?), (select count(*)::int from pg_stat_activity where datname = current_database() and application_name = ?) as listeners`,
              [CACHE_CHANNEL, payload, CACHE_LISTENER_NAME],
            );
            return row.listeners;
          }, logger);
    if (sync) await tokens.attach(sync);
    // Storefront answers kept in memory; plugins join it to the same listener (`ReadCache.attach`).
    const readCache = new ReadCache(config.readCache, sync);
    container.register(ReadCache, { useValue: readCache });
    // Facts hot writes read, kept under versions they read in their own transactions.
    const factCache = new FactCache(config.factCache);
    container.register(FactCache, { useValue: factCache });
    const relay = new OutboxRelay(container.resolve(Database), jobs, bus, logger);
    container.register(OutboxRelay, { useValue: relay });
    closers.unshift(() => relay.stop());
    metrics.watch({
      pool: () => {
        const pool = orm.em.getConnection().getKnex().client.pool;
        return pool && { used: pool.numUsed(), idle: pool.numFree(), pendingAcquires: pool.numPendingAcquires(), max: pool.max };
      },
      queueCounts: () => jobs.counts(),
      caches: () => [
        { cache: 'storefront', ...readCache.stats() },
        { cache: 'facts', ...factCache.stats() },
      ],
      // The platform's view (every tenant), as the relay reads it; the partial index of pending rows serves it.
      outbox: async () => {
        const [row] = await db.query<{ pending: number; lag: number }>(
          `select count(*)::int as pending, coalesce(extract(epoch from now() - min(occurred_at)), 0)::float8 as lag
             from core_outbox where published_at is null`,
        );
        return { pending: row.pending, lagSeconds: Math.max(0, row.lag) };
      },
    });
    const metricsListener = new MetricsListener(metrics, observability.metrics, logger, (server) => healthRoutes(server, db, jobs, config.queueStallMs));
    closers.unshift(() => metricsListener.close());
    const housekeeping = new Housekeeping(container.resolve(Database), logger);
    container.register(Housekeeping, { useValue: housekeeping });
    closers.unshift(() => housekeeping.stop());

    for (const plugin of plugins) plugin.register?.(container);
    for (const plugin of plugins) {
      for (const [name, definition] of Object.entries(plugin.jobs ?? {})) jobs.define(name, definition);
    }

    const routes: RouteInfo[] = [];
    // The custom fields' GraphQL types ride along as one more contribution.
    const customFieldTypes = customFieldsGraphQL(customFields);
    const hosted = customFieldTypes ? [...plugins, { name: 'custom-fields', graphql: customFieldTypes }] : plugins;
    const http = await buildHttp(config, logger, hosted, container, routes);
    closers.unshift(() => http.close());

    // A plugin's onReady and the workers read its tables: on a database behind the code they would
    // fail with raw SQL errors, so they wait until `qhatu migrate` (commands then say what is pending).
    const pending = await pendingMigrations(container.resolve(Database), plugins);
    // Lists filter on an indexed field by its stored column, or on the jsonb until `qhatu migrate` makes it.
    const unindexed = pending.length ? [] : await customFields.readStored(container.resolve(Database));
    if (unindexed.length) logger.warn({ columns: unindexed }, `${unindexed.length} indexed custom field(s) without their column: lists filter on them unindexed until \`qhatu migrate\``);
    if (pending.length) logger.warn({ pending }, `${pending.length} migration(s) pending: run \`qhatu migrate\``);
    else for (const plugin of plugins) await plugin.onReady?.({ container });
    if (options.workers && !pending.length) {
      // A worker process serves no API: its metrics (job runs, deliveries) are read on the metrics port.
      await metricsListener.listen();
      await jobs.startWorkers();
      relay.startSweeping();
      housekeeping.start();
      for (const plugin of plugins) {
        const stop = plugin.background?.({ container });
        if (stop) closers.unshift(stop);
      }
    }

    let closed = false;
    return {
      http,
      container,
      config,
      orm,
      jobs,
      metrics,
      databaseUrl,
      plugins,
      routes,
      graphqlFields: http.graphqlFields,
      listenMetrics: () => metricsListener.listen(),
      async listen() {
        await metricsListener.listen();
        return http.listen({ port: config.port, host: config.host });
      },
      async close() {
        if (closed) return;
        closed = true;
        for (const close of closers) await close();
        await flushTracing();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
    throw error;
  }
}
