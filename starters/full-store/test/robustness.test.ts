import { randomUUID } from 'node:crypto';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { createTestApp } from '@qhatu/core/testing';
import { caller, createOrder } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

/**
 * Bad input never yields a 500. Every operation of /openapi.json is sent, as the caller it needs
 * (a store's admin, else its storefront key, a customer or the platform), ids of nothing and of
 * something, malformed queries, and bodies built from its own schema with one field at a time
 * made wrong (types, sizes, NUL characters, numbers past any column), lists cursors made by hand
 * for each of their sorts (a value of another type, an id that is no UUID); each write is also sent
 * four times at once. Each answer must be a success or a 4xx with the contract's error body (a
 * 5xx only when a provider could not be reached: 502 with its code), and one that the
 * operation's OpenAPI entry lists.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
type Operation = { parameters?: Array<{ in: string; name: string; schema?: Schema }>; requestBody?: { content?: Record<string, { schema?: Schema }> } };

const GATEWAYS = ['stripe', 'culqi', 'mercadopago', 'niubiz', 'izipay', 'payme', 'paypal'];
/** A provider that cannot be reached answers at once: the port refuses connections. */
const UNREACHABLE = Object.fromEntries(GATEWAYS.map((id) => [`QHATU_GATEWAY_${id.toUpperCase()}_BASE_URL`, 'http://127.0.0.1:9']));
/** 5xx answers that are the contract's own: a provider or the mail server was not reached. */
const UPSTREAM_CODES = new Set(['GATEWAY_UNAVAILABLE', 'MAIL_DELIVERY_FAILED']);

const STRING_CANDIDATES = ['sample', 'sample-1', 'SAMPLE-1', 'PE', 'PEN', 'a', '123456', 'Sample title', '+51987654321', '#aabbcc'];
const WRONG_VALUES: unknown[] = [null, 'a\u0000b', 'x'.repeat(20_000), -1, 1.5, 2 ** 63, 1e300, true, {}, [], [null], '😀', '2026-13-45T99:99:99Z', '../../etc/passwd'];

let components: Record<string, Schema> = {};

function resolve(schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 20; i++) s = components[s.$ref.split('/').pop()!] ?? {};
  if (s.allOf) return s.allOf.map(resolve).reduce<Schema>((a, b) => ({ ...a, ...b, properties: { ...a.properties, ...b.properties }, required: [...(a.required ?? []), ...(b.required ?? [])] }), {});
  return s;
}

/** Ids of things in the store, for fields named after them. */
const seeded: Record<string, string> = {};

/** A string for a field by its name, where the name says what it holds. */
function byName(name: string): string | undefined {
  if (seeded[name]) return seeded[name];
  if (/email/.test(name)) return `fuzz-${randomUUID().slice(0, 8)}@example.com`;
  if (/phone/.test(name)) return '+51987654321';
  if (/password/.test(name)) return 'S3cure-password!';
  if (/url$/.test(name)) return 'https://example.com/fuzz';
  if (name === 'currency') return 'PEN';
  if (name === 'country_code') return 'PE';
  if (/_at$/.test(name)) return new Date(Date.now() + 86_400_000).toISOString();
  if (name === 'client_ip') return '190.2.3.4';
  if (name === 'content_type') return 'image/png';
  if (name === 'gateway') return 'stripe';
  return undefined;
}

/** A value the schema takes, where one can be guessed; objects get their required properties only. */
function sample(schema: Schema | undefined, name = '', depth = 0): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum.find((v) => v !== null) ?? null;
  const option = s.anyOf ?? s.oneOf;
  if (option) return sample(option.find((o) => resolve(o).type !== 'null') ?? option[0], name, depth);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string': {
      const named = byName(name);
      if (named) return named;
      if (s.format === 'uuid') return randomUUID();
      if (s.format === 'email') return `fuzz-${randomUUID().slice(0, 8)}@example.com`;
      if (s.format === 'uri' || s.format === 'url') return 'https://example.com/fuzz';
      if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      if (s.format === 'date') return '2026-12-01';
      const fits = (v: string) => (!s.pattern || new RegExp(s.pattern, 'u').test(v)) && v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Infinity);
      return STRING_CANDIDATES.find(fits) ?? 'sample'.padEnd(s.minLength ?? 0, 'x');
    }
    case 'integer':
    case 'number': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
      return Math.min(Math.max(min, 1), s.maximum ?? Infinity);
    }
    case 'boolean':
      return true;
    case 'array':
      if (name === 'events') return ['orders.order.created'];
      return depth > 4 ? [] : Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items, name, depth + 1));
    case 'object':
    default: {
      if (!s.properties || depth > 4) return {};
      const required = new Set(s.required ?? []);
      return Object.fromEntries(Object.entries(s.properties).filter(([k]) => required.has(k)).map(([k, v]) => [k, sample(v, k, depth + 1)]));
    }
  }
}

