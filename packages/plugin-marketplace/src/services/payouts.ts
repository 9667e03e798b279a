import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Payout, type PayoutStatus } from '../entities/payout.js';
import { PAYOUT_ACTIONS, payoutMachine } from '../machines/payout.js';
import type { PayoutStatusUpdate } from '../schemas/payout.js';
import { payoutData, publish } from './events.js';
import { findVendor } from './vendors.js';

export const payoutNotFound = () => AppError.notFound('Payout', 'PAYOUT_NOT_FOUND');

const EVENTS = { processing: 'marketplace.payout.processing', paid: 'marketplace.payout.paid', failed: 'marketplace.payout.failed' } as const;

/** Vendors' payouts: gathered from the ledger as orders are paid and refunded, then paid by the store. */
@injectable()
export class Payouts {
  constructor(@inject(Database) private readonly db: Database) {}

  /**
   * Adds `amount` (negative for a refund) to the vendor's pending payout in `currency`, opening one
   * when there is none; one upsert, whose row stays locked until the caller's transaction ends.
   */
  async gather(tx: Tx, vendorId: string, currency: string, amount: number): Promise<string> {
    const at = tx.now();
    const [row] = await tx.em.execute<Array<{ id: string }>>(
      `insert into marketplace_payout (tenant_id, id, vendor_id, status, currency, amount, entry_count, created_at, updated_at)
       values (?, ?, ?, 'pending', ?, ?, 1, ?, ?)
       on conflict (tenant_id, vendor_id, currency) where status = 'pending'
       do update set amount = marketplace_payout.amount + excluded.amount, entry_count = marketplace_payout.entry_count + 1, updated_at = excluded.updated_at
       returning id`,
      [tx.tenantId, randomUUID(), vendorId, currency, amount, at, at],
    );
    return row.id;
  }

  async list(page: PayoutPage): Promise<Page<Payout>> {
    return this.db.tenant(({ em }) => paginate(em, Payout, page.status ? { status: page.status } : {}, { ...page, sort: '-created_at' }));
  }

  /** A vendor's payouts, newest first (404 VENDOR_NOT_FOUND). */
  async ofVendor(vendorId: string, page: PayoutPage): Promise<Page<Payout>> {
    return this.db.tenant(async (tx) => {
      await findVendor(tx, vendorId);
      return paginate(tx.em, Payout, { vendorId, ...(page.status ? { status: page.status } : {}) }, { ...page, sort: '-created_at' });
    });
  }

  async get(id: string): Promise<Payout> {
    return this.db.tenant(async ({ em }) => {
      const payout = await em.findOne(Payout, { id });
      if (!payout) throw payoutNotFound();
      return payout;
    });
  }

  /**
   * Moves a payout (the machine's table): `processing` and `paid` need something to pay (422
   * PAYOUT_NOT_PAYABLE for an amount of 0 or less, which stays pending and gathers the next sales);
   * `paid` keeps the transfer's `reference`, `failed` its `failure_reason`.
   */
  async setStatus(id: string, input: PayoutStatusUpdate): Promise<Payout> {
    return this.db.tenant(async (tx) => {
      const payout = await tx.em.findOne(Payout, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!payout) throw payoutNotFound();
      const to: Exclude<PayoutStatus, 'pending'> = input.status;
      const action = PAYOUT_ACTIONS[to];
      // Refused before anything is checked or changed (409 INVALID_STATE_TRANSITION).
      if (!payoutMachine.can(payout, action)) await payoutMachine.apply(tx, payout, action);
      if (payout.amount <= 0) {
        throw AppError.unprocessable('PAYOUT_NOT_PAYABLE', `This payout is ${payout.amount}: nothing to pay yet; it keeps gathering the vendor's sales`, [{ path: 'params.id', message: 'amount is not above 0', amount: payout.amount }]);
      }
      const at = tx.now();
      await payoutMachine.apply(tx, payout, action);
      if (to === 'processing') payout.processingAt = at;
      if (to === 'paid') {
        payout.paidAt = at;
        payout.reference = input.reference ?? null;
      }
      if (to === 'failed') {
        payout.failedAt = at;
        payout.failureReason = input.failure_reason ?? null;
      }
      payout.updatedAt = at;
      publish(tx, EVENTS[to], payoutData(payout));
      return payout;
    });
  }
}

export interface PayoutPage extends Pick<PageRequest, 'cursor' | 'limit'> {
  status?: PayoutStatus;
}
