import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { DependencyContainer } from 'tsyringe';
import type { AccessTokens } from '../auth/tokens.js';
import { hasPermission } from '../auth/permissions.js';
import { ReadCache, type CacheSlot } from '../cache/read-cache.js';
import type { Principal } from '../context.js';
import { authorize } from '../http/auth.js';
import { chooseLocale, localeKey } from '../translations/locales.js';
import { headerMarket, MARKET_HEADER } from '../markets/market.js';
import type { GraphQLFieldInfo } from './types.js';

/** Every caller kind GraphQL serves; each field's own access is checked by its resolver. */
export const GRAPHQL_CALLERS = ['admin', 'staff', 'storefront', 'customer', 'vendor'] as const;

/** What a query text asks for, worked out once per text: the cache topic its answer belongs to, if any. */
interface Plan {
  topic: string;
  /** Callers holding any of these permissions get an answer of their own (admins see drafts). */
  unless: string[];
}

const PLANS = 2_000;
const NOT_CACHEABLE = null;
// lru-cache keeps no null: a query that is not cached is remembered as `false`.
type Known = Plan | false;

interface GraphQLBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/**
 * Whole storefront responses kept in the read cache. An operation is kept when every root field it
 * selects declares `access.cache` with one and the same topic: its answer then depends only on the
 * store, the query, its variables and that topic's data, for every caller that holds none of the
 * fields' `unless` permissions. A hit is sent as it was serialized, without parsing, validating or
 * running the query; a change of the topic drops the store's entries as it drops REST answers.
 *
 * The caller is authenticated here, once; GraphQL's context takes the principal from
 * `principalOf(request)` instead of authenticating again.
 */
export function cacheResponses(app: FastifyInstance, container: DependencyContainer, tokens: AccessTokens, fields: readonly GraphQLFieldInfo[]): void {
  const byField = new Map(fields.filter((f) => f.type === 'Query').map((f) => [f.field, f]));
  const plans = new LRUCache<string, Known>({ max: PLANS });
  const cache = container.resolve(ReadCache);
  if (![...byField.values()].some((f) => f.cache)) return;

  const planOf = (query: string, operationName: string | undefined): Plan | null => {
    const key = `${operationName ?? ''}\u0000${query}`;
    const known = plans.get(key);
    if (known !== undefined) return known || null;
    const plan = planQuery(query, operationName, byField);
    plans.set(key, plan ?? false);
    return plan;
  };

  app.addHook('preHandler', async (request, reply) => {
    if (!cache.serving || request.routeOptions.url !== '/graphql') return;
    const body = (request.method === 'GET' ? request.query : request.body) as GraphQLBody | undefined;
    if (!body || typeof body.query !== 'string') return;
    const operationName = typeof body.operationName === 'string' && body.operationName !== '' ? body.operationName : undefined;
    const plan = planOf(body.query, operationName);
    if (!plan) return;
    let principal: Principal;
    try {
      principal = (await authorize(request, [...GRAPHQL_CALLERS], tokens))!;
    } catch {
      return; // GraphQL's context authenticates again and answers with the error.
    }
    principals.set(request, principal);
    if (plan.unless.some((permission) => hasPermission(principal, permission))) return;
    const variables = typeof body.variables === 'string' ? body.variables : JSON.stringify(body.variables ?? null);
    // The locale Accept-Language picks among the store's (none for a single-language store); an argument is in the query or variables.
    const market = request.headers[MARKET_HEADER];
    let marketLocale: string | undefined;
    try {
      marketLocale = headerMarket(principal, request)?.defaultLocale;
    } catch {
      return; // An unknown market: the resolvers answer the error.
    }
    const language = localeKey(chooseLocale(principal.locales, { acceptLanguage: request.headers['accept-language'], marketLocale }));
    // The query's text and variables by their digest: a short key is cheaper to look up at every read (the door's too) and to keep.
    const asked = createHash('sha256').update(`${operationName ?? ''}\u0000${variables}\u0000${body.query}`).digest('base64url');
    const key = `${language}${market ? `${market}\u0001` : ''}graphql\u0000${asked}`;
    const slot = cache.slot(principal.tenantId!, plan.topic, key);
    if (slot.hit) {
      reply.type('application/json; charset=utf-8');
      app.frontDoor.remember(request, reply, principal, plan.topic, key);
      return reply.send(slot.hit.body);
    }
    slots.set(request, { slot, principal, topic: plan.topic, key });
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const taken = slots.get(request);
    if (!taken) return payload;
    slots.delete(request);
    // Only a whole answer without errors is kept (an error may be the database's, for a moment).
    if (reply.statusCode === 200 && typeof payload === 'string' && payload.startsWith('{"data":') && !payload.includes('"errors":')) {
      taken.slot.fill(payload);
      app.frontDoor.remember(request, reply, taken.principal, taken.topic, taken.key);
    }
    return payload;
  });
}

const principals = new WeakMap<FastifyRequest, Principal>();
const slots = new WeakMap<FastifyRequest, { slot: CacheSlot; principal: Principal; topic: string; key: string }>();

/** The caller `cacheResponses` authenticated for this request, if it did. */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/** The topic and the exempt permissions of a query whose root fields all declare the same cache topic; else null. */
export function planQuery(query: string, operationName: string | undefined, byField: ReadonlyMap<string, GraphQLFieldInfo>): Plan | null {
  let document;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    return NOT_CACHEABLE;
  }
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName);
  if (!operation || operation.operation !== 'query') return NOT_CACHEABLE;
  let topic: string | undefined;
  const unless = new Set<string>();
  for (const selection of operation.selectionSet.selections) {
    // Fragments and directives at the root (@include, @skip) are answered by GraphQL itself.
    if (selection.kind !== Kind.FIELD || (selection.directives?.length ?? 0) > 0) return NOT_CACHEABLE;
    const name = selection.name.value;
    if (name === '__typename' || name === 'apiVersion') continue;
    const cache = byField.get(name)?.cache;
    if (!cache || (topic !== undefined && cache.topic !== topic)) return NOT_CACHEABLE;
    topic = cache.topic;
    unless.add(cache.unless);
  }
  return topic === undefined ? NOT_CACHEABLE : { topic, unless: [...unless] };
}
