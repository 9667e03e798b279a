import { LockMode } from '@mikro-orm/core';
import { AppError, Database } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Fulfillment } from '../entities/fulfillment.js';
import type { Order } from '../entities/order.js';
import { publishFulfillment } from './events.js';
import { assertCan, linesOf, lockOrder, move } from './lifecycle.js';
import { Shipping, type ShipmentDetails } from './shipping.js';

export interface FulfillmentInput extends ShipmentDetails {
  /** Absent: everything left to ship. */
  lines?: Array<{ variantId: string; quantity: number; title?: string }>;
}

/** Shipments of orders: split shipments, stock consumed, delivery confirmed. */
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
      const shipments = await tx.em.find(Fulfillment, { orderId: order.id });
      const allShipped = lines.every((l) => l.fulfilledQuantity >= l.quantity);
      const allDelivered = shipments.every((s) => s.status === 'delivered');
      if (allShipped && allDelivered && order.status === 'in_transit') await move(tx, order, 'deliver', null, fulfillment);
      return fulfillment;
    });
  }
}
