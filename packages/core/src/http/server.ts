import { createServer, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { Secrets } from '../auth/secrets.js';
import { assertPermission, PermissionRegistry } from '../auth/permissions.js';
import { AccessTokens } from '../auth/tokens.js';
import type { QhatuConfig } from '../config.js';
import { TenantContext } from '../context.js';
import { Database } from '../db/database.js';
import { hostGraphQL } from '../graphql/hosting.js';
import { Jobs } from '../jobs/jobs.js';
import type { QhatuPlugin } from '../plugin.js';
import { staffRoutes } from '../staff/routes.js';
import { tenantRoutes } from '../tenancy/routes.js';
import { storeRoutes } from '../tenancy/store-routes.js';
import { localeRoutes } from '../translations/routes.js';
import { marketRoutes } from '../markets/routes.js';
import { mailTextRoutes } from '../mail/text-routes.js';
import { Tenants } from '../tenancy/tenants.js';
import { authorize } from './auth.js';
import { healthRoutes } from './health.js';
import { AppError } from '../errors.js';
import { installErrorHandling, sendError } from './errors.js';
import { installIdempotency } from './idempotency.js';
import { FrontDoor, requestIdOf } from './front-door.js';
import { openApiOptions, OperationIds } from './openapi.js';
import { installRateLimits } from './rate-limits.js';
import { Metrics } from '../observability/metrics.js';
import { installRequestMetrics, metricsRoute } from '../observability/metrics-http.js';
import { readObservability } from '../observability/settings.js';
import { logRoutePatterns, logTenant } from '../observability/request-logs.js';
import { traceServer, tracing } from '../observability/tracing.js';
import { ReadCache } from '../cache/read-cache.js';
import { refuseNulCharacters } from './text.js';
import type { AuthRule } from './route-config.js';
import './route-config.js';
import './zod-messages.js';

/**
 * A request Node's parser refuses (431 for a request line and headers over its limit, 400 for
 * the rest) gets the contract's error body, and the connection is closed once it is written.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    error: tooLarge
      ? { code: 'REQUEST_HEADERS_TOO_LARGE', message: 'The URL and headers together exceed 16 KB', details: [] }
      : { code: 'BAD_REQUEST', message: 'The request could not be read as HTTP', details: [] },
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * `content-type: application/json` with an empty body (what `curl -H 'content-type: …'` sends on a
 * bodiless POST) is no body: routes that take none answer as usual, routes that need one say so.
 */
function acceptEmptyJsonBodies(http: FastifyInstance): void {
  const parse = http.getDefaultJsonParser('error', 'error');
  http.removeContentTypeParser('application/json');
  http.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (/^\s*$/.test(body as string)) return done(null, undefined);
    if (nestingDepth(body as string) > MAX_JSON_DEPTH) {
      return done(new AppError(400, 'VALIDATION_ERROR', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, [{ path: 'body', message: 'is nested too deeply' }]), undefined);
    }
    parse(request, body as string, done);
  });
}

/** Deeper JSON than any request of the API needs; PostgreSQL and recursive checks stop far below what a 1 MB body can nest. */
const MAX_JSON_DEPTH = 64;

/** How deep arrays and objects nest in a JSON text, read without parsing it (strings skipped). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Trusts the nearest `count` hops before the socket, as fastify's numeric `trustProxy` does. */
const hops = (count: number) => (_address: string, hop: number) => hop < count;

/** A REST route of the app, as its plugin declared it. */
export interface RouteInfo {
  plugin: string;
  method: string;
  url: string;
  auth: AuthRule;
  permission?: string;
}

