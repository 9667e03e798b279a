import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccessTokens } from '../auth/tokens.js';
import { AppError } from '../errors.js';
import { bearerToken } from '../http/auth.js';
import { installErrorHandling } from '../http/errors.js';
import type { Metrics } from './metrics.js';
import type { ObservabilitySettings } from './settings.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Counts every answered request by its route pattern and status, with its latency. */
export function installRequestMetrics(http: FastifyInstance, metrics: Metrics): void {
  http.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * Who may scrape: the metrics token (compared in constant time) or, on the API port, the
 * platform token; on a metrics port of its own without a token, anyone who reaches it.
 */
function scraperCheck(settings: ObservabilitySettings['metrics'], tokens: AccessTokens | undefined) {
  const expected = settings.token ? digest(settings.token) : undefined;
  return (request: FastifyRequest) => {
    if (!tokens && !expected) return;
    const token = bearerToken(request);
    if (!token) throw AppError.unauthenticated('Scraping /metrics needs the metrics token (or the platform token) as a bearer token');
    if (expected && timingSafeEqual(digest(token), expected)) return;
    if (tokens?.isPlatformToken(token)) return;
    throw AppError.unauthenticated('The bearer token is not valid for /metrics');
  };
}

function route(http: FastifyInstance, metrics: Metrics, check: (request: FastifyRequest) => void): void {
  // Not part of the commerce API: kept out of /openapi.json like the health checks.
  http.get('/metrics', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    check(request);
    const text = await metrics.exposition();
    return reply.type(metrics.contentType).header('cache-control', 'no-store').send(text);
  });
}

/** `/metrics` on the API port, unless a metrics port of its own is set. */
export function metricsRoute(http: FastifyInstance, metrics: Metrics, settings: ObservabilitySettings['metrics'], tokens: AccessTokens): void {
  if (!settings.enabled || settings.port !== undefined) return;
  route(http, metrics, scraperCheck(settings, tokens));
}

/**
 * A listener of `/metrics` for a port the load balancer does not expose; it answers the health
 * checks too, so that a worker process (no API port) can be probed.
 */
export class MetricsListener {
  private server?: FastifyInstance;
  private listening?: Promise<string>;

  constructor(
    private readonly metrics: Metrics,
    private readonly settings: ObservabilitySettings['metrics'],
    private readonly logger: Logger,
    /** Adds `/health/live` and `/health/ready` to the listener. */
    private readonly health?: (server: FastifyInstance) => void,
  ) {}

  get configured(): boolean {
    return this.settings.port !== undefined && (this.settings.enabled || this.health !== undefined);
  }

  /** Opens the port once (the API and the workers of one process share it); its address, or undefined when none is set. */
  async listen(): Promise<string | undefined> {
    if (!this.configured) return undefined;
    this.listening ??= (async () => {
      // Scrapes come every few seconds: only warnings and errors of this listener are logged.
      const logger = this.logger.child({ listener: 'metrics' }, { level: this.logger.isLevelEnabled('warn') ? 'warn' : this.logger.level });
      const server = Fastify({ loggerInstance: logger as FastifyBaseLogger });
      this.server = server;
      installErrorHandling(server);
      if (this.settings.enabled) route(server, this.metrics, scraperCheck(this.settings, undefined));
      this.health?.(server);
      const address = await server.listen({ port: this.settings.port!, host: this.settings.host });
      this.logger.info({ address }, 'metrics and health checks listening');
      return address;
    })();
    return this.listening;
  }

  async close(): Promise<void> {
    await this.listening?.catch(() => undefined);
    await this.server?.close();
    this.server = undefined;
    this.listening = undefined;
  }
}
