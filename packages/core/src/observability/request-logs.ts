import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TenantContext } from '../context.js';

/**
 * Every line a request logs (fastify's `incoming request` and `request completed`, errors, and
 * whatever a handler writes with `request.log`) names the route pattern it matched, e.g.
 * `"route":"/api/v1/orders/:id"`: lines group by endpoint whatever the ids in the URL.
 */
export function logRoutePatterns(http: FastifyInstance): void {
  http.addHook('onRoute', (route) => {
    const own = route.childLoggerFactory;
    const pattern = route.url;
    route.childLoggerFactory = function (this: FastifyInstance, logger, bindings, options, raw) {
      const withRoute = { ...bindings, route: pattern };
      return own ? own.call(this, logger, withRoute, options, raw) : logger.child(withRoute, options);
    };
  });
  // GraphQL finds the store inside its handler: its answer's lines name it all the same.
  http.addHook('onSend', (request, reply, payload, done) => {
    logTenant(request, reply, TenantContext.current()?.tenantId);
    done(null, payload);
  });
}

const named = new WeakSet<FastifyRequest>();

/**
 * From here on, the request's lines also name its store (`"tenant_id":"…"`), once auth has found it:
 * added to the request's own logger (a child of the request already), not a second child of it.
 */
export function logTenant(request: FastifyRequest, reply: FastifyReply, tenantId: string | undefined): void {
  if (!tenantId || named.has(request)) return;
  named.add(request);
  const own = request.log as FastifyBaseLogger & { setBindings?: (bindings: Record<string, unknown>) => void };
  // A silent logger writes no line to name the store in.
  if (own.level === 'silent') return;
  if (typeof own.setBindings === 'function' && reply.log === own) {
    own.setBindings({ tenant_id: tenantId });
    return;
  }
  const log: FastifyBaseLogger = own.child({ tenant_id: tenantId });
  request.log = log;
  reply.log = log;
}
