import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { QhatuConfig } from '../config.js';
import { TenantContext } from '../context.js';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { sendError } from './errors.js';

/** A route's limit: `max` tries per account (and `perAddress` per client address, default 10 × max) in each window. */
export interface RateLimit {
  max: number;
  timeWindow: number | string;
  perAddress?: number;
}

/** The limit the platform puts on credential routes (sign-in, sign-up): per account, and per address across accounts. */
export const CREDENTIAL_RATE_LIMIT = { max: 10, perAddress: 100, timeWindow: '1 minute' } as const;

// Counters of requests outside any store (none of the limited routes today) are kept under this id.
const NO_TENANT = '00000000-0000-0000-0000-000000000000';

interface Hit {
  key: string;
  max: number;
}

interface Count {
  key: string;
  hits: number;
  retry_after: number;
}

/** Where the counters live: shared by every API process, so that a second process is no second budget. */
interface CounterStore {
  count(tenantId: string, hits: Hit[], windowMs: number): Promise<Count[]>;
  close(): Promise<void>;
}

/**
 * Per-route limits for routes that are costly or guessable (sign-in, sign-up): a route opts in
 * with `config: { rateLimit: { max, timeWindow } }`. Each request counts against the account it
 * names (store and e-mail, else the signed-in person, else the client address) and against the
 * client address, in PostgreSQL, or in Redis when REDIS_URL is set. The client address is the
 * socket's unless the operator names trusted proxies (`QHATU_TRUST_PROXY`).
 */
export async function installRateLimits(app: FastifyInstance, config: QhatuConfig, db: Database): Promise<void> {
  const store = config.redisUrl ? redisCounters(config.redisUrl, `${config.queuePrefix}-rl-`) : postgresCounters(db);
  app.addHook('onClose', () => store.close());
  app.addHook('preHandler', async (request, reply) => {
    const limit = request.routeOptions.config.rateLimit;
    if (!limit) return;
    const windowMs = windowOf(limit.timeWindow);
    const route = `${request.method} ${request.routeOptions.url}`;
    const hits: Hit[] = [
      { key: `${route}|account|${accountOf(request)}`, max: limit.max },
      { key: `${route}|address|${request.ip}`, max: limit.perAddress ?? limit.max * 10 },
    ];
    const counts = await store.count(TenantContext.current()?.tenantId ?? NO_TENANT, hits, windowMs);
    const over = counts.filter((c) => c.hits > hits.find((h) => h.key === c.key)!.max);
    if (over.length === 0) return;
    const wait = Math.max(1, ...over.map((c) => c.retry_after));
    reply.header('retry-after', String(wait));
    const which = over.some((c) => c.key.includes('|account|')) ? 'this account' : 'this address';
    return sendError(reply, new AppError(429, 'RATE_LIMITED', `Too many tries for ${which}; try again in ${wait} s`, [
      { message: `at most ${limit.max} per account and ${limit.perAddress ?? limit.max * 10} per address every ${Math.round(windowMs / 1000)} s` },
    ]));
  });
}

/** The account a request names: the e-mail in its body, else the person signed in, else (a token link) the address. */
function accountOf(request: FastifyRequest): string {
  const email = (request.body as { email?: unknown } | undefined)?.email;
  if (typeof email === 'string' && email.trim() !== '') return `email:${email.trim().toLowerCase()}`;
  const principal = TenantContext.current()?.principal;
  // An API key is shared by a store's shoppers: only a person is an account.
  if (principal && ['staff', 'customer', 'vendor'].includes(principal.kind)) return `${principal.kind}:${principal.id}`;
  return `ip:${request.ip}`;
}

function windowOf(value: number | string): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)\s*(second|minute|hour)s?$/.exec(value.trim());
  if (!match) throw new Error(`Unreadable rate limit window "${value}" (say e.g. "1 minute" or a number of ms)`);
  return Number(match[1]) * { second: 1000, minute: 60_000, hour: 3_600_000 }[match[2] as 'second'];
}

function postgresCounters(db: Database): CounterStore {
  return {
    // One statement, both counters: a window past its end starts again at 1.
    count: (tenantId, hits, windowMs) =>
      db.query<Count>(
        `insert into core_rate_limit (tenant_id, key, hits, resets_at)
         select ?::uuid, k, 1, now() + make_interval(secs => ?) from (values ${hits.map(() => '(?)').join(', ')}) as v (k)
         on conflict (tenant_id, key) do update set
           hits = case when core_rate_limit.resets_at <= now() then 1 else core_rate_limit.hits + 1 end,
           resets_at = case when core_rate_limit.resets_at <= now() then excluded.resets_at else core_rate_limit.resets_at end
         returning key, hits, ceil(extract(epoch from resets_at - now()))::int as retry_after`,
        [tenantId, windowMs / 1000, ...hits.map((h) => h.key)],
      ),
    close: async () => {},
  };
}

// INCR and the window's expiry together, so that a counter never outlives its window.
const INCR_SCRIPT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

function redisCounters(url: string, prefix: string): CounterStore {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  return {
    count: (tenantId, hits, windowMs) =>
      Promise.all(
        hits.map(async ({ key }) => {
          const [n, ttl] = (await redis.eval(INCR_SCRIPT, 1, `${prefix}${tenantId}|${key}`, windowMs)) as [number, number];
          return { key, hits: n, retry_after: Math.ceil(Math.max(ttl, 0) / 1000) };
        }),
      ),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
