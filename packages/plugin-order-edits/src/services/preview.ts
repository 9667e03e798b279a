import { AppError, assertPermission, TenantContext, type ErrorDetail, type Tx } from '@qhatu/core';
import { PriceResolver, unitPricesFor, variantsWithProducts, type PriceResolverStrategy, type Sellable } from '@qhatu/plugin-catalog';
import { Discounts } from '@qhatu/plugin-discounts';
import {
  LineOffers, offerUnitPrice, OrderTaxes, REVISABLE, STORE_SHIPPING_PRICES, taxesFor,
  type LineItem, type LineOffersStrategy, type OfferTerms, type Order, type StoreShippingPrices, type TaxableLine, type TaxCalculator,
} from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { OrderEdit, type EditChange, type EditCoupon, type EditLine, type EditShipping, type EditSnapshot } from '../entities/order-edit.js';
import type { EditCreate } from '../schemas/order-edit.js';
import { couponBefore, couponOf, rediscount } from './coupons.js';

/** Setting a shipping price other than the store's. */
export const OVERRIDE_PERMISSION = 'order-edits.override-price';

export interface Preview {
  before: EditSnapshot;
  after: EditSnapshot;
  shipping: EditShipping | null;
  shippingChanged: boolean;
}

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/** A line of the order as it is. */
function lineOf(l: LineItem): EditLine {
  return {
    line_item_id: l.id, variant_id: l.variantId ?? null, product_id: l.productId ?? null, offer_id: l.offerId ?? null, title: l.title, variant_title: l.variantTitle, sku: l.sku ?? null,
    quantity: l.quantity, fulfilled_quantity: l.fulfilledQuantity, unit_price: l.unitPriceAmount, requires_shipping: l.requiresShipping,
    discount_amount: l.discountAmount, tax_class: l.taxClass, tax_rate: l.taxRate, tax_amount: l.taxAmount, total: l.totalAmount - l.discountAmount, change: 'unchanged',
  };
}

function snapshot(lines: EditLine[], shipping: { total: number; tax: number }, pricesIncludeTax: boolean, coupon: EditCoupon | null): EditSnapshot {
  const live = lines.filter((l) => l.quantity > 0);
  const subtotal = sum(live.map((l) => l.unit_price * l.quantity));
  const discount = sum(live.map((l) => l.discount_amount));
  const tax = sum(live.map((l) => l.tax_amount)) + shipping.tax;
  return {
    lines, coupon, subtotal, discount_total: discount, shipping_total: shipping.total, shipping_tax: shipping.tax, tax_total: tax,
    total: subtotal - discount + shipping.total + (pricesIncludeTax ? 0 : tax),
  };
}

/**
 * What an edit makes of an order, worked out without writing: a line keeps its snapshot price
 * and its discount per unit (the coupon's share and volume tier it was sold with); a new line is
 * priced for the order's customer (`PriceResolver`, B2B lists included) with its volume tier; the
 * lines that change and the shipping (when it changes: the store's rate for the new parcel, or a
 * custom price) are taxed again by the orders plugin's `OrderTaxes` at the order's address and in
 * the order's tax mode (its `prices_include_tax`), the others keep their tax. Refused whole (422,
 * naming the change) when it does not fit the order.
 */
@injectable()
export class EditPreviews {
  constructor(
    @inject(PriceResolver) private readonly prices: PriceResolverStrategy,
    @inject(Discounts) private readonly discounts: Discounts,
    @inject(OrderTaxes) private readonly taxes: TaxCalculator,
    @inject(STORE_SHIPPING_PRICES) private readonly shippingPrices: StoreShippingPrices | null,
    @inject(LineOffers) private readonly offers: LineOffersStrategy,
  ) {}

