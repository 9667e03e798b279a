import path from 'node:path';
import type { QhatuApp } from '@qhatu/core';
import { withoutPassword } from './output.js';

export interface BannerFacts {
  address: string;
  app: QhatuApp;
  workers: boolean;
  /** The platform token came from QHATU_PLATFORM_TOKEN (not printed) rather than the data folder. */
  tokenFromEnv: boolean;
  /** The metrics listener's address, when `QHATU_METRICS_PORT` opened one. */
  metricsAddress?: string;
}

/** Where the process's metrics can be scraped and where its traces go, in two banner lines. */
export async function observabilityLines(app: QhatuApp, apiAddress: string | undefined, metricsAddress: string | undefined): Promise<string[]> {
  const { readObservability } = await import('@qhatu/core');
  const { metrics, tracing } = readObservability(app.config);
  const bearer = metrics.token ? 'bearer $QHATU_METRICS_TOKEN' : undefined;
  const where = !metrics.enabled
    ? 'off (QHATU_METRICS=off)'
    : metricsAddress
      ? `${metricsAddress}/metrics (${bearer ?? 'no token: keep the port private'})`
      : apiAddress
        ? `${apiAddress}/metrics (${bearer ? `${bearer} or the platform token` : 'bearer the platform token, or set QHATU_METRICS_TOKEN'})`
        : 'not served: set QHATU_METRICS_PORT';
  return [`  Metrics         ${where}`, `  Traces          ${tracing ? `${tracing.url} (OTLP/HTTP)` : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT)'}`];
}

/** Which code runs: a clone's TypeScript sources (and why), or compiled packages. */
function codeLine(): string {
  const sources = (globalThis as Record<symbol, unknown>)[Symbol.for('qhatu.sources')];
  return typeof sources === 'string' ? `TypeScript sources through tsx (${sources}; \`pnpm build\` compiles them)` : 'compiled packages (dist/)';
}

/** What a person needs right after `qhatu start`: where the API is, and how to create the first store. */
export async function startBanner({ address, app, workers, tokenFromEnv, metricsAddress }: BannerFacts): Promise<string[]> {
  const { config } = app;
  const data = config.embedded
    ? `${path.resolve(config.dataDir)} (embedded PostgreSQL)`
    : `${withoutPassword(app.databaseUrl)} (DATABASE_URL)`;
  const token = tokenFromEnv ? '$QHATU_PLATFORM_TOKEN' : config.platformToken;
  const lines = [
    `Qhatu is listening on ${address}`,
    `  REST API        ${address}/api/v1`,
    `  GraphQL         ${address}/graphql`,
    `  API docs        ${address}/docs`,
    `  Health          ${address}/health/live, ${address}/health/ready`,
    ...(await observabilityLines(app, address, metricsAddress)),
    `  Workers         ${workers ? 'running in this process' : 'not in this process (run `qhatu worker`)'}`,
    `  Data            ${data}`,
    `  Code            ${codeLine()}`,
  ];
  if (!token) return [...lines, '  Platform token  none: set QHATU_PLATFORM_TOKEN to manage tenants', ''];
  lines.push(
    tokenFromEnv
      ? '  Platform token  from QHATU_PLATFORM_TOKEN'
      : `  Platform token  ${token}  (kept in ${path.resolve(config.dataDir, 'platform-token')})`,
    '',
    'Create a store:',
    `  curl -X POST ${address}/api/v1/tenants -H "Authorization: Bearer ${token}" -H 'Content-Type: application/json' -d '{"name": "My Store"}'`,
    'then issue it an admin API key (use the "id" it answers with):',
    `  curl -X POST ${address}/api/v1/tenants/<id>/api-keys -H "Authorization: Bearer ${token}" -H 'Content-Type: application/json' -d '{"name": "Admin", "scope": "admin"}'`,
    '',
    'Press Ctrl+C to stop.',
  );
  return lines;
}
