import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { CEILING_PREFIX, PLACE_PATH, REFERENCE_PREFIX, WRITE_PATH, WRITE_ROWS } from './baseline.js';
import type { ServerKind } from './servers.js';
import { productBody, SHIPPING, type SeededStore } from './seed.js';

export interface Scenario {
  name: string;
  target: ServerKind;
  /** Sent in turn by each connection, then again from the first (autocannon's `requests`). */
  requests: autocannon.Request[];
  /** Set when `requests` is one chained flow: its name, and one iteration is `requests.length` HTTP requests. */
  flow?: string;
  /** The baseline scenario its ratios are taken against (the read baseline when absent). */
  compareWith?: string;
  /** Made before the warm-up and not measured (the carts a checkout flow checks out, say). */
  prepare?: (baseUrl: string, load: LoadSettings) => Promise<void>;
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface ScenarioResult {
  name: string;
  compareWith?: string;
  /** For chained flows: what one iteration makes, and how many HTTP requests it takes. */
  flow?: { unit: string; steps: number };
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
  /**
   * CPU seconds the server and PostgreSQL spent on the measured seconds (read over warm-up and
   * measurement, counted in proportion to the measured part); absent where /proc cannot be read.
   */
  cpu?: { server: number; database: number };
}

const MAX_FAILURE_SAMPLES = 5;

function tenantHeaders(store: SeededStore, token = store.adminToken): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'x-tenant-id': store.tenantId };
}

/** Each request reads the next seeded product, so the reads spread over all of them. */
function rotatingRead(store: SeededStore, prefix = '', token = store.adminToken): autocannon.Request {
  let next = 0;
  return {
    method: 'GET',
    headers: tenantHeaders(store, token),
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

/** The write floor: request n updates counter row n mod 250 and inserts one row, in one transaction. */
function baselineWrite(): autocannon.Request {
  let next = 0;
  return {
    method: 'POST',
    path: WRITE_PATH,
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ counter: next++ % WRITE_ROWS, body: { variant_id: 'bench', quantity: 1 } }) }),
  };
}

const json = (store: SeededStore, token = store.adminToken) => ({ ...tenantHeaders(store, token), 'content-type': 'application/json' });

/**
 * Adds one unit of a variant to a pre-made cart: request n goes to cart n mod C with variant n mod V,
 * so each cart collects a few lines (at most lcm(C, V) / C distinct variants) and no two
 * connections are likely to hold the same cart at once.
 */
function addToCart(store: SeededStore): autocannon.Request {
  let next = 0;
  return {
    method: 'POST',
    headers: json(store),
    setupRequest: (request) => {
      const n = next++;
      return {
        ...request,
        path: `/api/v1/checkout/carts/${store.cartIds[n % store.cartIds.length]}/items`,
        body: JSON.stringify({ variant_id: store.variantIds[n % store.variantIds.length], quantity: 1 }),
      };
    },
  };
}

/**
 * One order per iteration, chained on each autocannon connection (its `context` carries the ids
 * from one answer to the next request): create a cart, add two variants, check it out, and PUT the
 * shipping step with a rate, which places the order. Every HTTP request counts as one request.
 */
function cartToOrder(store: SeededStore): autocannon.Request[] {
  let next = 0;
  const headers = json(store);
  const variant = () => store.variantIds[next++ % store.variantIds.length];
  const remember = (key: string) => (status: number, body: string, context: Record<string, unknown>) => {
    if (status >= 200 && status < 300) context[key] = JSON.parse(body).data.id;
  };
  const addItem: autocannon.Request = {
    method: 'POST',
    headers,
    setupRequest: (request, context) => ({ ...request, path: `/api/v1/checkout/carts/${context.cartId}/items`, body: JSON.stringify({ variant_id: variant(), quantity: 1 }) }),
  };
  return [
    { method: 'POST', path: '/api/v1/checkout/carts', headers, body: '{}', onResponse: remember('cartId') },
    addItem,
    { ...addItem },
    {
      method: 'POST',
      path: '/api/v1/checkout/checkouts',
      headers,
      setupRequest: (request, context) => ({ ...request, body: JSON.stringify({ cart_id: context.cartId, email: 'bench@example.com' }) }),
      onResponse: remember('checkoutId'),
    },
    {
      method: 'PUT',
      headers,
      body: JSON.stringify(SHIPPING),
      setupRequest: (request, context) => ({ ...request, path: `/api/v1/checkout/checkouts/${context.checkoutId}/shipping` }),
    },
  ];
}

