import { AppError, type ErrorDetail, type Tx } from '@qhatu/core';
import type { HeldLine } from '@qhatu/plugin-inventory';
import { inject, injectable } from 'tsyringe';
import type { LineItem } from '../entities/line-item.js';
import type { Order } from '../entities/order.js';
import { isCovered, SHIPPED_STATUSES } from './ledger.js';
import { publishMove } from './events.js';
import { addHistoryNote, linesOf, move } from './lifecycle.js';
import { LineOffers, type LineOffersStrategy } from './offers.js';
import { StoreOrderSettings } from './settings.js';
import { Shipping } from './shipping.js';

/** What pays an order of total 0, where a payment id is kept otherwise. */
export const NOTHING_TO_PAY = 'none';

const paidBy = (paymentId: string) => (paymentId === NOTHING_TO_PAY ? 'total 0: nothing to pay' : `payment ${paymentId}`);

/** What the stock events carry of a shortage. */
interface Shortage {
  code: string;
  message: string;
  details: ErrorDetail[];
}

/**
 * An order paid for (or with nothing to pay) gets its stock and moves on to paid, or the store's
 * stock policy runs (decision 0055). Always inside the caller's transaction, the order locked.
 */
@injectable()
export class Settlement {
  constructor(
    @inject(Shipping) private readonly shipping: Shipping,
    @inject(StoreOrderSettings) private readonly settings: StoreOrderSettings,
    @inject(LineOffers) private readonly offers: LineOffersStrategy,
  ) {}

  /**
   * pending → confirmed → paid once the order's payments cover it and its stock is held. Short of
   * stock a variant may be backordered of, it waits in confirmed (orders.order.stock_shortage);
   * short of any other, the store's policy says: `wait` as well, or `refund`
   * (orders.order.stock_unavailable: the payments plugin refunds it). An order of total 0 waits.
   */
  async payIfCovered(tx: Tx, order: Order, paymentId: string, lines?: LineItem[]): Promise<Order> {
    if (SHIPPED_STATUSES.has(order.status) && !order.paidAt && isCovered(order)) return this.paidAsShipped(tx, order, paidBy(paymentId));
    if ((order.status !== 'pending' && order.status !== 'confirmed') || !isCovered(order) || order.stockUnavailableAt) return order;
    if (order.status === 'pending') await move(tx, order, 'confirm', paidBy(paymentId));
    let short: HeldLine[];
    try {
      short = await this.shipping.reserveRest(tx, order, lines ?? (await linesOf(tx, order.id)));
    } catch (error) {
      if (!(error instanceof AppError) || error.status === 400) throw error;
      const shortage = { code: error.code, message: error.message, details: error.details ?? [] };
      if (order.total > 0 && (await this.settings.stockPolicy(tx)) === 'refund') return this.unavailable(tx, order, paymentId, shortage);
      return this.wait(tx, order, paymentId, shortage);
    }
    if (short.length > 0) return this.wait(tx, order, paymentId, backordered(short));
    return this.pay(tx, order, paidBy(paymentId));
  }

  /** A waiting order tries again (stock arrived): true once paid. A shortage rolls back with the caller's transaction. */
  async retry(tx: Tx, order: Order): Promise<boolean> {
    // A refund while it waited may have left it short of its total: it waits for payment again.
    if (order.status !== 'confirmed' || !order.awaitingStockPaymentId || !isCovered(order)) return false;
    const short = await this.shipping.reserveRest(tx, order, await linesOf(tx, order.id));
    // Backordered units it could take now stay held; the order keeps waiting for the rest.
    if (short.length > 0) return false;
    await this.pay(tx, order, `${paidBy(order.awaitingStockPaymentId)}; stock arrived`);
    return true;
  }

  private async pay(tx: Tx, order: Order, note: string): Promise<Order> {
    order.awaitingStockPaymentId = null;
    await move(tx, order, 'pay', note);
    await this.offers.orderChanged(tx, order);
    return order;
  }

  /**
   * An order shipped before it was paid (cash on delivery, paid on delivery) is paid where it
   * stands: its status stays, `paid_at` is set and orders.order.paid published (with that status),
   * so that its checkout completes and its sales count from now. Its stock went with the shipment.
   */
  private paidAsShipped(tx: Tx, order: Order, note: string): Order {
    order.paidAt = tx.now();
    addHistoryNote(tx, order, `paid (${note}) after it shipped`);
    publishMove(tx, 'orders.order.paid', order, order.status, note);
    return order;
  }

  /** Waits in confirmed; restocking any of its variants tries again (`Orders.stockArrived`). */
  private wait(tx: Tx, order: Order, paymentId: string, shortage: Shortage): Order {
    const payment = paymentId === NOTHING_TO_PAY ? null : paymentId;
    tx.publish('orders.order.stock_shortage', { id: order.id, number: order.number, status: order.status, payment_id: payment, ...shortage });
    order.awaitingStockPaymentId = paymentId;
    order.updatedAt = tx.now();
    return order;
  }

  /** Refunded by the payments plugin on the event; it stays confirmed (and waits for nothing) until then. */
  private unavailable(tx: Tx, order: Order, paymentId: string, shortage: Shortage): Order {
    tx.publish('orders.order.stock_unavailable', {
      id: order.id, number: order.number, status: order.status, currency: order.currency, payment_id: paymentId, ...shortage,
    });
    order.awaitingStockPaymentId = null;
    order.stockUnavailableAt = tx.now();
    return addHistoryNote(tx, order, `stock unavailable (${shortage.code}): what was paid is refunded`);
  }
}

/** The shortage of backordered lines, in inventory's words. */
function backordered(short: HeldLine[]): Shortage {
  return {
    code: 'INSUFFICIENT_STOCK',
    message: `Backordered: not enough stock of ${short.map((l) => l.variantId).join(', ')}`,
    details: short.map((l) => ({ message: `${l.short} of ${l.requested} backordered`, variant_id: l.variantId, requested: l.requested, available: l.reserved, backordered: l.short })),
  };
}
