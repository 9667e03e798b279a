import { randomUUID } from 'node:crypto';
import { AppError, type Tx } from '@qhatu/core';
import { Discounts } from '@qhatu/plugin-discounts';
import { Orders, type Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import type { DraftLine, DraftOrder } from '../entities/draft-order.js';
import { couponItems, DraftPricing, type PricedDraft } from './pricing.js';

/** Writes a priced draft onto its row (lines, shipping, discount, totals). */
export function storePrices(tx: Tx, draft: DraftOrder, priced: PricedDraft): void {
  Object.assign(draft, {
    lines: priced.lines,
    shipping: priced.shipping,
    discount: priced.discount,
    subtotal: priced.subtotal,
    discountTotal: priced.discountTotal,
    shippingTotal: priced.shippingTotal,
    taxTotal: priced.taxTotal,
    shippingTax: priced.shippingTax,
    pricesIncludeTax: priced.pricesIncludeTax,
    total: priced.total,
    updatedAt: tx.now(),
  });
}

/**
 * A draft becomes an order through the orders plugin's own placement, as a checkout's does: the
 * store's next number, the stock of tracked variants held (short of it: inventory's 409
 * INSUFFICIENT_STOCK, as at the checkout), `orders.order.created`, an order of total 0 paid at once.
 * The draft is priced again first and placed at exactly those prices (staff's overrides and custom
 * lines included), with its tax quote; its coupon's use is recorded under the coupon's lock.
 */
@injectable()
export class DraftPlacement {
  constructor(
    @inject(DraftPricing) private readonly pricing: DraftPricing,
    @inject(Orders) private readonly orders: Orders,
    @inject(Discounts) private readonly discounts: Discounts,
  ) {}

  async place(tx: Tx, draft: DraftOrder): Promise<Order> {
    if (draft.lines.length === 0) throw AppError.unprocessable('DRAFT_EMPTY', 'A draft needs at least one line to be placed', [{ path: 'line_items', message: 'is empty' }]);
    if (!draft.email) throw AppError.unprocessable('DRAFT_EMAIL_REQUIRED', 'A draft needs an e-mail (or a customer) to be placed', [{ path: 'email', message: 'is required' }]);
    const priced = await this.pricing.price(tx, draft);
    storePrices(tx, draft, priced);
    if (priced.discount && !priced.discount.applies) {
      throw AppError.unprocessable('COUPON_INVALID', "The draft's coupon no longer applies; remove it or change the draft", [
        { path: 'discount.code', message: priced.discount.refusal ?? 'does not apply', reason: priced.discount.refusal },
      ]);
    }
    // The orders plugin puts custom lines after the catalog's; the tax quote follows that order.
    const catalog = priced.lines.filter((l) => l.variant_id);
    const custom = priced.lines.filter((l) => !l.variant_id).map((l) => ({ line: l, id: randomUUID() }));
    const taxOf = new Map(priced.lines.map((l, n) => [l.id, priced.taxes.lines[n]]));
    const quoted = (l: DraftLine, key: string) => ({ ...taxOf.get(l.id)!, variantId: key });
    const { order } = await this.orders.place(tx, {
      customerEmail: draft.email,
      customerId: draft.customerId ?? null,
      lines: catalog.map((l) => ({
        variantId: l.variant_id!, quantity: l.quantity, discount: l.discount_amount, offerId: l.offer_id ?? null, ...(l.price_override ? { unitPrice: l.price_override.amount } : {}),
      })),
      customLines: custom.map(({ line: l, id }) => ({
        id, title: l.title, sku: l.sku, quantity: l.quantity, unitPrice: l.unit_price, requiresShipping: l.requires_shipping, taxable: l.taxable, taxClass: l.tax_class, discount: l.discount_amount,
      })),
      shippingAddress: draft.shippingAddress ?? null,
      shippingTotal: priced.shippingTotal,
      discountTotal: priced.discountTotal,
      taxes: {
        pricesIncludeTax: priced.pricesIncludeTax,
        lines: [...catalog.map((l) => quoted(l, l.variant_id!)), ...custom.map(({ line, id }) => quoted(line, id))],
        shipping: priced.taxes.shipping,
        total: priced.taxTotal,
      },
      currency: draft.currency,
      shortfall: 'backorder',
    });
    // Priced by the same services in the same transaction: a difference is a defect, never charged.
    if (order.total !== draft.total || order.subtotal !== draft.subtotal || order.taxTotal !== draft.taxTotal) {
      throw new AppError(409, 'DRAFT_PRICES_CHANGED', 'The order would not charge what the draft shows; nothing was placed', [
        { message: 'totals differ', draft_total: draft.total, order_total: order.total },
      ]);
    }
    if (priced.discount?.type === 'coupon') {
      await this.discounts.apply(tx, {
        code: priced.discount.code!,
        orderAmount: priced.subtotal - priced.lines.reduce((s, l) => s + l.volume_discount, 0),
        currency: draft.currency,
        customerId: draft.customerId ?? null,
        customerEmail: draft.email,
        items: couponItems(priced.lines),
        orderId: order.id,
      });
    }
    draft.orderId = order.id;
    return order;
  }
}
