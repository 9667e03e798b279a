import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthRule } from './route-config.js';

/**
 * The OpenAPI document of the REST API (decision 0062): components named after the schemas' own
 * ids, security declared per operation from each route's auth rule, and an `operationId` on every
 * operation, so that API tools and client generators take the document as it is.
 */

type JsonObject = Record<string, unknown>;
type Io = 'input' | 'output';

const SCHEMAS = '#/components/schemas/';
/**
 * Marks every id handed to the zod provider, which names a schema's request side `<id>Input`: with
 * the mark, `Item`'s request side (`Item␟Input`) can never be another schema's `ItemInput` (`ItemInput␟`).
 * The marks are gone from the document once components are named.
 */
const MARK = '\u001f';
const INPUT_MARK = `${MARK}Input`;

/** A copy of `base` in which each id carries the mark; other schemas' metadata is read from `base`. */
function markedRegistry(base = z.globalRegistry) {
  const marked = z.registry<{ id?: string }>();
  let synced = -1;
  return {
    registry: marked,
    /** Takes in the schemas registered since the last call (plugins register theirs as they load). */
    sync() {
      if (synced === base._idmap.size) return;
      marked._map = new FallbackWeakMap(base._map);
      marked._idmap = new Map();
      for (const [id, schema] of base._idmap) marked.add(schema, { ...base._map.get(schema), id: id + MARK });
      synced = base._idmap.size;
    },
  };
}

class FallbackWeakMap<K extends WeakKey, V> extends WeakMap<K, V> {
  constructor(private readonly fallback: WeakMap<K, V>) {
    super();
  }
  override get(key: K): V | undefined {
    return super.get(key) ?? this.fallback.get(key);
  }
  override has(key: K): boolean {
    return super.has(key) || this.fallback.has(key);
  }
}

/** The id and side a marked component name stands for, or undefined for any other name. */
function unmark(name: string): { id: string; io: Io } | undefined {
  if (name.endsWith(INPUT_MARK)) return { id: name.slice(0, -INPUT_MARK.length), io: 'input' };
  if (name.endsWith(MARK)) return { id: name.slice(0, -MARK.length), io: 'output' };
  return undefined;
}

/** A copy of `node` with each `$ref` to a component replaced by `rename(name)` (when it gives one). */
function mapRefs(node: unknown, rename: (name: string) => string | undefined): unknown {
  if (Array.isArray(node)) return node.map((item) => mapRefs(item, rename));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMAS)) {
      const name = rename(value.slice(SCHEMAS.length));
      out[key] = name === undefined ? value : SCHEMAS + name;
    } else out[key] = mapRefs(value, rename);
  }
  return out;
}

function refsOf(node: unknown, found: (name: string) => void): void {
  mapRefs(node, (name) => (found(name), undefined));
}

/** JSON with sorted keys: two schemas are the same when their texts are. */
function canonical(node: unknown): string {
  if (Array.isArray(node)) return `[${node.map(canonical).join(',')}]`;
  if (node === null || typeof node !== 'object') return JSON.stringify(node);
  return `{${Object.keys(node).sort().map((k) => `${JSON.stringify(k)}:${canonical((node as JsonObject)[k])}`).join(',')}}`;
}

/**
 * Names the components of a document whose names carry the mark, keeping only those an operation
 * uses (directly or through another component):
 * - a schema used on one side only (request or answer) is named by its id;
 * - one used on both sides whose two JSON Schemas are the same is one component, named by its id;
 * - one whose sides differ (a field with a default is optional in a request but always in the answer)
 *   keeps its id for the answer, and its request side is `<id>Input`, or `<id>Input2`, `<id>Input3`…
 *   when that name is another component's: names never clash.
 */
