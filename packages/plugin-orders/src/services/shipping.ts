import { randomUUID } from 'node:crypto';
import { AppError, type ErrorDetail, type Tx } from '@qhatu/core';
import { Reservations } from '@qhatu/plugin-inventory';
import { inject, injectable } from 'tsyringe';
import { Fulfillment, type FulfillmentItem, type FulfillmentStatus } from '../entities/fulfillment.js';
import type { LineItem } from '../entities/line-item.js';
import type { Order } from '../entities/order.js';
import { publishFulfillment } from './events.js';

export interface ShipmentDetails {
  carrier?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  estimatedDelivery?: Date | null;
  status?: FulfillmentStatus;
}

/** Units of each variant; `undefined` means everything left to ship. */
export type Wanted = Map<string, number> | undefined;

/**
 * Stock and shipments of orders, always inside the caller's transaction: what an order holds in
 * inventory, and a shipment that takes its units out of stock.
 */
@injectable()
export class Shipping {
  constructor(@inject(Reservations) private readonly reservations: Reservations) {}

  /** Units of each variant the order still holds in inventory. */
  async held(tx: Tx, orderId: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const row of await this.reservations.ofOrder(tx, orderId)) out.set(row.variantId, (out.get(row.variantId) ?? 0) + row.quantity);
    return out;
  }

  /**
   * Reserves what the order's shippable lines still need (all or nothing; inventory's 409/422
   * when it cannot). Lines that do not require shipping keep no stock.
   */
  async reserveRest(tx: Tx, order: Order, lines: LineItem[]): Promise<void> {
    const held = await this.held(tx, order.id);
    const need = new Map<string, number>();
    for (const line of lines) {
      // A seller's offer ships from the seller's stock, held by the marketplace.
      if (!line.requiresShipping || line.offerId) continue;
      need.set(line.variantId, (need.get(line.variantId) ?? 0) + line.quantity - line.fulfilledQuantity);
    }
    const deficit = [...need].map(([variantId, n]) => ({ variantId, quantity: n - (held.get(variantId) ?? 0) })).filter((l) => l.quantity > 0);
    if (deficit.length > 0) await this.reservations.reserve(tx, { orderId: order.id, lines: deficit });
  }

  /** Gives back everything the order holds (cancelled or refunded). */
  async releaseAll(tx: Tx, orderId: string): Promise<void> {
    await this.reservations.release(tx, orderId);
  }

  /**
   * A shipment of `wanted` (or all that is left): checked against what is left to ship (422
   * LINE_ITEM_NOT_FOUND, FULFILLMENT_QUANTITY_EXCEEDED, NOTHING_TO_FULFILL), its stock reserved
   * where the order does not hold it yet (cash on delivery ships before payment) and consumed.
   */
  async ship(tx: Tx, order: Order, lines: LineItem[], wanted: Wanted, details: ShipmentDetails, titles = new Map<string, string>()): Promise<Fulfillment> {
    const items = this.plan(lines, wanted, titles);
    const stocked = items.filter((i) => {
      const line = lines.find((l) => l.id === i.line_item_id)!;
      return line.requiresShipping && !line.offerId;
    });
    if (stocked.length > 0) {
      const held = await this.held(tx, order.id);
      const deficit = stocked
        .map((i) => ({ variantId: i.variant_id, quantity: i.quantity - (held.get(i.variant_id) ?? 0) }))
        .filter((l) => l.quantity > 0);
      if (deficit.length > 0) await this.reservations.reserve(tx, { orderId: order.id, lines: deficit });
      await this.reservations.consume(tx, order.id, stocked.map((i) => ({ variantId: i.variant_id, quantity: i.quantity })));
    }
    for (const item of items) lines.find((l) => l.id === item.line_item_id)!.fulfilledQuantity += item.quantity;
    const at = tx.now();
    const status = details.status ?? 'shipped';
    const fulfillment = tx.em.create(Fulfillment, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      orderId: order.id,
      status,
      carrier: details.carrier ?? null,
      trackingNumber: details.trackingNumber ?? null,
      trackingUrl: details.trackingUrl ?? null,
      estimatedDelivery: details.estimatedDelivery ?? null,
      items,
      shippedAt: at,
      deliveredAt: status === 'delivered' ? at : null,
      createdAt: at,
      updatedAt: at,
    });
    publishFulfillment(tx, 'orders.fulfillment.created', fulfillment);
    if (status === 'delivered') publishFulfillment(tx, 'orders.fulfillment.delivered', fulfillment);
    return fulfillment;
  }

  private plan(lines: LineItem[], wanted: Wanted, titles: Map<string, string>): FulfillmentItem[] {
    const item = (line: LineItem, quantity: number): FulfillmentItem => ({
      line_item_id: line.id,
      variant_id: line.variantId,
      title: titles.get(line.variantId) ?? (line.variantTitle ? `${line.title} - ${line.variantTitle}` : line.title),
      quantity,
    });
    if (!wanted) {
      const rest = lines.filter((l) => l.quantity > l.fulfilledQuantity).map((l) => item(l, l.quantity - l.fulfilledQuantity));
      if (rest.length === 0) throw AppError.unprocessable('NOTHING_TO_FULFILL', 'Every item of this order is already in a fulfillment');
      return rest;
    }
    const items: FulfillmentItem[] = [];
    const problems: ErrorDetail[] = [];
    let index = 0;
    for (const [variantId, quantity] of wanted) {
      const line = lines.find((l) => l.variantId === variantId);
      const path = `body.line_items.${index++}`;
      if (!line) {
        problems.push({ path, message: 'is not a line of this order', code: 'LINE_ITEM_NOT_FOUND', variant_id: variantId });
        continue;
      }
      const remaining = line.quantity - line.fulfilledQuantity;
      if (quantity > remaining) {
        problems.push({ path, message: `${quantity} requested, ${remaining} left to ship`, code: 'FULFILLMENT_QUANTITY_EXCEEDED', variant_id: variantId, requested: quantity, remaining });
        continue;
      }
      items.push(item(line, quantity));
    }
    if (problems.some((p) => p.code === 'LINE_ITEM_NOT_FOUND')) {
      throw AppError.unprocessable('LINE_ITEM_NOT_FOUND', 'A fulfillment names a variant that is not in the order', problems);
    }
    if (problems.length > 0) throw AppError.unprocessable('FULFILLMENT_QUANTITY_EXCEEDED', 'A fulfillment holds more than is left to ship', problems);
    return items;
  }
}
