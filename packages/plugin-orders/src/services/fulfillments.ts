import { LockMode } from '@mikro-orm/core';
import { AppError, Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Fulfillment, isReplacement } from '../entities/fulfillment.js';
import type { Order } from '../entities/order.js';
import { publishFulfillment } from './events.js';
import { assertCan, linesOf, lockOrder, move } from './lifecycle.js';
import { Shipping, type ReplacementItem, type ShipmentDetails } from './shipping.js';

export interface FulfillmentInput extends ShipmentDetails {
  /** Absent: everything left to ship. */
  lines?: Array<{ variantId: string; quantity: number; title?: string }>;
}

export interface ReplacementInput extends Omit<ShipmentDetails, 'status'> {
  /** The return the items ship for: every item is tagged with it, and its held stock is taken. */
  returnId: string;
  items: ReplacementItem[];
}

/** Shipments of orders: split shipments, stock consumed, delivery confirmed; a return's replacements. */
@injectable()
export class Fulfillments {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Shipping) private readonly shipping: Shipping,
  ) {}

  /**
   * Ships some or all of what is left, in any state but cancelled, refunded and fulfilled: the
   * order becomes partially_fulfilled, or fulfilled once every item shipped.
   */
  async create(orderId: string, input: FulfillmentInput): Promise<{ order: Order; fulfillment: Fulfillment }> {
    return this.db.tenant(async (tx) => {
      const order = await lockOrder(tx, orderId);
      assertCan(order, 'fulfill');
      const lines = await linesOf(tx, order.id);
      let wanted: Map<string, number> | undefined;
      const titles = new Map<string, string>();
      if (input.lines) {
        wanted = new Map();
        for (const l of input.lines) {
          wanted.set(l.variantId, (wanted.get(l.variantId) ?? 0) + l.quantity);
          if (l.title) titles.set(l.variantId, l.title);
        }
      }
      const fulfillment = await this.shipping.ship(tx, order, lines, wanted, { ...input, status: 'shipped' }, titles);
      const done = lines.every((l) => l.fulfilledQuantity >= l.quantity);
      if (done) await move(tx, order, 'fulfill', null, fulfillment);
      else if (order.status !== 'partially_fulfilled') await move(tx, order, 'fulfill_partially');
      else order.updatedAt = tx.now();
      return { order, fulfillment };
    });
  }

  /**
   * A return's replacement items shipped as a new fulfilment of its order (decision 0087), inside
   * the caller's transaction and under the order's lock: the stock the return holds is taken, the
   * order's lines and status stay as they are (a fulfilled order stays fulfilled), and
   * orders.fulfillment.created is published. One per return: 409 ALREADY_SHIPPED after the first.
   */
  async createReplacement(tx: Tx, orderId: string, input: ReplacementInput): Promise<Fulfillment> {
    const order = await lockOrder(tx, orderId);
    if (input.items.length === 0) throw AppError.unprocessable('NOTHING_TO_FULFILL', 'A replacement shipment needs at least one item');
    const [shipped] = await tx.em.execute<Array<{ id: string }>>(
      `select id from orders_fulfillment where tenant_id = ? and order_id = ? and items @> ?::jsonb limit 1`,
      [tx.tenantId, order.id, JSON.stringify([{ return_id: input.returnId }])],
    );
    if (shipped) throw AppError.conflict('The items of this return shipped already', 'ALREADY_SHIPPED', [{ message: 'shipped', fulfillment_id: shipped.id }]);
    const fulfillment = await this.shipping.shipReplacement(tx, order, input.returnId, input.items, input);
    order.updatedAt = tx.now();
    return fulfillment;
  }

  /**
   * Delivery confirmed for one shipment (409 when it already was). When every item shipped and
   * every shipment is delivered, an order in transit becomes fulfilled.
   */
  async markDelivered(id: string): Promise<Fulfillment> {
    return this.db.tenant(async (tx) => {
      const found = await tx.em.findOne(Fulfillment, { id });
      if (!found) throw AppError.notFound('Fulfillment', 'FULFILLMENT_NOT_FOUND');
      const order = await lockOrder(tx, found.orderId);
      const fulfillment = (await tx.em.findOne(Fulfillment, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true }))!;
      if (fulfillment.status === 'delivered') {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', 'This fulfillment is already delivered', [{ message: 'already delivered', from: 'delivered', action: 'deliver' }]);
      }
      const at = tx.now();
      fulfillment.status = 'delivered';
      fulfillment.deliveredAt = at;
      fulfillment.updatedAt = at;
      publishFulfillment(tx, 'orders.fulfillment.delivered', fulfillment);
      const lines = await linesOf(tx, order.id);
      // A replacement's delivery is its own: it neither waits for nor completes the order's.
      const shipments = (await tx.em.find(Fulfillment, { orderId: order.id })).filter((s) => !isReplacement(s));
      const allShipped = lines.every((l) => l.fulfilledQuantity >= l.quantity);
      const allDelivered = shipments.every((s) => s.status === 'delivered');
      if (!isReplacement(fulfillment) && allShipped && allDelivered && order.status === 'in_transit') await move(tx, order, 'deliver', null, fulfillment);
      return fulfillment;
    });
  }
}
