import { AppError, type Tx, type TxReader } from '@qhatu/core';
import { LineItem, type LineOffersStrategy, type OfferTerms, type Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { OfferHold } from '../entities/offer-hold.js';
import { Ledger } from './ledger.js';

const outOfStock = (offerId: string, quantity: number) =>
  AppError.conflict(`This offer has fewer than ${quantity} units left, or is no longer for sale`, 'OFFER_OUT_OF_STOCK', [
    { path: 'line_items', message: 'not enough units of the offer', offer_id: offerId, quantity },
  ]);

/**
 * The orders' `LineOffers`: how a shopper buys a vendor's offer. An offer sells while it is linked
 * and its vendor active, at its price. Placing the order holds the units with one conditional
 * UPDATE per offer (`stock - reserved >= n`): of concurrent orders for the last unit exactly one
 * gets it, the others are 409 OFFER_OUT_OF_STOCK. Paid: the units are sold (taken off the stock)
 * and the ledger splits the money; cancelled unpaid: given back; a paid order cancelled or
 * refunded gives back what had not shipped. An edit of the order moves the units its lines gain or
 * lose, and the ledger follows the new amounts.
 */
@injectable()
export class MarketplaceOffers implements LineOffersStrategy {
  constructor(@inject(Ledger) private readonly ledger: Ledger) {}

  async terms(tx: TxReader, offerIds: string[]): Promise<Map<string, OfferTerms>> {
    const rows = await tx.query<{ id: string; product_id: string; price_override: string | null; available: number }>(
      `select o.id, o.product_id, o.price_override, o.stock - o.reserved as available
         from marketplace_offer o
         join marketplace_vendor v on v.tenant_id = o.tenant_id and v.id = o.vendor_id
        where o.tenant_id = ? and o.id in (select value::uuid from jsonb_array_elements_text(?::jsonb))
          and o.unlinked_at is null and v.status = 'active'`,
      [tx.tenantId, JSON.stringify(offerIds)],
    );
    return new Map(
      rows.map((r) => [r.id, { offerId: r.id, productId: r.product_id, unitPrice: r.price_override == null ? null : Number(r.price_override), available: Number(r.available) }]),
    );
  }

  async orderPlaced(tx: Tx, order: Order, lines: LineItem[]): Promise<void> {
    const wanted = new Map<string, number>();
    for (const l of lines) if (l.offerId) wanted.set(l.offerId, (wanted.get(l.offerId) ?? 0) + l.quantity);
    const agreed = new Map<string, { vendorId: string; bps: number }>();
    // In id order, so that two orders holding the same offers never wait on each other in a circle.
    for (const [offerId, quantity] of [...wanted].sort(([a], [b]) => a.localeCompare(b))) {
      const [row] = await tx.em.execute<Array<{ vendor_id: string; bps: number }>>(
        `update marketplace_offer o set reserved = o.reserved + ?, updated_at = ?
           from marketplace_vendor v
          where o.tenant_id = ? and o.id = ? and o.unlinked_at is null and o.stock - o.reserved >= ?
            and v.tenant_id = o.tenant_id and v.id = o.vendor_id and v.status = 'active'
          returning o.vendor_id, coalesce(o.commission_bps, v.commission_bps) as bps`,
        [quantity, tx.now(), tx.tenantId, offerId, quantity],
      );
      if (!row) throw outOfStock(offerId, quantity);
      agreed.set(offerId, { vendorId: row.vendor_id, bps: Number(row.bps) });
    }
    for (const l of lines) {
      if (!l.offerId) continue;
      const { vendorId, bps } = agreed.get(l.offerId)!;
      tx.em.create(OfferHold, {
        tenantId: tx.tenantId, orderId: order.id, lineItemId: l.id, offerId: l.offerId, vendorId, quantity: l.quantity,
        commissionBps: bps, status: 'held', createdAt: tx.now(), updatedAt: tx.now(),
      });
    }
  }

  async orderChanged(tx: Tx, order: Order): Promise<void> {
    const holds = await tx.em.find(OfferHold, { orderId: order.id });
    if (holds.length === 0) return;
    await this.follow(tx, order, holds);
  }

  /**
   * An edit changed the order's lines: each offer gives back what a removed or smaller line held
   * (or had sold) and holds what a larger or new line needs (sold at once on a paid order), one
   * conditional UPDATE per offer in id order (409 OFFER_OUT_OF_STOCK when short, or no longer for
   * sale); then a paid order's ledger follows its new total.
   */
  async orderRevised(tx: Tx, order: Order, lines: LineItem[]): Promise<void> {
    const holds = await tx.em.find(OfferHold, { orderId: order.id });
    const live = new Map(lines.map((l) => [l.id, l]));
    const held = new Map(holds.map((h) => [h.lineItemId, h]));
    const sells = order.paidAt != null;
    // Per offer: units more reserved (held lines), units more taken off its stock (sold lines).
    const moves = new Map<string, { reserved: number; sold: number }>();
    const add = (offerId: string, reserved: number, sold: number) => {
      const m = moves.get(offerId) ?? { reserved: 0, sold: 0 };
      moves.set(offerId, { reserved: m.reserved + reserved, sold: m.sold + sold });
    };
    for (const hold of holds) {
      if (hold.status !== 'held' && hold.status !== 'sold') continue;
      const quantity = live.get(hold.lineItemId)?.quantity ?? 0;
      const delta = quantity - hold.quantity;
      if (delta !== 0) add(hold.offerId, hold.status === 'held' ? delta : 0, hold.status === 'sold' ? delta : 0);
    }
    const added = lines.filter((l) => l.offerId && !held.has(l.id));
    for (const l of added) add(l.offerId!, sells ? 0 : l.quantity, sells ? l.quantity : 0);
    const agreed = new Map<string, { vendorId: string; bps: number }>();
    for (const [offerId, m] of [...moves].sort(([a], [b]) => a.localeCompare(b))) {
      const need = m.reserved + m.sold;
      const [row] = await tx.em.execute<Array<{ vendor_id: string; bps: number }>>(
        `update marketplace_offer o set reserved = o.reserved + ?, stock = o.stock - ?, updated_at = ?
           from marketplace_vendor v
          where o.tenant_id = ? and o.id = ? and v.tenant_id = o.tenant_id and v.id = o.vendor_id
            and (?::int <= 0 or (o.unlinked_at is null and v.status = 'active' and o.stock - o.reserved >= ?::int))
          returning o.vendor_id, coalesce(o.commission_bps, v.commission_bps) as bps`,
        [m.reserved, m.sold, tx.now(), tx.tenantId, offerId, need, need],
      );
      if (!row) throw outOfStock(offerId, need);
      agreed.set(offerId, { vendorId: row.vendor_id, bps: Number(row.bps) });
    }
    for (const hold of holds) {
      if (hold.status !== 'held' && hold.status !== 'sold') continue;
      const line = live.get(hold.lineItemId);
      if (!line) Object.assign(hold, { status: hold.status === 'held' ? 'released' : 'restocked', updatedAt: tx.now() });
      else if (line.quantity !== hold.quantity) Object.assign(hold, { quantity: line.quantity, updatedAt: tx.now() });
    }
    for (const l of added) {
      const { vendorId, bps } = agreed.get(l.offerId!)!;
      holds.push(
        tx.em.create(OfferHold, {
          tenantId: tx.tenantId, orderId: order.id, lineItemId: l.id, offerId: l.offerId!, vendorId, quantity: l.quantity,
          commissionBps: bps, status: sells ? 'sold' : 'held', createdAt: tx.now(), updatedAt: tx.now(),
        }),
      );
    }
    if (holds.length > 0) await this.follow(tx, order, holds, lines);
  }

  /** The offers' stock and the sellers' money follow the order: paid, cancelled or refunded, or revised (`revised`: its lines now). */
  private async follow(tx: Tx, order: Order, holds: OfferHold[], revised?: LineItem[]): Promise<void> {
    const paid = order.paidAt != null;
    const closed = order.status === 'cancelled' || order.status === 'refunded';
    for (const hold of holds) {
      if (hold.status === 'held' && paid) await this.move(tx, hold, 'sold', -hold.quantity, -hold.quantity);
      else if (hold.status === 'held' && closed) await this.move(tx, hold, 'released', 0, -hold.quantity);
    }
    if (closed && holds.some((h) => h.status === 'sold')) {
      const shipped = new Map((await tx.em.find(LineItem, { orderId: order.id })).map((l) => [l.id, l.fulfilledQuantity]));
      for (const hold of holds) {
        const back = hold.quantity - (shipped.get(hold.lineItemId) ?? 0);
        if (hold.status === 'sold' && back > 0) await this.move(tx, hold, 'restocked', back, 0);
      }
    }
    if (paid) await this.ledger.follow(tx, order, holds, revised);
  }

  private async move(tx: Tx, hold: OfferHold, status: OfferHold['status'], stock: number, reserved: number): Promise<void> {
    await tx.em.execute(`update marketplace_offer set stock = stock + ?, reserved = reserved + ?, updated_at = ? where tenant_id = ? and id = ?`, [
      stock, reserved, tx.now(), tx.tenantId, hold.offerId,
    ]);
    hold.status = status;
    hold.updatedAt = tx.now();
  }
}