  async preview(tx: Tx, order: Order, current: LineItem[], input: EditCreate): Promise<Preview> {
    if (!REVISABLE.includes(order.status)) {
      throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot edit an order that is ${order.status}`, [{ message: `allowed from: ${REVISABLE.join(', ')}`, from: order.status, action: 'edit' }]);
    }
    const { quantities, added } = plan(current, input.changes);
    const catalog = await variantsWithProducts(tx, [...added.keys(), ...current.flatMap((l) => (l.variantId ? [l.variantId] : []))]);
    assertSellable(added, catalog, order.currency.trim(), input.changes);
    const offers = await this.offersFor(tx, current, quantities, added, catalog);
    const before = current.map(lineOf);
    const after = before.map((l) => resized(l, quantities.get(l.line_item_id!)!));
    after.push(...(await this.newLines(tx, order, added, catalog, offers)));
    const requested = input.shipping === undefined ? null : await this.shippingOf(tx, order, input.shipping, after, catalog);
    if (!after.some((l) => l.change !== 'unchanged') && !requested) {
      throw AppError.unprocessable('NOTHING_TO_CHANGE', 'The edit changes nothing', [{ path: 'body', message: 'give a change or a shipping' }]);
    }
    if (!after.some((l) => l.quantity > 0)) throw AppError.unprocessable('ORDER_EMPTY', 'An order keeps at least one line', [{ path: 'body.changes', message: 'removes every line' }]);
    const coupons = await this.coupons(tx, order, before, after);
    const shipping = await this.tax(tx, order, after, catalog, requested);
    return {
      before: snapshot(before, { total: order.shippingTotal, tax: order.shippingTax }, order.pricesIncludeTax, coupons.before),
      after: snapshot(after, shipping, order.pricesIncludeTax, coupons.after),
      shipping: requested?.shipping ?? null,
      shippingChanged: Boolean(requested),
    };
  }

  /**
   * The order's coupon before and after the edit. When its lines change, the coupon is judged again
   * on them as the checkout judges a cart (its minimum, its products, a percentage of the new amount),
   * each line's discount becoming its volume tier now plus its share; a line whose discount moves
   * is taxed again with the lines that change.
   */
  private async coupons(tx: Tx, order: Order, before: EditLine[], after: EditLine[]): Promise<{ before: EditCoupon | null; after: EditCoupon | null }> {
    const coupon = await couponOf(tx, order.id);
    if (!coupon) return { before: null, after: null };
    const [last] = await tx.em.find(OrderEdit, { orderId: order.id, status: 'confirmed' }, { orderBy: { version: 'desc' }, limit: 1 });
    const was = await couponBefore(tx, order.id, coupon, last?.after.coupon);
    if (!after.some((l) => l.change !== 'unchanged')) return { before: was, after: was };
    const tiered = after.filter((l) => l.quantity > 0 && l.product_id);
    const tiers = await this.discounts.volumeDiscountsFor(tx, tiered.map((l) => ({ productId: l.product_id!, quantity: l.quantity, unitPrice: l.unit_price })), undefined, order.currency.trim());
    const volume = new Map(tiered.map((l, n) => [l, tiers[n]?.discountAmount ?? 0]));
    const now = await rediscount(tx, coupon, after, (l) => volume.get(l) ?? 0, order.currency.trim());
    after.forEach((l, n) => {
      if (l.change === 'unchanged' && l.discount_amount !== before[n].discount_amount) l.change = 'changed';
    });
    return { before: was, after: now };
  }

  /**
   * The sellers' offers the edit takes more units of (a new line on an offer, or more of an offer's
   * line): each for sale and of the line's product (422 OFFER_NOT_AVAILABLE) with the units
   * available (409 OFFER_OUT_OF_STOCK); confirming holds them race-safely (`LineOffers`).
   */
  private async offersFor(tx: Tx, current: LineItem[], quantities: Map<string, number>, added: Map<string, Added>, catalog: Map<string, Sellable>): Promise<Map<string, OfferTerms>> {
    const wanted: Array<{ offerId: string; productId: string | null; units: number; variantId: string | null }> = [];
    for (const l of current) {
      const more = quantities.get(l.id)! - l.quantity;
      if (l.offerId && more > 0) wanted.push({ offerId: l.offerId, productId: l.productId ?? null, units: more, variantId: l.variantId ?? null });
    }
    for (const [variantId, a] of added) if (a.offerId) wanted.push({ offerId: a.offerId, productId: catalog.get(variantId)!.product.id, units: a.quantity, variantId });
    if (wanted.length === 0) return new Map();
    const terms = await this.offers.terms(tx, [...new Set(wanted.map((w) => w.offerId))]);
    const units = new Map<string, number>();
    for (const w of wanted) {
      const offer = terms.get(w.offerId);
      if (!offer || offer.productId !== w.productId) {
        throw AppError.unprocessable('OFFER_NOT_AVAILABLE', 'This offer is not for sale (or not of this variant)', [{ path: 'body.changes', message: 'no such offer for sale', offer_id: w.offerId, variant_id: w.variantId }]);
      }
      units.set(w.offerId, (units.get(w.offerId) ?? 0) + w.units);
    }
    for (const [offerId, n] of units) {
      if (terms.get(offerId)!.available < n) {
        throw AppError.conflict(`This offer has fewer than ${n} units left`, 'OFFER_OUT_OF_STOCK', [{ path: 'body.changes', message: 'not enough units of the offer', offer_id: offerId, quantity: n }]);
      }
    }
    return terms;
  }

  /** The lines the edit adds, at the customer's price (never above the catalog's) or the seller's offer's, less their volume tier. */
  private async newLines(tx: Tx, order: Order, added: Map<string, Added>, catalog: Map<string, Sellable>, offers: Map<string, OfferTerms>): Promise<EditLine[]> {
    if (added.size === 0) return [];
    const variants = [...added].flatMap(([id, a]) => (a.offerId ? [] : [catalog.get(id)!.variant]));
    const currency = order.currency.trim();
    const { unitPrices, unsold } = await unitPricesFor(this.prices, tx, variants, { customerId: order.customerId ?? null, currency });
    if (unsold.length > 0) {
      throw AppError.unprocessable('VARIANT_CURRENCY_MISMATCH', 'A variant the edit adds cannot be sold', unsold.map((v) => ({
        path: 'body.changes', code: 'VARIANT_CURRENCY_MISMATCH', message: `has no price in the order's ${currency}`, variant_id: v.id,
      })));
    }
    const lines = [...added].map(([variantId, { quantity, offerId }]): EditLine => {
      const { variant, product } = catalog.get(variantId)!;
      const unit = offerId ? offerUnitPrice(offers.get(offerId)!, variant) : unitPrices.get(variantId)!;
      return {
        line_item_id: null, variant_id: variantId, product_id: product.id, offer_id: offerId, title: product.title, variant_title: variant.title, sku: variant.sku ?? null,
        quantity, fulfilled_quantity: 0, unit_price: unit, requires_shipping: variant.requiresShipping, discount_amount: 0,
        tax_class: 'standard', tax_rate: 0, tax_amount: 0, total: unit * quantity, change: 'added',
      };
    });
    const tiers = await this.discounts.volumeDiscountsFor(tx, lines.map((l) => ({ productId: l.product_id!, quantity: l.quantity, unitPrice: l.unit_price })), undefined, order.currency.trim());
    lines.forEach((l, n) => {
      l.discount_amount = tiers[n]?.discountAmount ?? 0;
      l.total = l.unit_price * l.quantity - l.discount_amount;
    });
    return lines;
  }

  /** The shipping asked for, priced: none, a custom price (with the permission), or the store's rate for the new parcel. */
  private async shippingOf(tx: Tx, order: Order, input: EditCreate['shipping'], lines: EditLine[], catalog: Map<string, Sellable>): Promise<{ shipping: EditShipping | null; price: number }> {
    if (!input) return { shipping: null, price: 0 };
    if (input.price !== undefined) {
      assertPermission(TenantContext.principal(), OVERRIDE_PERMISSION);
      return { shipping: { carrier: input.carrier, service: input.service, price: input.price, custom: true, reason: input.reason ?? null }, price: input.price };
    }
    if (!order.shippingAddress) throw AppError.unprocessable('SHIPPING_ADDRESS_REQUIRED', 'The order has no shipping address to price the shipping for', [{ path: 'body.shipping', message: 'the order has no address' }]);
    const weightGrams = sum(lines.filter((l) => l.requires_shipping && l.variant_id).map((l) => (catalog.get(l.variant_id!)?.variant.weightGrams ?? 0) * l.quantity));
    const answer = this.shippingPrices
      ? await this.shippingPrices.priceFor(tx, { carrier: input.carrier, service: input.service, destination: order.shippingAddress, weightGrams, currency: order.currency.trim() })
      : { priced: false as const };
    if (!answer.priced) {
      throw AppError.unprocessable('SHIPPING_PRICE_REQUIRED', 'This store prices no shipping: give the shipping a price (with the permission to override prices) and a reason', [
        { path: 'body.shipping.price', message: 'is required where the store has no shipping rates' },
      ]);
    }
    return { shipping: { carrier: input.carrier, service: input.service, price: answer.price, custom: false, reason: null }, price: answer.price };
  }

  /** Taxes the lines that change and the shipping when it changes; the shipping's total and tax after the edit. */
  private async tax(tx: Tx, order: Order, lines: EditLine[], catalog: Map<string, Sellable>, shipping: { price: number } | null): Promise<{ total: number; tax: number }> {
    const touched = lines.filter((l) => l.change === 'changed' || l.change === 'added');
    if (touched.length === 0 && !shipping) return { total: order.shippingTotal, tax: order.shippingTax };
    const quote = await taxesFor(this.taxes, tx, {
      currency: order.currency.trim(),
      address: order.shippingAddress ?? null,
      shipping: shipping?.price ?? 0,
      // The order's own mode (a market's, or the store's setting when it was placed), not the store's now.
      pricesIncludeTax: order.pricesIncludeTax,
      lines: touched.map((l): TaxableLine => {
        const taxable = l.variant_id ? (catalog.get(l.variant_id)?.variant.taxable ?? l.tax_class !== 'exempt') : l.tax_class !== 'exempt';
        if (l.variant_id) return { variantId: l.variant_id, productId: l.product_id!, quantity: l.quantity, amount: l.total, taxable };
        return { variantId: l.line_item_id!, productId: l.line_item_id!, quantity: l.quantity, amount: l.total, taxable, taxClass: l.tax_class };
      }),
    });
    touched.forEach((l, n) => Object.assign(l, { tax_class: l.variant_id ? quote.lines[n].taxClass : l.tax_class, tax_rate: quote.lines[n].rate, tax_amount: quote.lines[n].amount }));
    return shipping ? { total: shipping.price, tax: quote.shipping.amount } : { total: order.shippingTotal, tax: order.shippingTax };
  }
}