/** Each request asks GraphQL for the next seeded product (by a variable: one query text). */
function rotatingGraphQLRead(store: SeededStore, token = store.storefrontToken): autocannon.Request {
  let next = 0;
  const query = 'query Product($id: ID!) { product(id: $id) { id title handle descriptionHtml status variants { id title sku price compareAtPrice currency inventoryQuantity } images { url altText } } }';
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...tenantHeaders(store, token), 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ query, variables: { id: store.productIds[next++ % store.productIds.length] } }) }),
  };
}

const GRAPHQL_LIST =
  '{ products(limit: 25) { edges { cursor node { id title handle status variants { id title sku price currency inventoryQuantity } images { url altText } } } pageInfo { hasNextPage endCursor } } }';

/** The placing floor: request n reads cart n mod 250 and inserts an order, its lines and their reservation, in one transaction. */
function baselinePlace(): autocannon.Request {
  let next = 0;
  return {
    method: 'POST',
    path: PLACE_PATH,
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ cart: next++ % WRITE_ROWS }) }),
  };
}

// Orders a second the carts made for `placeOrders` allow for; a run that places faster runs out of
// carts, and its further checkouts fail (409 CHECKOUT_EXISTS), which the report shows.
const PLACING_CAPACITY = 500;
const PREPARE_CONCURRENCY = 16;

/**
 * Orders placed per second in one store by 50 shoppers at once: each iteration checks out a cart
 * made beforehand with two lines (`POST /checkout/checkouts`) and places its order with the
 * shipping step (`PUT /checkout/checkouts/:id/shipping` with a rate). Two HTTP requests per order.
 */
function placeOrders(store: SeededStore): Pick<Scenario, 'requests' | 'prepare'> {
  const carts: string[] = [];
  let next = 0;
  const headers = json(store);
  const prepare = async (baseUrl: string, load: LoadSettings) => {
    const wanted = Math.ceil((load.warmupSeconds + load.durationSeconds) * PLACING_CAPACITY);
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { data: { id: string } }).data;
    };
    let made = 0;
    const lane = async () => {
      while (made < wanted) {
        const n = made++;
        const cart = await post('/api/v1/checkout/carts', {});
        for (const k of [0, 1]) await post(`/api/v1/checkout/carts/${cart.id}/items`, { variant_id: store.variantIds[(2 * n + k) % store.variantIds.length], quantity: 1 });
        carts.push(cart.id);
      }
    };
    await Promise.all(Array.from({ length: PREPARE_CONCURRENCY }, lane));
  };
  const requests: autocannon.Request[] = [
    {
      method: 'POST',
      path: '/api/v1/checkout/checkouts',
      headers,
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ cart_id: carts[next++ % carts.length], email: 'bench@example.com' }) }),
      onResponse: (status, body, context) => {
        if (status === 201) context.checkoutId = JSON.parse(body).data.id;
      },
    },
    {
      method: 'PUT',
      headers,
      body: JSON.stringify(SHIPPING),
      setupRequest: (request, context) => ({ ...request, path: `/api/v1/checkout/checkouts/${context.checkoutId}/shipping` }),
    },
  ];
  return { requests, prepare };
}

const PLACE_BASELINE = 'baseline: fastify + pg, a cart read, an order with lines and reservation';
const PLACE_ORDERS = 'orders placed per second (checkout + shipping step)';
const WRITE_BASELINE = 'baseline: fastify + pg, 1 UPDATE + 1 INSERT';
const READ_BASELINE = 'baseline: fastify + pg, 1 query';
const CEILING_ONE = 'ceiling: fastify, the product JSON from memory';
const CEILING_LIST = 'ceiling: fastify, 25 products JSON from memory';
const STOREFRONT_ONE = 'GET /catalog/products/:id (storefront)';
const STOREFRONT_LIST = 'GET /catalog/products?limit=25 (storefront)';
const ADMIN_PRODUCTS = 'GET /catalog/products?limit=25 (admin)';
const ADMIN_ORDERS = 'GET /orders?limit=25 (admin)';

/** The storefront answers the ceiling serves, fetched from the app once the store is seeded. */
export function ceilingPaths(store: SeededStore): string[] {
  return [...store.productIds.map((id) => `/api/v1/catalog/products/${id}`), '/api/v1/catalog/products?limit=25'];
}

/** A ratio the platform holds itself to: `scenario`'s req/s over `against`'s, at least `min`. */
export interface Target {
  scenario: string;
  against: string;
  min: number;
}

