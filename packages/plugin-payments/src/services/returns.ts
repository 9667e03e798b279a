import { AppError, Database, LOGGER } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { Payment } from '../entities/payment.js';
import type { Refund } from '../entities/refund.js';
import { REFUNDABLE } from '../machines/payment.js';
import { RETURN_REASONS, type ReturnReason } from './events.js';
import { Refunds } from './refunds.js';

/** Follow-up jobs queued on the orders plugin's events (`OutboxRelay.queueOn`). */
export const LATE_PAYMENT_JOB = 'payments.return-late-payment';
export const CANCELLED_ORDER_JOB = 'payments.return-cancelled-order';
export const UNSTOCKED_ORDER_JOB = 'payments.return-unstocked-order';

/**
 * The job that sends an order's money back again once a refund that carried it was recorded failed
 * (`payments.payment.return_failed`), for the reason it was first sent.
 */
export const RETURN_AGAIN_JOB = 'payments.return-again';

/** The part of `payments.payment.return_failed` that job reads. */
const ReturnFailedData = z.looseObject({ order_id: z.uuid(), reason: z.enum(RETURN_REASONS) });

/** The part of those events' data the jobs read: the order (`id`), and what the event says of it. */
export const OrderEventData = z.looseObject({
  id: z.uuid(),
  status: z.string().optional(),
  code: z.string().optional(),
  payment_id: z.string().optional(),
});
export type OrderEventData = z.infer<typeof OrderEventData>;

const money = (amount: number, currency: string) => `${amount} ${currency}`;

/** The order's note for each return. */
const NOTES: Record<ReturnReason, (data: OrderEventData, refund: Refund, payment: Payment) => string> = {
  late: (data, r, p) => `Payment ${p.id} was confirmed after the order was ${data.status ?? 'closed'}: ${money(r.amount, p.currency)} sent back to the shopper (refund ${r.id})`,
  order_cancelled: (_data, r, p) => `The order was cancelled: ${money(r.amount, p.currency)} of payment ${p.id} sent back to the shopper (refund ${r.id})`,
  stock_unavailable: (data, r, p) => `No stock for the order${data.code ? ` (${data.code})` : ''}: ${money(r.amount, p.currency)} of payment ${p.id} sent back to the shopper (refund ${r.id})`,
};

/**
 * Money an order must not keep, sent back by the store itself: a payment confirmed after its
 * order was cancelled or abandoned (late money), an order cancelled with money captured, an
 * order whose stock cannot be had. Everything still refundable of the order's captured payments
 * is refunded on their gateways, with `payments.payment.returned` and a note on the order. Safe
 * to run twice: each refund is recorded with the payment row locked, and refunds in progress count.
 */
@injectable()
export class MoneyReturns {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Refunds) private readonly refunds: Refunds,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The job's work for one event; the refunds it recorded (a refused one is thrown, so the job is tried again). */
  async returnOrder(reason: ReturnReason, input: unknown): Promise<Refund[]> {
    const parsed = OrderEventData.safeParse(input);
    if (!parsed.success) {
      this.logger.warn({ data: input, issues: parsed.error.issues }, `order event without an order id; no money returned (${reason})`);
      return [];
    }
    const data = parsed.data;
    const captured = await this.db.tenant(({ em }) => em.find(Payment, { orderId: data.id, status: { $in: [...REFUNDABLE] } }, { orderBy: { createdAt: 'asc', id: 'asc' } }));
    const sent: Refund[] = [];
    for (const payment of captured) {
      const refund = await this.refunds.create(payment.id, { amount: 0, reason: 'other' }, { reason, note: (r, p) => NOTES[reason](data, r, p) }).catch((error: unknown) => {
        // Already on its way back (another run, a refund by the staff), or no longer refundable.
        if (error instanceof AppError && (error.code === 'REFUND_EXCEEDS_AMOUNT' || error.code === 'PAYMENT_NOT_REFUNDABLE')) return null;
        throw error;
      });
      if (refund) sent.push(refund);
    }
    const refused = sent.filter((r) => r.status === 'failed');
    if (refused.length) throw new Error(`The provider refused to return the money of order ${data.id}: ${refused.map((r) => r.failureReason).join('; ')}`);
    return sent;
  }

  /** The job's work for `payments.payment.return_failed`: the order's money sent back again, for the reason it was first sent. */
  async returnAgain(input: unknown): Promise<Refund[]> {
    const parsed = ReturnFailedData.safeParse(input);
    if (!parsed.success) {
      this.logger.warn({ data: input, issues: parsed.error.issues }, 'return_failed event without an order or a reason; nothing sent again');
      return [];
    }
    return this.returnOrder(parsed.data.reason, { id: parsed.data.order_id });
  }
}
