import type { Logger } from 'pino';
import type { Database } from './db/database.js';

const KEEP_DAYS = 7;

/**
 * What the platform tidies in processes that run workers: access tokens revoked or expired for
 * a week, Idempotency-Key answers past their 24 hours, and sign-in counters whose window ended.
 * Safe to run in several processes.
 */
export class Housekeeping {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
  ) {}

  async run(): Promise<{ tokens: number; idempotencyKeys: number; rateLimits: number }> {
    const tokens = await this.db.query<{ n: number }>(
      `/* every store */ with gone as (
         delete from core_access_token
          where revoked_at < now() - make_interval(days => ?) or expires_at < now() - make_interval(days => ?)
          returning 1)
       select count(*)::int as n from gone`,
      [KEEP_DAYS, KEEP_DAYS],
    );
    const keys = await this.db.query<{ n: number }>(
      `/* every store */ with gone as (delete from core_idempotency_key where created_at < now() - interval '24 hours' returning 1)
       select count(*)::int as n from gone`,
    );
    const counters = await this.db.query<{ n: number }>(
      `/* every store */ with gone as (delete from core_rate_limit where resets_at < now() returning 1) select count(*)::int as n from gone`,
    );
    return { tokens: tokens[0].n, idempotencyKeys: keys[0].n, rateLimits: counters[0].n };
  }

  start(everyMs = 3_600_000): void {
    this.timer ??= setInterval(() => {
      this.run().catch((err) => this.logger.warn({ err }, 'housekeeping failed'));
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
