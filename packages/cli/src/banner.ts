import path from 'node:path';
import type { QhatuApp } from '@qhatu/core';
import { withoutPassword } from './output.js';

export interface BannerFacts {
  address: string;
  app: QhatuApp;
  workers: boolean;
  /** The platform token came from QHATU_PLATFORM_TOKEN (not printed) rather than the data folder. */
  tokenFromEnv: boolean;
}

/** What a person needs right after `qhatu start`: where the API is, and how to create the first store. */
export function startBanner({ address, app, workers, tokenFromEnv }: BannerFacts): string[] {
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
    `  Workers         ${workers ? 'running in this process' : 'not in this process (run `qhatu worker`)'}`,
    `  Data            ${data}`,
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
