import { CLOCK, Database, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';

export const SPENT_LINKS_JOB = 'customers.spent-links';

/** Used and expired links are kept a week, so that a late click still gets its precise answer. */
export const KEEP_SPENT_MS = 7 * 24 * 3_600_000;

/** Deletes account links used or expired over a week ago, every store in one statement. */
@injectable()
export class SpentLinks {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async sweep(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - KEEP_SPENT_MS);
    const [{ n }] = await this.db.query<{ n: number }>(
      `with gone as (delete from customers_account_link where used_at < ? or expires_at < ? returning 1)
       select count(*)::int as n from gone`,
      [cutoff, cutoff],
    );
    return n;
  }
}
