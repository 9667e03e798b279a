import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { REFERENCE_PREFIX } from './baseline.js';
import type { ServerKind } from './servers.js';
import { productBody, type SeededStore } from './seed.js';

export interface Scenario {
  name: string;
  target: ServerKind;
  requests: autocannon.Request[];
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface ScenarioResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  completed: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Failures during the warm-up, which is not measured but still must not fail. */
  warmupFailures: number;
  /** The first few failing answers and socket errors, to tell what went wrong. */
  failureSamples: string[];
}

const MAX_FAILURE_SAMPLES = 5;

function tenantHeaders(store: SeededStore): Record<string, string> {
  return { authorization: `Bearer ${store.adminToken}`, 'x-tenant-id': store.tenantId };
}

/** Each request reads the next seeded product, so the reads spread over all of them. */
function rotatingRead(store: SeededStore, prefix = ''): autocannon.Request {
  let next = 0;
  return {
    method: 'GET',
    headers: tenantHeaders(store),
    setupRequest: (request) => ({
      ...request,
      path: `${prefix}/api/v1/catalog/products/${store.productIds[next++ % store.productIds.length]}`,
    }),
  };
}

/** Each request creates a product whose title (hence handle) and SKUs no other request uses. */
function uniqueCreate(store: SeededStore): autocannon.Request {
  const run = randomBytes(3).toString('hex');
  let next = 0;
  return {
    method: 'POST',
    path: '/api/v1/catalog/products',
    headers: { ...tenantHeaders(store), 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify(productBody(`load-${run}-${next++}`)) }),
  };
}

/** Baseline first (the others are compared with it); writes last, so reads see the seeded catalog only. */
export function scenarios(store: SeededStore): Scenario[] {
  return [
    { name: 'baseline: fastify + pg, 1 query', target: 'baseline', requests: [rotatingRead(store)] },
    { name: "reference: the app's 4 SQL statements, raw pg", target: 'baseline', requests: [rotatingRead(store, REFERENCE_PREFIX)] },
    { name: 'GET /catalog/products/:id', target: 'app', requests: [rotatingRead(store)] },
    {
      name: 'GET /catalog/products?limit=25',
      target: 'app',
      requests: [{ method: 'GET', path: '/api/v1/catalog/products?limit=25', headers: tenantHeaders(store) }],
    },
    { name: 'POST /catalog/products', target: 'app', requests: [uniqueCreate(store)] },
  ];
}

/** Drives one scenario with autocannon: a warm-up, then the measured run. */
export async function runScenario(baseUrl: string, scenario: Scenario, load: LoadSettings): Promise<ScenarioResult> {
  const failureSamples: string[] = [];
  const sample = (line: string) => {
    if (failureSamples.length < MAX_FAILURE_SAMPLES) failureSamples.push(line);
  };
  const requests = scenario.requests.map((request) => ({
    ...request,
    onResponse: (status: number, body: string) => {
      if (status < 200 || status > 299) sample(`HTTP ${status}: ${body.slice(0, 300)}`);
    },
  }));

  const instance = autocannon({
    url: baseUrl,
    title: scenario.name,
    connections: load.connections,
    duration: load.durationSeconds,
    warmup: { connections: load.connections, duration: load.warmupSeconds },
    requests,
  });
  instance.on('reqError', (error: Error) => sample(`request error: ${error.message}`));
  const result = await instance;

  return {
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    completed: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    warmupFailures: result.warmup ? result.warmup.non2xx + result.warmup.errors : 0,
    failureSamples,
  };
}