/** A variant the edit adds as a new line: how many, and the seller's offer it is bought on (null: the store's own stock). */
interface Added {
  quantity: number;
  offerId: string | null;
}

const offerMismatch = (path: string, variantId: string) =>
  ({ path, code: 'OFFER_MISMATCH', message: 'the order buys this variant on another offer (or on none): a variant is bought on one offer in an order', variant_id: variantId });

/** Each line's quantity after the changes, and the variants added (more of a variant the order has, on the same offer or none, goes to its line). */
function plan(current: LineItem[], changes: EditChange[]): { quantities: Map<string, number>; added: Map<string, Added> } {
  const quantities = new Map(current.map((l) => [l.id, l.quantity]));
  const added = new Map<string, Added>();
  const problems: ErrorDetail[] = [];
  changes.forEach((c, n) => {
    const path = `body.changes.${n}`;
    if (c.action === 'add') {
      const offerId = c.offer_id ?? null;
      const same = current.find((l) => l.variantId === c.variant_id);
      const adding = added.get(c.variant_id);
      if ((same && (same.offerId ?? null) !== offerId) || (adding && adding.offerId !== offerId)) problems.push(offerMismatch(path, c.variant_id));
      else if (same) quantities.set(same.id, quantities.get(same.id)! + c.quantity);
      else added.set(c.variant_id, { quantity: (adding?.quantity ?? 0) + c.quantity, offerId });
      return;
    }
    const line = current.find((l) => l.id === c.line_item_id);
    if (!line) problems.push({ path, code: 'LINE_ITEM_NOT_FOUND', message: 'is not a line of this order', line_item_id: c.line_item_id });
    else quantities.set(line.id, c.action === 'remove' ? 0 : c.quantity);
  });
  for (const line of current) {
    const q = quantities.get(line.id)!;
    if (q < line.fulfilledQuantity) {
      problems.push({ path: 'body.changes', code: 'LINE_ITEM_FULFILLED', message: `${line.fulfilledQuantity} of it fulfilled already: it keeps at least that`, line_item_id: line.id, fulfilled_quantity: line.fulfilledQuantity });
    }
  }
  if (problems.length > 0) throw AppError.unprocessable(String(problems[0].code), 'The edit does not fit the order', problems);
  return { quantities, added };
}

