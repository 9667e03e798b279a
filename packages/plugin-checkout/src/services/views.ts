import type { Cart } from '../entities/cart.js';
import type { CartItem } from '../entities/cart-item.js';
import type { Checkout, CheckoutLine } from '../entities/checkout.js';
import type { CheckoutState } from './checkouts.js';
import type { LineTax, TaxQuote } from '@qhatu/plugin-orders';

/** A cart's totals, minor units: what `CartPricing.quote` computes and a change stores. */
export type CartTotals = Pick<Cart, 'itemCount' | 'subtotal' | 'volumeDiscountTotal' | 'couponDiscount' | 'couponRefusal' | 'taxTotal' | 'pricesIncludeTax' | 'marketPricesIncludeTax' | 'total'>;

/** A line as answered: the stored line, or the same line priced now without being written. */
export type LineState = Pick<
  CartItem,
  'id' | 'variantId' | 'productId' | 'title' | 'variantTitle' | 'sku' | 'quantity' | 'unitPrice' | 'volumeDiscount' | 'requiresShipping' | 'imageUrl' | 'weightGrams' | 'taxable' | 'createdAt' | 'offerId'
>;

/** A cart as answered. */
export type CartState = CartTotals & Pick<Cart, 'id' | 'tenantId' | 'customerId' | 'sessionId' | 'currency' | 'marketId' | 'couponCode' | 'checkoutId' | 'customFields' | 'expiresAt' | 'createdAt' | 'updatedAt'>;

/** A cart and its lines, as the services hand them back. */
export interface CartView {
  cart: CartState;
  items: LineState[];
}

/** The stored cart with the totals of a quote, as a plain object (nothing the ORM would write). */
export function pricedCart(cart: Cart, totals: CartTotals): CartState {
  return {
    id: cart.id,
    tenantId: cart.tenantId,
    customerId: cart.customerId,
    sessionId: cart.sessionId,
    currency: cart.currency,
    marketId: cart.marketId,
    couponCode: cart.couponCode,
    checkoutId: cart.checkoutId,
    customFields: cart.customFields,
    expiresAt: cart.expiresAt,
    createdAt: cart.createdAt,
    updatedAt: cart.updatedAt,
    ...totals,
  };
}

/** A line's tax as a checkout keeps it: its share of the coupon (before tax) and the tax of what is left. */
export interface LineTaxOut {
  couponShare: number;
  tax: LineTax;
}

export function lineOut(item: LineState, taxed?: LineTaxOut): CheckoutLine {
  const subtotal = item.quantity * item.unitPrice;
  return {
    id: item.id,
    variant_id: item.variantId,
    product_id: item.productId,
    title: item.title,
    variant_title: item.variantTitle ?? null,
    sku: item.sku ?? null,
    quantity: item.quantity,
    unit_price: item.unitPrice,
    subtotal,
    volume_discount: item.volumeDiscount,
    total: subtotal - item.volumeDiscount,
    requires_shipping: item.requiresShipping,
    image_url: item.imageUrl ?? null,
    weight_grams: item.weightGrams ?? null,
    taxable: item.taxable,
    offer_id: item.offerId ?? null,
    ...(taxed && {
      discount_amount: item.volumeDiscount + taxed.couponShare,
      tax_class: taxed.tax.taxClass,
      tax_rate: taxed.tax.rate,
      tax_amount: taxed.tax.amount,
    }),
  };
}

/** The lines of a quote with their tax, as a checkout keeps them. */
export function taxedLines(quote: { lines: LineState[]; couponShares: number[]; taxes: TaxQuote }): CheckoutLine[] {
  return quote.lines.map((line, n) => lineOut(line, { couponShare: quote.couponShares[n] ?? 0, tax: quote.taxes.lines[n] }));
}

export function cartOut({ cart, items }: CartView) {
  return {
    id: cart.id,
    tenant_id: cart.tenantId,
    customer_id: cart.customerId ?? null,
    session_id: cart.sessionId ?? null,
    currency: cart.currency,
    market_id: cart.marketId ?? null,
    line_items: [...items].sort(byCreation).map((item) => lineOut(item)),
    item_count: cart.itemCount,
    subtotal: cart.subtotal,
    discount_total: cart.volumeDiscountTotal + cart.couponDiscount,
    tax_total: cart.taxTotal,
    prices_include_tax: cart.pricesIncludeTax,
    total: cart.total,
    coupon: cart.couponCode
      ? { code: cart.couponCode, applies: cart.couponRefusal == null, reason: cart.couponRefusal ?? null, discount_amount: cart.couponDiscount }
      : null,
    checkout_id: cart.checkoutId ?? null,
    // As `Carts` hands views back: the fields the caller may see, defaults filled in.
    custom_fields: cart.customFields,
    expires_at: cart.expiresAt.toISOString(),
    created_at: cart.createdAt.toISOString(),
    updated_at: cart.updatedAt.toISOString(),
  };
}

export const byCreation = (a: LineState, b: LineState) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

export function checkoutOut(c: CheckoutState) {
  return {
    id: c.id,
    cart_id: c.cartId,
    customer_id: c.customerId,
    email: c.email,
    status: c.status,
    currency: c.currency,
    market_id: c.marketId ?? null,
    // Lines kept before taxes were computed read as untaxed.
    line_items: c.lineItems.map((l) => ({ discount_amount: l.volume_discount, tax_class: 'standard', tax_rate: 0, tax_amount: 0, backordered_quantity: 0, ...l, offer_id: l.offer_id ?? null })),
    coupon_code: c.couponCode,
    subtotal: c.subtotal,
    shipping_total: c.shippingTotal,
    discount_total: c.discountTotal,
    tax_total: c.taxTotal,
    shipping_tax: c.shippingTax,
    prices_include_tax: c.pricesIncludeTax,
    total: c.total,
    shipping_address: c.shippingAddress,
    billing_address: c.billingAddress,
    shipping_rate: c.shippingRate,
    order_id: c.orderId ?? null,
    abandoned_at: c.abandonedAt?.toISOString() ?? null,
    completed_at: c.completedAt?.toISOString() ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** The data of checkout events: the checkout without its addresses (personal data stays out of the outbox). */
export function checkoutEvent(c: Checkout): Record<string, unknown> {
  return {
    id: c.id,
    cart_id: c.cartId,
    customer_id: c.customerId,
    status: c.status,
    currency: c.currency,
    market_id: c.marketId ?? null,
    subtotal: c.subtotal,
    shipping_total: c.shippingTotal,
    discount_total: c.discountTotal,
    tax_total: c.taxTotal,
    prices_include_tax: c.pricesIncludeTax,
    total: c.total,
    order_id: c.orderId ?? null,
    updated_at: c.updatedAt.toISOString(),
  };
}

export function cartEvent(cart: Cart): Record<string, unknown> {
  return {
    id: cart.id,
    customer_id: cart.customerId ?? null,
    currency: cart.currency,
    market_id: cart.marketId ?? null,
    item_count: cart.itemCount,
    subtotal: cart.subtotal,
    tax_total: cart.taxTotal,
    total: cart.total,
    coupon_code: cart.couponCode,
    updated_at: cart.updatedAt.toISOString(),
  };
}
