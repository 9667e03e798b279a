import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { QhatuConfig } from '../config.js';
import { AppError } from '../errors.js';

/**
 * Per-route limits for routes that are costly or guessable (sign-in, sign-up): a route opts in
 * with `config: { rateLimit: { max, timeWindow } }`. The caller is the tenant, the client address
 * and the e-mail in the body, so one shopper cannot lock out a store. Counted per process, or in
 * Redis when REDIS_URL is set.
 */
export async function installRateLimits(app: FastifyInstance, config: QhatuConfig): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    ...(config.redisUrl ? { redis: new Redis(config.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true }), nameSpace: `${config.queuePrefix}-rl-` } : {}),
    keyGenerator: (request: FastifyRequest) => {
      const email = (request.body as { email?: unknown } | undefined)?.email;
      const who = typeof email === 'string' ? email.trim().toLowerCase() : '';
      return `${request.routeOptions.url}|${request.headers['x-tenant-id'] ?? ''}|${request.ip}|${who}`;
    },
    errorResponseBuilder: (_request, context) =>
      new AppError(429, 'RATE_LIMITED', `Too many requests; try again in ${context.after}`, [
        { message: `at most ${context.max} requests per ${context.after === '1 minute' ? 'minute' : 'window'}` },
      ]) as never,
  });
}

/** The limit the platform puts on credential routes (sign-in, sign-up). */
export const CREDENTIAL_RATE_LIMIT = { max: 10, timeWindow: '1 minute' } as const;