/** A line at its new quantity, its discount kept per unit (rounded down), its tax to be worked out again when it changed. */
function resized(l: EditLine, quantity: number): EditLine {
  if (quantity === l.quantity) return { ...l };
  const discount = quantity === 0 ? 0 : Math.floor((l.discount_amount * quantity) / l.quantity);
  const taxed = quantity === 0 ? { tax_rate: 0, tax_amount: 0 } : {};
  return { ...l, ...taxed, quantity, discount_amount: discount, total: l.unit_price * quantity - discount, change: quantity === 0 ? 'removed' : 'changed' };
}

/** Every variant added is the store's, for sale, in the order's currency; else 422 naming the change. */
function assertSellable(added: Map<string, Added>, catalog: Map<string, Sellable>, currency: string, changes: EditChange[]): void {
  const problems: ErrorDetail[] = [];
  for (const variantId of added.keys()) {
    const path = `body.changes.${changes.findIndex((c) => c.action === 'add' && c.variant_id === variantId)}`;
    const found = catalog.get(variantId);
    if (!found) problems.push({ path, code: 'VARIANT_NOT_FOUND', message: 'is not a variant of this store', variant_id: variantId });
    else if (found.product.status !== 'active') problems.push({ path, code: 'PRODUCT_NOT_AVAILABLE', message: `its product is ${found.product.status}, not for sale`, variant_id: variantId });
    // A seller's offer has one price, in the variant's currency; a catalog variant is priced in the order's by the resolver (decision 0097).
    else if (added.get(variantId)!.offerId && found.variant.currency !== currency) problems.push({ path, code: 'VARIANT_CURRENCY_MISMATCH', message: `is priced in ${found.variant.currency}, not in the order's ${currency}`, variant_id: variantId });
  }
  if (problems.length > 0) throw AppError.unprocessable(String(problems[0].code), 'A variant the edit adds cannot be sold', problems);
}