export function nameComponents(doc: JsonObject): JsonObject {
  const components = (doc.components ?? {}) as JsonObject;
  const schemas = (components.schemas ?? {}) as Record<string, unknown>;
  const used = new Set<string>();
  const use = (name: string) => {
    if (used.has(name) || !(name in schemas)) return;
    used.add(name);
    refsOf(schemas[name], use);
  };
  const { components: _, ...rest } = doc;
  refsOf(rest, use);

  // Schemas used on both sides are one component while their two sides read the same, with the
  // schemas they refer to taken as one where those are (the largest set for which this holds).
  const both = new Set([...used].map(unmark).filter((m) => m?.io === 'output' && used.has(m.id + INPUT_MARK)).map((m) => m!.id));
  const merged = new Set(both);
  const sameSides = (id: string) => {
    const collapse = (name: string) => {
      const m = unmark(name);
      return m && merged.has(m.id) ? m.id : undefined;
    };
    return canonical(mapRefs(schemas[id + MARK], collapse)) === canonical(mapRefs(schemas[id + INPUT_MARK], collapse));
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const id of merged) {
      if (sameSides(id)) continue;
      merged.delete(id);
      changed = true;
    }
  }

  // Components of other origins keep their names.
  const names = new Map([...used].filter((name) => !unmark(name)).map((name) => [name, name]));
  const ids = [...new Set([...used].map((name) => unmark(name)?.id ?? name))].sort();
  const taken = new Set(ids);
  for (const id of ids) {
    if (used.has(id + MARK)) names.set(id + MARK, id);
    if (!used.has(id + INPUT_MARK)) continue;
    if (!both.has(id) || merged.has(id)) {
      names.set(id + INPUT_MARK, id);
      continue;
    }
    let name = `${id}Input`;
    for (let n = 2; taken.has(name); n++) name = `${id}Input${n}`;
    taken.add(name);
    names.set(id + INPUT_MARK, name);
  }

  const rename = (name: string) => names.get(name);
  const named: Record<string, unknown> = {};
  for (const [from, to] of [...names].sort((a, b) => a[1].localeCompare(b[1]))) {
    if (!(to in named)) named[to] = mapRefs(schemas[from], rename);
  }
  return { ...(mapRefs(rest, rename) as JsonObject), components: { ...components, schemas: named } };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The prefix every REST path of the API shares, left out of operation ids. */
const API_PREFIX = '/api/v1/';
/** What a fastify wildcard (`/files/*`) is called in the document. */
export const WILDCARD_PARAM = 'path';

const words = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean);
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A route's URL as the document writes it: `/orders/:id` → `/orders/{id}`, `/files/*` → `/files/{path}`. */
export function openApiPath(url: string): string {
  return url.replace(/:(\w+)(\([^)]*\))?/g, '{$1}').replace(/\*$/, `{${WILDCARD_PARAM}}`);
}

/**
 * The operation id of a method and path: the method, then each segment of the path after `/api/v1`
 * in PascalCase, a parameter read as `By<Name>`: `GET /api/v1/catalog/products/{id}` →
 * `getCatalogProductsById`, `POST /webhooks/{gateway}/{tenant_id}` → `postWebhooksByGatewayByTenantId`.
 */
export function operationIdOf(method: string, url: string): string {
  const path = openApiPath(url);
  const rest = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path;
  const parts = rest.split('/').flatMap((segment) =>
    segment.split(/(\{[^}]+\})/).filter(Boolean).map((piece) => {
      const param = /^\{(.+)\}$/.exec(piece);
      return param ? `By${words(param[1]).map(capital).join('')}` : words(piece).map(capital).join('');
    }),
  );
  return method.toLowerCase() + parts.join('');
}

/**
 * The operation ids of an app's routes, claimed as routes are added: two operations with one id
 * stop the start, naming both routes and the way out, so that the document never breaks later.
 */
export class OperationIds {
  private readonly owners = new Map<string, string>();

  claim(method: string, url: string, plugin: string, explicit?: unknown): void {
    const id = typeof explicit === 'string' ? explicit : operationIdOf(method, url);
    const route = `${method} ${url} (plugin ${plugin})`;
    const owner = this.owners.get(id);
    if (owner) {
      throw new Error(
        `The routes ${owner} and ${route} both have the OpenAPI operationId "${id}": give one of them its own with \`schema: { operationId: '...' }\``,
      );
    }
    this.owners.set(id, route);
  }
}

/** Operations with no operationId get the one of their method and path; an operation shared by several methods is copied first. */
function addOperationIds(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(paths)) {
    out[path] = { ...item };
    for (const method of METHODS) {
      const op = item[method] as JsonObject | undefined;
      if (op) out[path][method] = { ...op, operationId: op.operationId ?? operationIdOf(method, path) };
    }
  }
  return out;
}

/** The security schemes of the document, as ARCHITECTURE's auth contract has them. */
export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An opaque token: the platform credential (`/api/v1/tenants`), an admin or storefront API key, or a customer, staff or vendor session token.',
  },
  tenant: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Tenant-ID',
    description: "The store's id (a UUID); with a token it must be the token's store.",
  },
} as const;

/** The `security` of an operation under an auth rule: `[]` for public routes, the tenant header alone for sign-in and the like. */
export function securityOf(auth: AuthRule | undefined): Security {
  if (auth === 'public' || auth === undefined) return [];
  if (auth === 'platform') return [{ bearer: [] }];
  if (auth === 'tenant') return [{ tenant: [] }];
  return [{ bearer: [], tenant: [] }];
}

