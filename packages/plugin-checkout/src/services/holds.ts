import { CLOCK, Database, TenantContext, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Checkouts } from './checkouts.js';
import { CHECKOUT_SETTINGS, type CheckoutSettings } from './settings.js';

export const HOLD_SWEEP_JOB = 'checkout.hold-sweep';

/** At most this many checkouts per run, the longest waiting first: a run stays short, the next one goes on. */
const BATCH = 200;

/**
 * Checkouts awaiting payment since before the cutoff whose order is unpaid (nothing of it paid)
 * and still holds stock, of stores that are open; one statement over every store (the partial
 * index `checkout_checkout_awaiting` serves it).
 */
const EXPIRED_SQL = `
  select k.tenant_id, k.id
    from checkout_checkout k
    join core_tenant t on t.id = k.tenant_id
    join orders_order o on o.tenant_id = k.tenant_id and o.id = k.order_id
   where k.status = 'payment_pending' and k.updated_at < ? and t.status in ('active', 'trial')
     and o.status = 'pending' and o.amount_paid <= o.amount_refunded
     and exists (select 1 from inventory_reservation r where r.tenant_id = k.tenant_id and r.order_id = k.order_id and r.quantity > 0)
   order by k.updated_at, k.id
   limit ${BATCH}`;

export interface HoldSweepResult {
  /** Checkouts abandoned, their orders cancelled and their stock released. */
  abandoned: number;
  /** Checkouts left for a later run: a cancel guard refused (a payment in progress), or they failed. */
  kept: number;
}

/**
 * The lifetime of stock held by an unpaid checkout (decision 0059): the shipping step places the
 * order holding its stock, and a checkout left awaiting payment longer than
 * `QHATU_CHECKOUT_HOLD_MINUTES` is abandoned (`Checkouts.expire`), each in its own store's
 * transaction, so that nobody can keep a store's stock by placing orders and never paying.
 */
@injectable()
export class CheckoutHolds {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Checkouts) private readonly checkouts: Checkouts,
    @inject(CHECKOUT_SETTINGS) private readonly settings: CheckoutSettings,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async sweep(log?: (error: unknown, row: { tenant_id: string; id: string }) => void): Promise<HoldSweepResult> {
    const cutoff = new Date(this.clock.now().getTime() - this.settings.holdMs);
    const reason = `checkout expired: not paid within ${Math.round(this.settings.holdMs / 60_000)} minutes of placing the order`;
    const rows = await this.db.query<{ tenant_id: string; id: string }>(EXPIRED_SQL, [cutoff]);
    const result: HoldSweepResult = { abandoned: 0, kept: 0 };
    for (const row of rows) {
      try {
        const done = await TenantContext.run({ tenantId: row.tenant_id }, () => this.checkouts.expire(row.id, cutoff, reason));
        if (done) result.abandoned += 1;
      } catch (error) {
        // A payment in progress (the payments plugin's cancel guard), or a failure: tried again next run.
        result.kept += 1;
        log?.(error, row);
      }
    }
    return result;
  }
}
