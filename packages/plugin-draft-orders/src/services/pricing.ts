import { AppError, type ErrorDetail, type Tx } from '@qhatu/core';
import { PriceResolver, variantsWithProducts, type PriceResolverStrategy, type Sellable } from '@qhatu/plugin-catalog';
import { Discounts, type OrderLine } from '@qhatu/plugin-discounts';
import { allocate, LineOffers, offerUnitPrice, OrderTaxes, STORE_SHIPPING_PRICES, taxesFor, type LineOffersStrategy, type OfferTerms, type StoreShippingPrices, type TaxableLine, type TaxCalculator, type TaxQuote } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import type { DraftDiscount, DraftLine, DraftOrder, DraftShipping } from '../entities/draft-order.js';
import { storePrice } from './shipping-prices.js';

/** A draft priced now: its lines and totals, and the tax quote of its lines (in its order) and shipping. */
export interface PricedDraft {
  lines: DraftLine[];
  shipping: DraftShipping | null;
  discount: DraftDiscount | null;
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  taxTotal: number;
  shippingTax: number;
  pricesIncludeTax: boolean;
  total: number;
  taxes: TaxQuote;
}

/** How the tax calculator knows a line: its variant and product, or (a custom line) its own id and class. */
export function taxableLine(l: DraftLine, amount: number): TaxableLine {
  if (l.variant_id) return { variantId: l.variant_id, productId: l.product_id!, quantity: l.quantity, amount, taxable: l.taxable };
  return { variantId: l.id, productId: l.id, quantity: l.quantity, amount, taxable: l.taxable, taxClass: l.tax_class };
}

/**
 * Prices a draft the way the checkout prices a cart, with the same services: each catalog line at
 * what this customer pays (`PriceResolver`: the catalog price, or a B2B price list's) unless staff
 * overrode it, the volume discounts of the discounts plugin on the lines not overridden, then the
 * coupon (`Discounts.validate`) or the manual amount on what is left, spread over the lines, the
 * shipping at the store's price (the shipping plugin's `ShippingPrices`) or the custom one, and
 * last the tax of each line's final price and of the shipping (`OrderTaxes`). Reads only; integer
 * minor units. A catalog line that can no longer be sold is 422, naming it.
 */
@injectable()
export class DraftPricing {
  constructor(
    @inject(PriceResolver) private readonly prices: PriceResolverStrategy,
    @inject(Discounts) private readonly discounts: Discounts,
    @inject(OrderTaxes) private readonly taxes: TaxCalculator,
    @inject(STORE_SHIPPING_PRICES) private readonly shippingPrices: StoreShippingPrices | null,
    @inject(LineOffers) private readonly offers: LineOffersStrategy,
  ) {}

  async price(tx: Tx, draft: DraftOrder): Promise<PricedDraft> {
    const catalog = await variantsWithProducts(tx, draft.lines.flatMap((l) => (l.variant_id ? [l.variant_id] : [])));
    const offerIds = [...new Set(draft.lines.flatMap((l) => (l.offer_id ? [l.offer_id] : [])))];
    // A line on a seller's offer sells while the offer does, at its price (a marketplace).
    const offers = offerIds.length ? await this.offers.terms(tx, offerIds) : new Map<string, OfferTerms>();
    assertSellable(draft, catalog, offers);
    const listed = draft.lines.flatMap((l) => (l.variant_id && !l.offer_id && !l.price_override ? [catalog.get(l.variant_id)!.variant] : []));
    const resolved = listed.length ? await this.prices.resolve(tx, listed, { customerId: draft.customerId ?? null, currency: draft.currency }) : new Map();
    const lines = draft.lines.map((line) => {
      const found = line.variant_id ? catalog.get(line.variant_id)! : null;
      const offer = line.offer_id ? offers.get(line.offer_id) : undefined;
      return refreshed(line, found, offer && found ? offerUnitPrice(offer, found.variant) : resolved.get(line.variant_id ?? '')?.price, Boolean(offer));
    });
    // Volume tiers count the lines at the customer's prices; a price staff set is final.
    const tiered = lines.filter((l) => l.variant_id && !l.price_override);
    const volume = await this.discounts.volumeDiscountsFor(tx, tiered.map((l): OrderLine => ({ productId: l.product_id!, quantity: l.quantity, unitPrice: l.unit_price })), undefined, draft.currency);
    tiered.forEach((l, n) => (l.volume_discount = volume[n]?.discountAmount ?? 0));

    const subtotal = sum(lines.map((l) => l.subtotal));
    const volumeTotal = sum(lines.map((l) => l.volume_discount));
    const afterVolume = subtotal - volumeTotal;
    const { discount, shares } = await this.discountOf(tx, draft, lines, afterVolume);
    lines.forEach((l, n) => {
      l.discount_amount = l.volume_discount + shares[n];
      l.total = l.subtotal - l.discount_amount;
    });

    const shipping = await this.shippingOf(tx, draft, lines);
    const shippingTotal = shipping?.price ?? 0;
    const taxes = await taxesFor(this.taxes, tx, {
      currency: draft.currency,
      address: draft.shippingAddress ?? null,
      shipping: shippingTotal,
      lines: lines.map((l) => taxableLine(l, l.total)),
      // A draft is made in the store's currency and in no market: the store's own setting.
      pricesIncludeTax: null,
    });
    // A custom line keeps the class staff gave it (it may be untaxable for now).
    lines.forEach((l, n) => Object.assign(l, { ...(l.variant_id && { tax_class: taxes.lines[n].taxClass }), tax_rate: taxes.lines[n].rate, tax_amount: taxes.lines[n].amount }));
    const discountTotal = volumeTotal + (discount?.amount ?? 0);
    return {
      lines,
      shipping,
      discount,
      subtotal,
      discountTotal,
      shippingTotal,
      taxTotal: taxes.total,
      shippingTax: taxes.shipping.amount,
      pricesIncludeTax: taxes.pricesIncludeTax,
      total: subtotal - discountTotal + shippingTotal + (taxes.pricesIncludeTax ? 0 : taxes.total),
      taxes,
    };
  }