/** A wildcard's parameter (`*`) under the name the path gives it. */
function renameWildcard(params: unknown): unknown {
  const schema = params as { properties?: JsonObject; required?: string[] } | undefined;
  if (!schema?.properties || !('*' in schema.properties)) return params;
  const { '*': wildcard, ...properties } = schema.properties;
  return {
    ...schema,
    properties: { ...properties, [WILDCARD_PARAM]: wildcard },
    ...(schema.required ? { required: schema.required.map((name) => (name === '*' ? WILDCARD_PARAM : name)) } : {}),
  };
}

const GRAPHQL_RESULT = {
  type: 'object',
  properties: {
    data: { type: ['object', 'null'], description: 'What the query selected' },
    errors: {
      type: 'array',
      description: 'One entry per failure: `message`, and `extensions.code` (e.g. `UNAUTHENTICATED`, `FORBIDDEN`, `VALIDATION_ERROR`)',
      items: { type: 'object', properties: { message: { type: 'string' }, path: { type: 'array', items: {} }, extensions: { type: 'object' } }, required: ['message'] },
    },
  },
};
const GRAPHQL_ERRORS = { description: 'A query that cannot run (it does not parse or validate): `errors` says why', content: { 'application/json': { schema: GRAPHQL_RESULT } } };

type Security = Array<Record<string, string[]>>;

/** mercurius's routes carry no zod schemas: their OpenAPI entries are written here. */
function graphqlOpenApi(method: string | string[]) {
  const tags = ['GraphQL'];
  if (String(method).includes('GET')) {
    return {
      tags,
      summary: 'The GraphQL playground (without `query`), or a query in the query string',
      querystring: { type: 'object', properties: { query: { type: 'string' }, variables: { type: 'string' }, operationName: { type: 'string' } } },
      // The playground is open; a query takes a token and the store as POST does.
      security: [{}, { bearer: [], tenant: [] }] as Security,
      response: {
        200: { description: 'The playground (HTML), or the result of the query', content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: GRAPHQL_RESULT } } },
        400: GRAPHQL_ERRORS,
      },
    };
  }
  return {
    tags,
    summary: 'Run GraphQL queries and mutations (Bearer token and X-Tenant-ID required)',
    body: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } },
    },
    security: [{ bearer: [], tenant: [] }] as Security,
    response: { 200: { description: 'The result: `data`, and `errors` for what failed', content: { 'application/json': { schema: GRAPHQL_RESULT } } }, 400: GRAPHQL_ERRORS },
  };
}

/** @fastify/swagger's options for the app's document. */
export function openApiOptions(publicUrl: string): FastifyDynamicSwaggerOptions {
  const { registry, sync } = markedRegistry();
  const zodTransform = createJsonSchemaTransform({ schemaRegistry: registry });
  const zodTransformObject = createJsonSchemaTransformObject({ schemaRegistry: registry });
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Qhatu commerce API',
        version: '1.0.0',
        description:
          'Multi-tenant headless commerce. Tenant routes take `Authorization: Bearer <token>` and `X-Tenant-ID`; each operation names ' +
          'its own in `security` (none for public routes, the tenant header alone for sign-in). ' +
          'Every error has the body `{"error": {"code", "message", "details"}}`; besides the answers each operation lists, ' +
          'any may answer 413 (body too large), 415 (body not JSON) or 429 (too many requests).',
      },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: (doc) => {
      if (doc.url === '/graphql') return { schema: graphqlOpenApi(doc.route.method), url: doc.url };
      if (/^\/(docs|openapi\.json)/.test(doc.url)) return { schema: { ...doc.schema, hide: true }, url: doc.url };
      sync();
      const out = zodTransform(doc);
      const schema = { ...(out.schema ?? {}) } as JsonObject;
      if (schema.hide) return out;
      schema.security = securityOf(doc.route.config?.auth);
      if (schema.params) schema.params = renameWildcard(schema.params);
      // Each admin operation documents the permission it needs, in words and as `x-permission`.
      const permission = doc.route.config?.permission;
      if (permission) {
        const note = `Needs the permission \`${permission}\` (staff members by their role; admin API keys hold every permission unless given a role).`;
        schema['x-permission'] = permission;
        schema.description = [schema.description, note].filter(Boolean).join('\n\n');
      }
      return { schema, url: doc.url.endsWith('*') ? `${doc.url.slice(0, -1)}:${WILDCARD_PARAM}` : doc.url };
    },
    transformObject: (documentObject) => {
      sync();
      const doc = nameComponents(zodTransformObject(documentObject) as unknown as JsonObject);
      return { ...doc, paths: addOperationIds((doc.paths ?? {}) as Record<string, JsonObject>) } as never;
    },
  };
}