export const TARGETS: Target[] = [
  { scenario: STOREFRONT_ONE, against: CEILING_ONE, min: 0.8 },
  { scenario: STOREFRONT_LIST, against: CEILING_LIST, min: 0.8 },
  { scenario: 'GraphQL product(id) (storefront)', against: STOREFRONT_ONE, min: 0.9 },
  { scenario: 'GraphQL products(limit: 25) (storefront)', against: READ_BASELINE, min: 0.5 },
  { scenario: ADMIN_PRODUCTS, against: READ_BASELINE, min: 0.3 },
  { scenario: ADMIN_ORDERS, against: READ_BASELINE, min: 0.3 },
  // Two HTTP requests an order against one transaction an order: 1.0× in requests is 0.5× in orders.
  { scenario: PLACE_ORDERS, against: PLACE_BASELINE, min: 1.0 },
];

/** Baseline first (the others are compared with it); writes last, so reads see the seeded catalog only. */
export function scenarios(store: SeededStore): Scenario[] {
  return [
    { name: READ_BASELINE, target: 'baseline', requests: [rotatingRead(store)] },
    { name: "reference: the app's product read, raw pg", target: 'baseline', requests: [rotatingRead(store, REFERENCE_PREFIX)] },
    { name: CEILING_ONE, target: 'baseline', requests: [rotatingRead(store, CEILING_PREFIX, store.storefrontToken)] },
    {
      name: CEILING_LIST,
      target: 'baseline',
      requests: [{ method: 'GET', path: `${CEILING_PREFIX}/api/v1/catalog/products?limit=25`, headers: tenantHeaders(store, store.storefrontToken) }],
    },
    { name: 'GET /catalog/products/:id (admin)', target: 'app', requests: [rotatingRead(store)] },
    { name: STOREFRONT_ONE, target: 'app', requests: [rotatingRead(store, '', store.storefrontToken)] },
    {
      name: ADMIN_PRODUCTS,
      target: 'app',
      requests: [{ method: 'GET', path: '/api/v1/catalog/products?limit=25', headers: tenantHeaders(store) }],
    },
    {
      name: STOREFRONT_LIST,
      target: 'app',
      requests: [{ method: 'GET', path: '/api/v1/catalog/products?limit=25', headers: tenantHeaders(store, store.storefrontToken) }],
    },
    { name: 'GraphQL product(id) (storefront)', target: 'app', requests: [rotatingGraphQLRead(store)] },
    {
      name: 'GraphQL products(limit: 25) (storefront)',
      target: 'app',
      requests: [{ method: 'POST', path: '/graphql', headers: json(store, store.storefrontToken), body: JSON.stringify({ query: GRAPHQL_LIST }) }],
    },
    { name: WRITE_BASELINE, target: 'baseline', requests: [baselineWrite()] },
    { name: 'POST /catalog/products', target: 'app', requests: [uniqueCreate(store)], compareWith: WRITE_BASELINE },
    { name: 'POST /checkout/carts/:id/items', target: 'app', requests: [addToCart(store)], compareWith: WRITE_BASELINE },
    { name: 'cart → checkout → order', target: 'app', requests: cartToOrder(store), flow: 'orders', compareWith: WRITE_BASELINE },
    { name: PLACE_BASELINE, target: 'baseline', requests: [baselinePlace()] },
    { name: PLACE_ORDERS, target: 'app', ...placeOrders(store), flow: 'orders', compareWith: PLACE_BASELINE },
    // Last: the orders the writes above placed (thousands) are the list's.
    { name: ADMIN_ORDERS, target: 'app', requests: [{ method: 'GET', path: '/api/v1/orders?limit=25', headers: tenantHeaders(store) }] },
  ];
}

/** Drives one scenario with autocannon: a warm-up, then the measured run. */
/** Runs `scenario` against `baseUrl`; `loading` is called once its preparation is done, as the load starts. */
export async function runScenario(baseUrl: string, scenario: Scenario, load: LoadSettings, loading?: () => Promise<void>): Promise<ScenarioResult> {
  const failureSamples: string[] = [];
  const sample = (line: string) => {
    if (failureSamples.length < MAX_FAILURE_SAMPLES) failureSamples.push(line);
  };
  const requests = scenario.requests.map((request) => ({
    ...request,
    onResponse: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, unknown>) => {
      if (status < 200 || status > 299) sample(`HTTP ${status}: ${body.slice(0, 300)}`);
      request.onResponse?.(status, body, context, headers);
    },
  }));

  await scenario.prepare?.(baseUrl, load);
  await loading?.();
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
    compareWith: scenario.compareWith,
    flow: scenario.flow ? { unit: scenario.flow, steps: scenario.requests.length } : undefined,
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