/** Paths of every property the schema names: top level, and inside the first item of arrays of objects. */
function fieldPaths(schema: Schema | undefined, prefix: Array<string | number> = [], depth = 0): Array<Array<string | number>> {
  const s = resolve(schema);
  if (depth > 2) return [];
  const option = s.anyOf ?? s.oneOf;
  if (option) return fieldPaths(option.find((o) => resolve(o).type !== 'null') ?? option[0], prefix, depth);
  if (s.type === 'array') return fieldPaths(s.items, [...prefix, 0], depth + 1);
  return Object.entries(s.properties ?? {}).flatMap(([k, v]) => [[...prefix, k], ...fieldPaths(v, [...prefix, k], depth + 1)]);
}

/** The body with the value at `path` set (containers made on the way). */
function withValue(body: unknown, path: Array<string | number>, value: unknown): unknown {
  if (!path.length) return value;
  if (typeof path[0] === 'number' && !Array.isArray(body)) body = [{}];
  if (typeof path[0] === 'string' && (body === null || typeof body !== 'object' || Array.isArray(body))) body = {};
  if (Array.isArray(body)) return body.map((item, i) => (i === path[0] ? withValue(item, path.slice(1), value) : item));
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  copy[path[0]] = withValue(copy[path[0]], path.slice(1), value);
  return copy;
}

/** Optional parts without which a body goes no further than a 422. */
const EXTRAS: Record<string, Record<string, unknown>> = {
  'POST /api/v1/payments': { payment_method_id: 'pm_card_visa' },
  'POST /api/v1/orders': { shipping_address: { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' } },
};

/** Answers any operation may give, documented once in the API's description: too large, wrong media type, too many requests. */
const ANY_OPERATION = new Set([413, 415, 429]);

const QUERIES = [
  'limit=0', 'limit=-1', 'limit=100000', 'limit=abc', 'limit=1&limit=2', 'cursor=abc', 'cursor=eyJpZCI6MSwidiI6W119', `cursor=${'A'.repeat(5000)}`,
  'sort=zzz', 'sort=-', 'sort=created_at,created_at', 'filter[status]=zzz', 'filter[created_at][gte]=nope', 'filter=1', 'filter[]=1',
  `q=${'x'.repeat(5000)}`, 'q=%25%5F%5C', 'expand=everything', 'fields=%00',
];

let t: TestApp;
let shop: TestTenant;
let failures: string[];
/** Operations that some request got through, so that bad input was also tried past validation. */
const succeeded = new Set<string>();
let customerToken: string;
let staffToken: string;
/** Who calls: an operation an admin key may not call is called with the key or token it needs. */
let authorization: Record<string, string> = {};

beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins, env: UNREACHABLE });
  shop = await t.createTenant({ currency: 'PEN' });
  components = (await t.request({ method: 'GET', url: '/openapi.json' })).json().components?.schemas ?? {};
  failures = [];
  // Something for ids to point at: a product, an order of it, a cart.
  const admin = caller(t, shop);
  const order = await createOrder(admin);
  const line = (await admin('GET', `/api/v1/orders/${order.id}`)).json().data.line_items[0];
  const cart = (await admin('POST', '/api/v1/checkout/carts', {})).json().data;
  Object.assign(seeded, { order_id: order.id, variant_id: line.variant_id, product_id: line.product_id, cart_id: cart.id });
  await admin('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: line.variant_id, quantity: 1 });
  const storefront = caller(t, shop, shop.storefrontToken);
  await admin('PUT', '/api/v1/customers/settings', { registration: 'instant' }); // a session at once, for the customer's operations
  const registered = await storefront('POST', '/api/v1/auth/customer/register', { email: 'fuzz@example.com', password: 'S3cure-password!', first_name: 'Fuzz', last_name: 'Test' });
  customerToken = registered.json().data.token;
  expect(typeof customerToken).toBe('string');
  // A staff member for the staff-only operations: the store's one owner, whom nothing may remove.
  const owner = (await admin('GET', '/api/v1/roles')).json().data.find((r: { name: string }) => r.name === 'owner').id;
  await admin('POST', '/api/v1/staff', { email: 'owner@example.com', first_name: 'Fuzz', last_name: 'Owner', role_id: owner, password: 'S3cure-password!' });
  staffToken = (await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email: 'owner@example.com', password: 'S3cure-password!' } })).json().data.token;
  expect(typeof staffToken).toBe('string');
  // The newest customer, whom the operations on /customers/{id} are sent (and may delete).
  await admin('POST', '/api/v1/customers', { email: 'target@example.com', first_name: 'Target', last_name: 'Test' });
}, 60_000);
afterAll(async () => t?.close());