/** The HTTP side of an app: REST with OpenAPI, health, GraphQL, and the hooks every request passes. */
export async function buildHttp(
  config: QhatuConfig,
  logger: Logger,
  plugins: QhatuPlugin[],
  container: DependencyContainer,
  routes: RouteInfo[] = [],
): Promise<FastifyInstance> {
  // Storefront reads the framework answered from memory are answered again before it (decision 0094).
  const readCache = container.resolve(ReadCache);
  const door = new FrontDoor(readCache, container.resolve(AccessTokens), container.resolve(Metrics), logger, config, readCache.settings.enabled && !tracing());
  container.register(FrontDoor, { useValue: door });
  const http: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Fastify's own server, with the door in front of its handler.
    serverFactory: (handler, options) => {
      const server = createServer((req, res) => door.serve(req, res, handler));
      // As fastify sets its own server (the options come with fastify's defaults filled in).
      server.keepAliveTimeout = Number(options.keepAliveTimeout);
      server.requestTimeout = Number(options.requestTimeout);
      server.setTimeout(Number(options.connectionTimeout));
      return server;
    },
    genReqId: requestIdOf,
    bodyLimit: 1024 * 1024,
    // X-Forwarded-For is believed only from the proxies the operator names (QHATU_TRUST_PROXY).
    trustProxy: typeof config.trustProxy === 'number' ? hops(config.trustProxy) : config.trustProxy,
    // What Node's HTTP parser refuses before fastify sees it (a 20 KB URL, too many headers).
    clientErrorHandler: answerClientError,
    // A URL the router cannot read answers the contract's error body too.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return sendError(reply, AppError.validation(tooLong ? 'A path parameter is longer than 100 characters' : 'The URL is not valid', [{ path: 'params', message: tooLong ? 'too long' : 'cannot be decoded' }]));
    },
  });
  http.decorate('frontDoor', door);
  // A body the door read (a GraphQL query it did not answer) is parsed from what it read.
  http.addHook('preParsing', (request, _reply, payload, done) => done(null, door.bodyOf(request.raw) ?? payload));
  acceptEmptyJsonBodies(http);
  logRoutePatterns(http);
  // First, so that every route and hook below is traced (when tracing is on).
  await traceServer(http);
  const tokens = container.resolve(AccessTokens);
  const db = container.resolve(Database);
  const jobs = container.resolve(Jobs);
  const registry = container.resolve(PermissionRegistry);

  // Each request runs in its own context; auth fills in the tenant and the caller.
  http.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    TenantContext.run({ requestId: request.id }, done);
  });
  installErrorHandling(http);
  const metrics = container.resolve(Metrics);
  installRequestMetrics(http, metrics);

  await http.register(fastifySwagger, openApiOptions(config.publicUrl));
  await http.register(fastifySwaggerUi, { routePrefix: '/docs', staticCSP: true });
  http.get('/openapi.json', { schema: { hide: true } }, async () => http.swagger());

  metricsRoute(http, metrics, readObservability(config).metrics, tokens);
  healthRoutes(http, db, jobs, config.queueStallMs);

  // The REST API: zod validation and serialization, auth by each route's rule, idempotent POSTs.
  await http.register(async (api) => {
    api.setValidatorCompiler(validatorCompiler);
    api.setSerializerCompiler(serializerCompiler);
    api.addHook('onRoute', (route) => {
      if (!route.config?.auth) throw new Error(`Route ${route.method} ${route.url} declares no auth rule`);
    });
    api.addHook('onRequest', async (request, reply) => {
      const { auth, permission } = request.routeOptions.config;
      const principal = await authorize(request, auth!, tokens);
      logTenant(request, reply, TenantContext.current()?.tenantId);
      // Admin keys and staff members need the route's permission; customers on a shared route do not.
      if (permission && (principal?.kind === 'admin' || principal?.kind === 'staff')) assertPermission(principal, permission);
    });
    refuseNulCharacters(api);
    await installRateLimits(api, config, db);
    installIdempotency(api, db, container.resolve(Secrets));
    // Every admin route names a declared permission, or the app does not start; each is recorded, and
    // each operationId is one route's (the start stops at a second).
    const operationIds = new OperationIds();
    const track = (scope: FastifyInstance, plugin: string) =>
      scope.addHook('onRoute', (route) => {
        registry.checkRoute(plugin, route);
        if (route.method === 'HEAD') return;
        const documented = route.schema as { hide?: boolean; operationId?: unknown } | undefined;
        for (const method of [route.method].flat()) {
          if (!documented?.hide) operationIds.claim(method, route.url, plugin, documented?.operationId);
          routes.push({ plugin, method, url: route.url, auth: route.config!.auth!, ...(route.config?.permission ? { permission: route.config.permission } : {}) });
        }
      });
    await api.register(async (scope) => {
      track(scope, 'core');
      await tenantRoutes(scope, container.resolve(Tenants));
      await storeRoutes(scope, container);
      await staffRoutes(scope, container);
      await localeRoutes(scope, container);
      await marketRoutes(scope, container);
      await mailTextRoutes(scope, container);
    }, { prefix: '/api/v1' });
    for (const plugin of plugins) {
      if (!plugin.routes) continue;
      await api.register(async (scope) => {
        track(scope, plugin.name);
        await plugin.routes!(scope, { container });
      }, { prefix: plugin.prefix ?? '/api/v1' });
    }
  });

  await hostGraphQL(http, plugins, container, tokens);
  await http.ready();
  return http;
}
