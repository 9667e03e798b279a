import { CLOCK, Database, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';

export const SPENT_LINKS_JOB = 'customers.spent-links';

/** Used and expired links are kept a week, so that a late click still gets its precise answer. */
export const KEEP_SPENT_MS = 7 * 24 * 3_600_000;

/** Deletes account links used or expired over a week ago, and the registration-mail log of past days, every store at once. */
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
    // The log behind the hourly cap on registration e-mails needs an hour; a day is plenty.
    await this.db.query(`delete from customers_registration_mail where sent_at < ?`, [new Date(this.clock.now().getTime() - 24 * 3_600_000)]);
    return n;
  }
}
