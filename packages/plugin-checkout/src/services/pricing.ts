import { Product, Variant } from '@qhatu/plugin-catalog';
import { Discounts, type OrderLine } from '@qhatu/plugin-discounts';
import type { Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { Cart } from '../entities/cart.js';
import type { CartItem } from '../entities/cart-item.js';

/** What the catalog says about the variants of a cart: the variant and its product, when it may be sold. */
export interface Sellable {
  variant: Variant;
  product: Product;
}

/**
 * Prices a cart from the catalog, whatever the client sent: the catalog price of each variant,
 * volume discounts by quantity of one product, then the coupon on what is left. Integer minor units.
 */
@injectable()
export class CartPricing {
  constructor(@inject(Discounts) private readonly discounts: Discounts) {}

  /** The variants (with their products) among `variantIds` that exist in the store; two statements. */
  async catalogOf(tx: Tx, variantIds: string[]): Promise<Map<string, Sellable>> {
    const found = new Map<string, Sellable>();
    if (variantIds.length === 0) return found;
    const variants = await tx.em.find(Variant, { id: { $in: [...new Set(variantIds)] } });
    if (variants.length === 0) return found;
    const products = await tx.em.find(Product, { id: { $in: [...new Set(variants.map((v) => v.productId))] } });
    const byId = new Map(products.map((p) => [p.id, p]));
    for (const variant of variants) {
      const product = byId.get(variant.productId);
      if (product) found.set(variant.id, { variant, product });
    }
    return found;
  }

  /**
   * Refreshes every line from the catalog and recomputes the totals. Lines whose variant is gone,
   * whose product is no longer active or whose currency is not the cart's leave the cart.
   * Returns the lines that stay.
   */
  async reprice(tx: Tx, cart: Cart, items: CartItem[], catalog: Map<string, Sellable>): Promise<CartItem[]> {
    const kept: CartItem[] = [];
    for (const item of items) {
      const sellable = catalog.get(item.variantId);
      if (!sellable || sellable.product.status !== 'active' || sellable.variant.currency !== cart.currency) {
        tx.em.remove(item);
        continue;
      }
      refreshLine(item, sellable, tx.now());
      kept.push(item);
    }
    const lines: OrderLine[] = kept.map((i) => ({ productId: i.productId, quantity: i.quantity, unitPrice: i.unitPrice }));
    const volume = await this.discounts.volumeDiscountsFor(tx, lines);
    kept.forEach((item, n) => {
      if (item.volumeDiscount !== (volume[n]?.discountAmount ?? 0)) item.volumeDiscount = volume[n]?.discountAmount ?? 0;
    });
    const subtotal = kept.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0);
    const volumeTotal = kept.reduce((sum, i) => sum + i.volumeDiscount, 0);
    const afterVolume = subtotal - volumeTotal;

    let couponDiscount = 0;
    let refusal: string | null = null;
    if (cart.couponCode) {
      const verdict = await this.discounts.validate(tx, {
        code: cart.couponCode,
        orderAmount: afterVolume,
        currency: cart.currency,
        customerId: cart.customerId,
        // Each line at what it costs after its volume discount, so the coupon is taken on what is paid.
        items: kept.map((i) => ({ productId: i.productId, quantity: 1, unitPrice: i.quantity * i.unitPrice - i.volumeDiscount })),
      });
      couponDiscount = verdict.valid ? verdict.discountAmount : 0;
      refusal = verdict.valid ? null : verdict.reason;
    }
    cart.itemCount = kept.reduce((sum, i) => sum + i.quantity, 0);
    cart.subtotal = subtotal;
    cart.volumeDiscountTotal = volumeTotal;
    cart.couponDiscount = couponDiscount;
    cart.couponRefusal = refusal;
    cart.total = afterVolume - couponDiscount;
    return kept;
  }
}

/** Copies the catalog's truth onto a line, touching only what changed (no needless UPDATE). */
function refreshLine(item: CartItem, { variant, product }: Sellable, now: Date): void {
  const fresh = {
    productId: product.id,
    title: product.title,
    variantTitle: variant.title,
    sku: variant.sku,
    unitPrice: variant.price,
    requiresShipping: variant.requiresShipping,
    imageUrl: product.images[0]?.url ?? null,
    weightGrams: variant.weightGrams,
    taxable: variant.taxable,
  };
  let changed = false;
  for (const [key, value] of Object.entries(fresh) as Array<[keyof typeof fresh, never]>) {
    if (item[key] !== value) {
      (item as Record<string, unknown>)[key] = value;
      changed = true;
    }
  }
  if (changed) item.updatedAt = now;
}
