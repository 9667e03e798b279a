import { randomUUID } from 'node:crypto';
import { AppError, type ErrorDetail, type SqlTx, type Tx } from '@qhatu/core';
import { Reservations, type HeldLine, type Shortfall, type StockTerms } from '@qhatu/plugin-inventory';
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

/** An item a return ships in place of what came back or went missing; null variant: nothing in stock to take. */
export interface ReplacementItem {
  variantId: string | null;
  title: string;
  quantity: number;
}

/** Units of each variant; `undefined` means everything left to ship. */
export type Wanted = Map<string, number> | undefined;

/** A line as far as stock goes; a custom line (no variant) holds none. */
export interface StockLine {
  variantId?: string | null;
  quantity: number;
  requiresShipping: boolean;
  offerId?: string | null;
}

/** Lines that ship from the store's warehouses; a seller's offer ships from the seller's stock, held by the marketplace. */
const fromWarehouses = <L extends StockLine>(line: L): line is L & { variantId: string } => line.requiresShipping && !line.offerId && Boolean(line.variantId);

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
   * A new order's stock (decision 0054): what its lines of tracked variants need is held in this
   * transaction as `shortfall` allows (inventory's 409 INSUFFICIENT_STOCK otherwise). Answers the
   * units short per variant, sold as a backorder. `terms`: how the variants are sold, as the
   * caller read them in this transaction (`Orders.placingReadsSql`).
   */
  async holdNew(tx: Tx | SqlTx, orderId: string, lines: StockLine[], shortfall: Shortfall, terms?: Map<string, StockTerms>): Promise<Map<string, number>> {
    const wanted = lines.filter(fromWarehouses).map((l) => ({ variantId: l.variantId, quantity: l.quantity }));
    if (wanted.length === 0) return new Map();
    const held = await this.reservations.hold(tx, { orderId, lines: wanted, shortfall }, terms);
    return new Map(held.filter((l) => l.short > 0).map((l) => [l.variantId, l.short]));
  }

  /**
   * Tops up what the order holds to what its lines of tracked variants still need. A variant that
   * allows backorders takes what there is and stays short (answered, and shown on its line); any
   * other shortage is inventory's 409 INSUFFICIENT_STOCK and nothing is reserved. Idempotent.
   */
  async reserveRest(tx: Tx, order: Order, lines: LineItem[]): Promise<HeldLine[]> {
    const held = await this.held(tx, order.id);
    const need = new Map<string, number>();
    for (const line of lines.filter(fromWarehouses)) need.set(line.variantId, (need.get(line.variantId) ?? 0) + line.quantity - line.fulfilledQuantity);
    const deficit = [...need].map(([variantId, n]) => ({ variantId, quantity: n - (held.get(variantId) ?? 0) })).filter((l) => l.quantity > 0);
    const short = deficit.length > 0 ? (await this.reservations.hold(tx, { orderId: order.id, lines: deficit, shortfall: 'backorder' })).filter((l) => l.short > 0) : [];
    const left = new Map(short.map((l) => [l.variantId, l.short]));
    for (const line of lines) {
      const backordered = Math.min((line.variantId && left.get(line.variantId)) || 0, line.quantity - line.fulfilledQuantity);
      if (line.backorderedQuantity !== backordered) line.backorderedQuantity = backordered;
    }
    return short;
  }

  /** Gives back everything the order holds (cancelled or refunded). */
  async releaseAll(tx: Tx, orderId: string): Promise<void> {
    await this.reservations.release(tx, orderId);
  }

  /** Gives back these units of what the order holds (an edit took them off the order). */
  async release(tx: Tx, orderId: string, lines: Array<{ variantId: string; quantity: number }>): Promise<void> {
    await this.reservations.release(tx, orderId, lines);
  }

  /**
   * A shipment of `wanted` (or all that is left): checked against what is left to ship (422
   * LINE_ITEM_NOT_FOUND, FULFILLMENT_QUANTITY_EXCEEDED, NOTHING_TO_FULFILL). The stock of tracked
   * variants is reserved where the order does not hold it yet (cash on delivery ships before
   * payment) and consumed; an untracked variant ships without stock (what it holds is consumed).
   */
  async ship(tx: Tx, order: Order, lines: LineItem[], wanted: Wanted, details: ShipmentDetails, titles = new Map<string, string>()): Promise<Fulfillment> {
    const items = this.plan(lines, wanted, titles);
    const stocked = items.filter((i): i is FulfillmentItem & { variant_id: string } => fromWarehouses(lines.find((l) => l.id === i.line_item_id)!));
    if (stocked.length > 0) {
      const held = await this.held(tx, order.id);
      const deficit = stocked
        .map((i) => ({ variantId: i.variant_id, quantity: i.quantity - (held.get(i.variant_id) ?? 0) }))
        .filter((l) => l.quantity > 0);
      if (deficit.length > 0) {
        for (const l of await this.reservations.hold(tx, { orderId: order.id, lines: deficit, shortfall: 'refuse' })) held.set(l.variantId, (held.get(l.variantId) ?? 0) + l.reserved);
      }
      const taken = stocked.map((i) => ({ variantId: i.variant_id, quantity: Math.min(i.quantity, held.get(i.variant_id) ?? 0) })).filter((l) => l.quantity > 0);
      if (taken.length > 0) await this.reservations.consume(tx, order.id, taken);
    }
    for (const item of items) {
      const line = lines.find((l) => l.id === item.line_item_id)!;
      line.fulfilledQuantity += item.quantity;
      line.backorderedQuantity = Math.min(line.backorderedQuantity, line.quantity - line.fulfilledQuantity);
    }
    return this.record(tx, order, items, details);
  }

  /**
   * A shipment of a return's replacement items (decision 0087): they take the stock the return holds
   * (`returnId` is its holder in inventory; an untracked variant ships without stock), never the
   * order's, and leave the order's lines as they are.
   */
  async shipReplacement(tx: Tx, order: Order, returnId: string, items: ReplacementItem[], details: ShipmentDetails): Promise<Fulfillment> {
    const held = await this.held(tx, returnId);
    const need = new Map<string, number>();
    for (const i of items) if (i.variantId) need.set(i.variantId, (need.get(i.variantId) ?? 0) + i.quantity);
    const taken = [...need].map(([variantId, quantity]) => ({ variantId, quantity: Math.min(quantity, held.get(variantId) ?? 0) })).filter((l) => l.quantity > 0);
    if (taken.length > 0) await this.reservations.consume(tx, returnId, taken);
    const shipped = items.map((i) => ({ line_item_id: null, variant_id: i.variantId ?? null, title: i.title, quantity: i.quantity, return_id: returnId }));
    return this.record(tx, order, shipped, { ...details, status: 'shipped' });
  }

  /** The fulfilment row of `items`, with orders.fulfillment.created (and .delivered when it is delivered at once). */
  private record(tx: Tx, order: Order, items: FulfillmentItem[], details: ShipmentDetails): Fulfillment {
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
      variant_id: line.variantId ?? null,
      title: (line.variantId && titles.get(line.variantId)) || (line.variantTitle ? `${line.title} - ${line.variantTitle}` : line.title),
      quantity,
      return_id: null,
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
