import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_DATA_DIR } from './db/embedded-thread.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

// A proxy fastify may believe: an address, a CIDR range, or one of proxy-addr's names for local ranges.
const isProxy = (entry: string) => {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};

/** `QHATU_TRUST_PROXY`: a hop count, or a comma-separated list of proxy addresses and CIDR ranges. */
const trustProxy = z.string().transform((value, ctx) => {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    if (Number(text) >= 1 && Number(text) <= 32) return Number(text);
    ctx.addIssue({ code: 'custom', message: 'a hop count must be 1 to 32' });
    return z.NEVER;
  }
  const entries = text.split(',').map((e) => e.trim()).filter(Boolean);
  const bad = entries.filter((e) => !isProxy(e));
  if (entries.length === 0 || bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `not an address, CIDR range or hop count: ${bad.join(', ') || text}` });
    return z.NEVER;
  }
  return entries;
});

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_PREPARE: z.enum(['on', 'off']).optional(),
  REDIS_URL: z.string().url().optional(),
  QHATU_TRUST_PROXY: trustProxy.optional(),
  QHATU_QUEUE_PREFIX: z.string().regex(/^[a-z0-9_-]{1,40}$/i, 'letters, digits, dashes and underscores').default('qhatu'),
  QHATU_DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  QHATU_PLATFORM_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  SMTP_URL: z.string().url().optional(),
  QHATU_PUBLIC_URL: z.string().url().optional(),
  QHATU_ENV: z.enum(['development', 'production']).optional(),
  QHATU_WEBHOOKS_ALLOW_PRIVATE: bool.optional(),
  QHATU_CACHE: z.enum(['on', 'off']).default('on'),
  QHATU_CACHE_MAX_MB: z.coerce.number().int().min(1).max(65_536).default(64),
  QHATU_FACT_CACHE_MAX_MB: z.coerce.number().int().min(1).max(65_536).default(32),
  QHATU_QUEUE_STALL_SECONDS: z.coerce.number().min(0.1).max(86_400).default(30),
  QHATU_JOB_LOCK_SECONDS: z.coerce.number().min(1).max(3_600).default(30),
  QHATU_PASSWORD_COST: z.coerce.number().int().min(10).max(20).default(15),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface QhatuConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  databasePoolMax: number;
  /** Whether the hot paths may prepare statements on pooled connections (not on the embedded database's one shared session). */
  databasePrepare: boolean;
  redisUrl?: string;
  /**
   * The proxies whose X-Forwarded-For gives the client address (`QHATU_TRUST_PROXY`): a hop count
   * or a list of addresses and CIDR ranges; `false` (unset) believes no header, only the socket.
   */
  trustProxy: false | number | string[];
  /** Keeps deployments that share one Redis apart. */
  queuePrefix: string;
  dataDir: string;
  platformToken?: string;
  smtpUrl?: string;
  publicUrl: string;
  env: 'development' | 'production';
  embedded: boolean;
  allowPrivateWebhooks: boolean;
  logLevel: string;
  /** The storefront read cache: `QHATU_CACHE` (`on` | `off`) and `QHATU_CACHE_MAX_MB` (default 64). */
  readCache: { enabled: boolean; maxBytes: number };
  /** What hot writes keep of a store's facts (decision 0049): on with `QHATU_CACHE`, `QHATU_FACT_CACHE_MAX_MB` (default 32). */
  factCache: { enabled: boolean; maxBytes: number };
  /** Work waiting this long with no job running makes `/health/ready` answer 503 (`QHATU_QUEUE_STALL_SECONDS`, default 30). */
  queueStallMs: number;
  /**
   * How long a running job's lock lasts without renewal (`QHATU_JOB_LOCK_SECONDS`, default 30): a job
   * whose worker died or lost its connection runs again about this long after.
   */
  jobLockMs: number;
  /** The raw environment, for plugins that read settings of their own (validated by them). */
  /** scrypt's cost of new password hashes, log2 N (`QHATU_PASSWORD_COST`, 15: OWASP's; lower only outside production, for tests). */
  passwordCost: number;
  environment: Record<string, string | undefined>;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates settings read from the environment (core's, or a plugin's own from
 * `config.environment`): unset and empty variables count as absent, and every problem is
 * reported at once in a `ConfigError`.
 */
export function parseEnvironment<S extends z.ZodType>(env: Record<string, string | undefined>, schema: S): z.output<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return parsed.data;
}

/** Reads and validates the environment; every problem is reported at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): QhatuConfig {
  const e = parseEnvironment(env, EnvSchema);
  const embedded = !e.DATABASE_URL;
  const mode = e.QHATU_ENV ?? (embedded ? 'development' : 'production');
  const problems = [
    mode === 'production' && !e.QHATU_PLATFORM_TOKEN ? 'QHATU_PLATFORM_TOKEN: required when QHATU_ENV is production' : '',
    mode === 'production' && e.QHATU_PASSWORD_COST < 15 ? 'QHATU_PASSWORD_COST: at least 15 (OWASP\'s scrypt cost) when QHATU_ENV is production' : '',
  ].filter(Boolean);
  if (problems.length) throw new ConfigError(problems);
  const shownHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databasePrepare: (e.DATABASE_PREPARE ?? (embedded ? 'off' : 'on')) === 'on',
    redisUrl: e.REDIS_URL,
    trustProxy: e.QHATU_TRUST_PROXY ?? false,
    queuePrefix: e.QHATU_QUEUE_PREFIX,
    dataDir: e.QHATU_DATA_DIR,
    platformToken: e.QHATU_PLATFORM_TOKEN,
    smtpUrl: e.SMTP_URL,
    publicUrl: (e.QHATU_PUBLIC_URL ?? `http://${shownHost}:${e.PORT}`).replace(/\/$/, ''),
    env: mode,
    embedded,
    allowPrivateWebhooks: e.QHATU_WEBHOOKS_ALLOW_PRIVATE ?? mode === 'development',
    logLevel: e.LOG_LEVEL,
    readCache: { enabled: e.QHATU_CACHE === 'on', maxBytes: e.QHATU_CACHE_MAX_MB * 1024 * 1024 },
    factCache: { enabled: e.QHATU_CACHE === 'on', maxBytes: e.QHATU_FACT_CACHE_MAX_MB * 1024 * 1024 },
    queueStallMs: e.QHATU_QUEUE_STALL_SECONDS * 1000,
    jobLockMs: e.QHATU_JOB_LOCK_SECONDS * 1000,
    passwordCost: e.QHATU_PASSWORD_COST,
    environment: { ...env },
  };
}