  /**
   * The coupon, judged by the discounts plugin as the cart's is (on what the lines cost after their
   * volume discounts; a product coupon on its products' lines), or the manual amount (at most that),
   * and each line's share of it, adding up exactly.
   */
  private async discountOf(tx: Tx, draft: DraftOrder, lines: DraftLine[], afterVolume: number): Promise<{ discount: DraftDiscount | null; shares: number[] }> {
    const given = draft.discount;
    const weights = lines.map((l) => l.subtotal - l.volume_discount);
    if (!given) return { discount: null, shares: lines.map(() => 0) };
    if (given.type === 'manual') {
      const amount = Math.min(given.value ?? 0, afterVolume);
      return { discount: { ...given, applies: true, refusal: null, amount }, shares: allocate(amount, weights) };
    }
    const verdict = await this.discounts.validate(tx, {
      code: given.code!,
      orderAmount: afterVolume,
      currency: draft.currency,
      customerId: draft.customerId ?? null,
      customerEmail: draft.email ?? null,
      items: couponItems(lines),
    });
    const amount = verdict.valid ? verdict.discountAmount : 0;
    const coupon = verdict.coupon;
    const eligible = coupon?.applicableTo === 'products' ? weights.map((w, n) => (lines[n].product_id && coupon.applicableIds.includes(lines[n].product_id!) ? w : 0)) : weights;
    const base = eligible.some((w) => w > 0) ? eligible : weights;
    return {
      discount: { ...given, applies: verdict.valid, refusal: verdict.valid ? null : verdict.reason, amount },
      shares: allocate(amount, base),
    };
  }

  /** The shipping at its custom price, or at the store's price for this parcel and address. */
  private async shippingOf(tx: Tx, draft: DraftOrder, lines: DraftLine[]): Promise<DraftShipping | null> {
    const chosen = draft.shipping;
    if (!chosen || chosen.custom) return chosen ?? null;
    if (!draft.shippingAddress) {
      throw AppError.unprocessable('SHIPPING_ADDRESS_REQUIRED', 'The shipping is priced for an address: give the draft a shipping_address', [
        { path: 'body.shipping_address', message: 'is required to price the shipping' },
      ]);
    }
    const price = await storePrice(this.shippingPrices, tx, chosen, { address: draft.shippingAddress, lines, currency: draft.currency });
    return { ...chosen, price };
  }
}

/** The lines a coupon is judged on, as the cart hands them: the catalog lines, each at what it costs after its volume discount. */
export function couponItems(lines: DraftLine[]): OrderLine[] {
  return lines.flatMap((l) => (l.product_id ? [{ productId: l.product_id, quantity: 1, unitPrice: l.subtotal - l.volume_discount }] : []));
}

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/**
 * The line with the catalog's facts now (a catalog line) and its unit price; the amounts are filled
 * in by `price`. `price` is the customer's (a price list's) or, with `offered`, the seller's offer's.
 */
function refreshed(line: DraftLine, found: Sellable | null, price: number | undefined, offered: boolean): DraftLine {
  const base = { ...line, offer_id: line.offer_id ?? null, volume_discount: 0, discount_amount: 0, tax_rate: 0, tax_amount: 0 };
  if (!found) return { ...base, subtotal: line.unit_price * line.quantity, total: line.unit_price * line.quantity };
  const { variant, product } = found;
  // The offer's price is the seller's (the order keeps it as it is); any other never above the catalog's (the orders plugin's rule).
  const unit = offered ? price! : (line.price_override?.amount ?? Math.min(price ?? variant.price, variant.price));
  return {
    ...base,
    product_id: product.id,
    title: product.title,
    variant_title: variant.title,
    sku: variant.sku ?? null,
    catalog_price: variant.price,
    unit_price: unit,
    requires_shipping: variant.requiresShipping,
    taxable: variant.taxable,
    weight_grams: variant.weightGrams ?? null,
    subtotal: unit * line.quantity,
    total: unit * line.quantity,
  };
}

/** Every catalog line's variant still in the store, its product for sale, in the draft's currency, its offer for sale; else 422 naming the lines. */
function assertSellable(draft: DraftOrder, catalog: Map<string, Sellable>, offers: Map<string, OfferTerms>): void {
  const problems: ErrorDetail[] = [];
  draft.lines.forEach((l, n) => {
    if (!l.variant_id) return;
    const at = { path: `line_items.${n}`, line_id: l.id, variant_id: l.variant_id };
    const found = catalog.get(l.variant_id);
    if (!found) problems.push({ ...at, code: 'VARIANT_NOT_FOUND', message: 'is not a variant of this store' });
    else if (found.product.status !== 'active') problems.push({ ...at, code: 'PRODUCT_NOT_AVAILABLE', message: `its product is ${found.product.status}, not for sale` });
    else if (found.variant.currency !== draft.currency) {
      problems.push({ ...at, code: 'VARIANT_CURRENCY_MISMATCH', message: `is priced in ${found.variant.currency}, not in the draft's ${draft.currency}` });
    } else if (l.offer_id && offers.get(l.offer_id)?.productId !== found.product.id) {
      problems.push({ ...at, code: 'OFFER_NOT_AVAILABLE', message: "its seller's offer is not for sale (or not of this variant)", offer_id: l.offer_id });
    }
  });
  if (problems.length > 0) throw AppError.unprocessable(String(problems[0].code), 'A line of the draft cannot be sold', problems);
}