/** The statuses each operation (`METHOD /path/{param}`) answered. */
const answered = new Map<string, Set<number>>();
let operationKey = '';

async function send(method: string, url: string, payload?: unknown, raw?: string): Promise<void> {
  const res = await t.request({
    method: method as never,
    url,
    headers: { ...shop.headers(), ...authorization, ...(raw !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(raw !== undefined ? { payload: raw } : payload !== undefined ? { payload: payload as never } : {}),
  });
  const what = `${method} ${url.slice(0, 160)}${raw !== undefined ? ` ${raw.slice(0, 60)}` : payload !== undefined ? ` ${JSON.stringify(payload).slice(0, 160)}` : ''}`;
  let body: { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined;
  try {
    body = res.body ? res.json() : undefined;
  } catch {
    body = undefined;
  }
  if (res.statusCode < 300) succeeded.add(`${method} ${url.split('?')[0]}`);
  if (!answered.has(operationKey)) answered.set(operationKey, new Set());
  answered.get(operationKey)!.add(res.statusCode);
  if (res.statusCode >= 500) {
    if (!(res.statusCode === 502 && UPSTREAM_CODES.has(String(body?.error?.code)))) failures.push(`${res.statusCode} ← ${what.slice(0, 200)}: ${res.body.slice(0, 200)}`);
  } else if (res.statusCode >= 400 && url !== '/graphql') {
    const e = body?.error;
    if (typeof e?.code !== 'string' || typeof e.message !== 'string' || !Array.isArray(e.details)) failures.push(`${res.statusCode} without the error body ← ${what.slice(0, 200)}: ${res.body.slice(0, 200)}`);
  }
}

/** The id of the first item that the list at `path` shows, if there is one. */
async function someId(path: string): Promise<string | null> {
  const res = await t.request({ method: 'GET', url: path, headers: shop.headers() });
  if (res.statusCode !== 200) return null;
  const data = res.json().data;
  const first = Array.isArray(data) ? data[0] : null;
  return typeof first?.id === 'string' ? first.id : null;
}

describe('bad input, on every operation of the OpenAPI document', () => {
  it('is a 4xx with the error body, never a 500', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const operations = Object.entries<Record<string, Operation>>(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(operations.length).toBeGreaterThan(100);
    // Signing out ends the token the other operations use: last, the staff member's after the customer's.
    const lateness = (path: string) => (path.endsWith('/staff/logout') ? 2 : path.endsWith('/logout') ? 1 : 0);
    operations.sort((a, b) => lateness(a.path) - lateness(b.path));
    let sent = 0;
    for (const { path, method, op } of operations) {
      if (path === '/graphql') continue;
      operationKey = `${method} ${path}`;
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const first = path.split('/{')[0];
      const known = params.length ? await someId(first) : null;
      const fill = (values: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? randomUUID()));
      const urls = params.length
        ? [
            fill(Object.fromEntries(params.map((p, i) => [p, i === 0 && known ? known : randomUUID()]))),
            ...['not-an-id', 'x'.repeat(600), ' ', '\u0000', '00000000-0000-0000-0000-000000000000', shop.id].map((v) => fill(Object.fromEntries(params.map((p) => [p, v])))),
          ]
        : [path];
      const target = urls[0];
      authorization = {};
      for (const token of [shop.storefrontToken, staffToken, customerToken, t.platformToken]) {
        const probe = await t.request({ method: method as never, url: target, headers: { ...shop.headers(), ...authorization }, ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }) });
        if (probe.statusCode !== 403) break;
        authorization = { authorization: `Bearer ${token}` };
      }
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const body = schema ? { ...(sample(schema) as object), ...EXTRAS[`${method} ${path}`] } : method === 'DELETE' ? undefined : {};
      if (method !== 'GET') {
        // The same request four times at once: one may win, the others get a 4xx, none a 5xx.
        await Promise.all(Array.from({ length: 4 }, () => send(method, target, body)));
        sent += 4;
      }
      for (const url of urls) {
        await send(method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
        sent++;
      }
      if (method === 'GET') {
        const declared = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        const queries = [...QUERIES, ...declared.flatMap((name) => ['-1', 'zzz', '%00', '1e999', `${'9'.repeat(40)}`, '[]'].map((v) => `${encodeURIComponent(name)}=${v}`))];
        for (const q of queries) {
          await send('GET', `${target}?${q}`);
          sent++;
        }
        // Cursors made by hand for each sort the list offers: a value of another type, no date, an object, an id that is no UUID.
        if (declared.includes('cursor')) {
          const sorts = (resolve(op.parameters!.find((p) => p.in === 'query' && p.name === 'sort')?.schema).enum ?? [undefined]) as Array<string | undefined>;
          for (const sort of sorts) {
            for (const [v, i] of [[7, randomUUID()], [true, randomUUID()], ['soon', randomUUID()], ['2030-02-31T00:00:00Z', randomUUID()], [{ a: 1 }, randomUUID()], ['sample', 'x']]) {
              const cursor = Buffer.from(JSON.stringify({ s: sort ?? '-created_at', v, i })).toString('base64url');
              await send('GET', `${target}?${sort ? `sort=${encodeURIComponent(sort)}&` : ''}cursor=${cursor}`);
              sent++;
            }
          }
        }
        continue;
      }
      for (const raw of ['{not json', '[]', 'null', '"text"', '123', '{"a":', '{}']) {
        await send(method, target, undefined, raw);
        sent++;
      }
      if (!schema) continue;
      await send(method, target, body);
      sent++;
      for (const field of fieldPaths(schema)) {
        for (const wrong of WRONG_VALUES) {
          await send(method, target, withValue(body, field, wrong));
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThan(5000);
    for (const reached of ['POST /api/v1/catalog/products', 'POST /api/v1/customers', 'POST /api/v1/orders', 'POST /api/v1/inventory/warehouses', 'POST /api/v1/discounts/coupons', 'POST /api/v1/webhooks']) {
      expect(succeeded, reached).toContain(reached);
    }
    expect(failures).toEqual([]);
    const undeclared: string[] = [];
    for (const { path, method, op } of operations) {
      const declared = new Set(Object.keys((op as { responses?: object }).responses ?? {}).map(Number));
      const extra = [...(answered.get(`${method} ${path}`) ?? [])].filter((status) => !declared.has(status) && !ANY_OPERATION.has(status));
      if (extra.length) undeclared.push(`${method} ${path}: ${extra.join(', ')}`);
    }
    // Every answer an operation gave is one its OpenAPI entry lists.
    expect(undeclared).toEqual([]);
    expect(doc.info.description).toContain('any may answer 413 (body too large), 415 (body not JSON) or 429 (too many requests)');
  }, 600_000);
});

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
type InputType = { name: string; kind: string; inputFields: Array<{ name: string; type: TypeRef }> | null; enumValues: Array<{ name: string }> | null };

// Input fields nest one level deeper (`[LineInput!]!` inside an input) than root arguments need;
// each fragment stays within the server's query depth.
const INTROSPECTION = `{ __schema {
  queryType { fields { name args { name type { ...T } } type { ...T } } }
  mutationType { fields { name args { name type { ...T } } type { ...T } } }
  types { name kind inputFields { name type { ...U } } enumValues { name } }
} }
fragment T on __Type { kind name ofType { kind name ofType { kind name } } }
fragment U on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`;

/** The GraphQL spelling of a type reference (`[ID!]!`). */
function spell(type: TypeRef): string {
  if ((type.kind === 'NON_NULL' || type.kind === 'LIST') && !type.ofType) throw new Error('a type nested deeper than the introspection query reads: add a level');
  if (type.kind === 'NON_NULL') return `${spell(type.ofType!)}!`;
  if (type.kind === 'LIST') return `[${spell(type.ofType!)}]`;
  return type.name!;
}

describe('bad input, on every GraphQL query and mutation', () => {
  it('is an error with a precise code, never INTERNAL_ERROR', async () => {
    const gql = (query: string, variables: Record<string, unknown> = {}) =>
      t.request({ method: 'POST', url: '/graphql', headers: shop.headers(), payload: { query, variables } });
    const schema = (await gql(INTROSPECTION)).json().data.__schema;
    const types = new Map<string, InputType>(schema.types.map((type: InputType) => [type.name, type]));
    // Ids of things that exist take a call past its id checks to what it does with the rest.
    const BAD_TEXT = ['not-an-id', 'a\u0000b', 'x'.repeat(5000), randomUUID(), '', ...Object.values(seeded)];
    /** A value of the type, with `bad` for every ID and String in it. */
    const value = (type: TypeRef, bad: string | number, depth = 0): unknown => {
      if (type.kind === 'NON_NULL') return value(type.ofType!, bad, depth);
      if (type.kind === 'LIST') return [value(type.ofType!, bad, depth)];
      const named = types.get(type.name!)!;
      if (named.kind === 'ENUM') return named.enumValues![0].name;
      if (named.kind === 'INPUT_OBJECT') return depth > 3 ? {} : Object.fromEntries(named.inputFields!.map((f) => [f.name, value(f.type, bad, depth + 1)]));
      if (type.name === 'Int') return typeof bad === 'number' ? bad : 1;
      if (type.name === 'Float') return typeof bad === 'number' ? bad : 1.5;
      if (type.name === 'Boolean') return true;
      return typeof bad === 'string' ? bad : 'sample';
    };
    const failures: string[] = [];
    let sent = 0;
    for (const [operation, fields] of [['query', schema.queryType.fields], ['mutation', schema.mutationType?.fields ?? []]] as const) {
      for (const field of fields as Array<{ name: string; args: Array<{ name: string; type: TypeRef }>; type: TypeRef }>) {
        if (field.name.startsWith('__') || !field.args.length) continue;
        let inner = field.type;
        while (inner.ofType) inner = inner.ofType;
        const selection = types.get(inner.name!)?.kind === 'OBJECT' ? ' { __typename }' : '';
        const declared = field.args.map((a) => `$${a.name}: ${spell(a.type)}`).join(', ');
        const query = `${operation}(${declared}) { ${field.name}(${field.args.map((a) => `${a.name}: $${a.name}`).join(', ')})${selection} }`;
        for (const bad of [...BAD_TEXT, -1, 2_147_483_647, 0]) {
          const res = await gql(query, Object.fromEntries(field.args.map((a) => [a.name, value(a.type, bad)])));
          sent++;
          const errors: Array<{ message: string; extensions?: { code?: string } }> = res.json().errors ?? [];
          if (res.statusCode >= 500 || errors.some((e) => !e.extensions?.code || e.extensions.code === 'INTERNAL_ERROR')) {
            failures.push(`${res.statusCode} ← ${field.name} ${JSON.stringify(bad).slice(0, 40)}: ${res.body.slice(0, 200)}`);
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(50);
    expect(failures).toEqual([]);
  }, 120_000);
});
